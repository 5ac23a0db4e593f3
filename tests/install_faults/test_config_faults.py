"""The installer against hostile user configs and a damaged manifest: modes and symlinks kept,
never invalid TOML, and every malformed input an `error:` with a fix instead of a traceback."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes
from skillopt_sleep.install.manifest import install_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _run(*args: str) -> object:
    return CliRunner().invoke(app, list(args))


def _install(*harnesses: str) -> object:
    return _run("install", *(harnesses or ("all",)), "--no-plugin")


def _toml(homes: Homes) -> Path:
    return homes.codex / "config.toml"


def _json(homes: Homes) -> Path:
    return homes.copilot / "mcp-config.json"


def test_private_configs_stay_private_through_install_and_uninstall(homes: Homes) -> None:
    for path, text in ((_toml(homes), 'model = "x"\n'), (_json(homes), '{"a": 1}')):
        path.write_text(text)
        path.chmod(0o600)
    assert _install("codex", "copilot").exit_code == 0
    assert stat.S_IMODE(_toml(homes).stat().st_mode) == 0o600
    assert stat.S_IMODE(_json(homes).stat().st_mode) == 0o600
    assert _run("uninstall", "codex", "copilot").exit_code == 0
    assert stat.S_IMODE(_toml(homes).stat().st_mode) == 0o600
    assert stat.S_IMODE(_json(homes).stat().st_mode) == 0o600


def test_symlinked_configs_are_written_through_the_link(homes: Homes, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "config.toml").write_text('model = "x"\n')
    (dotfiles / "mcp.json").write_text('{"a": 1}')
    _toml(homes).symlink_to(dotfiles / "config.toml")
    _json(homes).symlink_to(dotfiles / "mcp.json")
    assert _install("codex", "copilot").exit_code == 0
    assert _toml(homes).is_symlink() and _json(homes).is_symlink()
    assert "skillopt_sleep" in tomllib.loads((dotfiles / "config.toml").read_text())["mcp_servers"]
    assert "skillopt_sleep" in json.loads((dotfiles / "mcp.json").read_text())["mcpServers"]
    assert _run("uninstall", "codex", "copilot").exit_code == 0
    assert _toml(homes).is_symlink() and _json(homes).is_symlink()
    assert (dotfiles / "config.toml").read_text() == 'model = "x"\n'


def test_an_inline_mcp_servers_table_is_an_error_not_invalid_toml(homes: Homes) -> None:
    original = 'mcp_servers = { other = { command = "npx" } }\n'
    _toml(homes).write_text(original)
    result = _install("codex")
    assert result.exit_code == 1
    assert "invalid TOML" in result.stderr and "[mcp_servers." in result.stderr
    assert _toml(homes).read_text() == original


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("mcp-config.json", b'{"mcpServers": []}'),
        ("mcp-config.json", b'{"mcpServers": "x"}'),
        ("mcp-config.json", b"{not json"),
        ("mcp-config.json", b"[1, 2]"),
        ("mcp-config.json", b'{"a": "\xff"}'),
        ("config.toml", b'model = "\xff"\n'),
        ("config.toml", b"model = = 1\n"),
        ("mcp-config.json", None),
        ("config.toml", None),
    ],
)
def test_a_malformed_config_is_an_error_and_stays_untouched(
    homes: Homes, name: str, content: bytes | None
) -> None:
    harness, home = ("copilot", homes.copilot) if name.endswith("json") else ("codex", homes.codex)
    path = home / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    result = _install(harness)
    assert result.exit_code == 1, result.output
    assert "error:" in result.stderr and "fix:" in result.stderr and str(path) in result.stderr
    assert "Traceback" not in result.output
    assert (path.read_bytes() if content is not None else path.is_dir()) in (content, True)
    skills = [p for p in homes.home.rglob("SKILL.md")]
    assert not skills  # the harness is skipped whole: nothing half-installed


def test_other_harnesses_still_install_when_one_config_is_bad(homes: Homes) -> None:
    _json(homes).write_text('{"mcpServers": []}')
    result = _install("codex", "copilot")
    assert result.exit_code == 1 and "other harnesses unaffected" in result.stderr
    assert "skillopt_sleep" in tomllib.loads(_toml(homes).read_text())["mcp_servers"]


def test_a_file_where_the_copilot_folder_should_be_is_an_error(homes: Homes) -> None:
    homes.copilot.rmdir()
    homes.copilot.write_text("")
    result = _install("copilot")
    assert result.exit_code == 1 and "error:" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_copilot_folder_is_an_error(homes: Homes) -> None:
    homes.copilot.chmod(0o500)
    try:
        result = _install("copilot")
    finally:
        homes.copilot.chmod(0o700)
    assert result.exit_code == 1 and "read-only" in result.stderr


def test_vscode_must_be_a_folder(homes: Homes, tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    result = _run("install", "copilot", "--no-plugin", "--vscode", str(not_a_folder))
    assert result.exit_code == 2 and "not a folder" in result.stderr
    assert not list(homes.home.rglob("*.md"))


@pytest.mark.parametrize(
    "content",
    ["{trunc", "[]", '{"entries": [{"harness": "codex", "kind": "file", "path": "p", "x": 1}]}'],
)
def test_a_damaged_manifest_is_an_error_for_install_and_a_problem_for_doctor(
    homes: Homes, tmp_path: Path, content: str
) -> None:
    install_dir().mkdir(parents=True)
    (install_dir() / "manifest.json").write_text(content)
    for command in (("install", "codex", "--no-plugin"), ("uninstall", "codex")):
        result = _run(*command)
        assert result.exit_code == 1 and "damaged" in result.stderr and "move" in result.stderr
    result = _run("doctor", "-p", str(tmp_path))
    assert result.exit_code == 1 and "install manifest" in result.output
    assert "Traceback" not in result.output


def test_a_manifest_folder_or_a_state_file_is_damage_too(
    homes: Homes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (install_dir() / "manifest.json").mkdir(parents=True)
    assert "damaged" in _run("install", "codex", "--no-plugin").stderr
    state = tmp_path / "state-file"
    state.write_text("")
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(state))
    for command in (("install", "codex", "--no-plugin"), ("uninstall", "codex")):
        result = _run(*command)
        assert result.exit_code == 1 and "damaged" in result.stderr
    result = _run("doctor", "-p", str(tmp_path))
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_doctor_reports_a_missing_project_and_broken_configs(homes: Homes, tmp_path: Path) -> None:
    assert _install("codex", "copilot").exit_code == 0
    result = _run("doctor", "-p", str(tmp_path / "nonexistent"))
    assert result.exit_code == 1 and "[FAIL] project" in result.output
    _json(homes).write_text("{bad")
    with _toml(homes).open("a") as handle:
        handle.write("broken = = 1\n")
    result = _run("doctor", "-p", str(tmp_path))
    lines = [line for line in result.output.splitlines() if "shim" in line]
    assert any("FAIL" in line and "not valid JSON" in line for line in lines), result.output
    assert any("FAIL" in line and "not valid TOML" in line for line in lines), result.output


def test_a_failed_install_keeps_what_it_wrote_in_the_manifest(
    homes: Homes, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.install import _fs

    real = _fs.write

    def flaky(path: Path, data: bytes, *, executable: bool = False) -> None:
        if path.name == "mcp-config.json":
            raise PermissionError(13, "Permission denied", str(path))
        real(path, data, executable=executable)

    monkeypatch.setattr(_fs, "write", flaky)
    assert _install("copilot").exit_code == 1
    manifest = json.loads((install_dir() / "manifest.json").read_text())
    assert any(e["path"].endswith("SKILL.md") for e in manifest["entries"])
