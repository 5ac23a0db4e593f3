"""Codex's config.toml through a developer's lifecycle: `codex mcp add` re-serialises every
`mcp_servers` table and drops our opening marker, after which install called the server "defined
by you", doctor said the block was gone, and uninstall said "already gone" while the server stayed
registered, running a wrapper uninstall deleted. A byte order mark (Codex reads it) is kept."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from skillopt_core.testing.harness import find_cli
from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes, codex, install, uninstall
from skillopt_sleep.install.codex import PASSED_ENV
from skillopt_sleep.install.doctor import shim_checks
from skillopt_sleep.install.edit_block import without_table
from skillopt_sleep.install.manifest import Manifest, install_dir

MINE = '# my codex config\nmodel = "o3"   # favourite\n\n[projects."/tmp/x"]\ntrust_level = "trusted"\n'
TABLE = ("mcp_servers", "skillopt_sleep")


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _codex_rewrite(config: Path, *, other: bool = True) -> None:
    """What `codex mcp add other -- echo hi` (Codex 0.171) makes of the file after our install:
    the user's part kept, every MCP server re-serialised, our opening marker gone, the closing
    one left at the end."""
    command = json.dumps(str(install_dir() / "bin" / "skillopt-sleep-python"))
    ours = (
        f"[mcp_servers.skillopt_sleep]\ncommand = {command}\n"
        'args = ["-m", "skillopt_sleep.mcp"]\n'
        f"env_vars = {json.dumps(list(PASSED_ENV))}\n\n"
        '[mcp_servers.skillopt_sleep.tools.dry_run]\napproval_mode = "approve"\n\n'
        '[mcp_servers.skillopt_sleep.tools.run]\napproval_mode = "approve"\n'
    )
    theirs = '\n[mcp_servers.other]\ncommand = "echo"\nargs = ["hi"]\n' if other else ""
    config.write_text(MINE + "\n" + ours + theirs + "# <<< skillopt-sleep\n")


def _installed(homes: Homes) -> Path:
    config = homes.codex / "config.toml"
    config.write_text(MINE)
    install(["codex"], homes=homes)
    return config


def test_uninstall_removes_our_server_after_codex_rewrote_the_file(homes: Homes) -> None:
    config = _installed(homes)
    _codex_rewrite(config)
    actions = uninstall(["codex"])
    assert [a.verb for a in actions if a.path == str(config)] == ["remove"]
    assert config.read_text() == MINE + '\n[mcp_servers.other]\ncommand = "echo"\nargs = ["hi"]\n'
    assert not (install_dir() / "manifest.json").exists()


def test_uninstall_restores_the_file_exactly_when_only_our_server_was_left(homes: Homes) -> None:
    config = _installed(homes)
    _codex_rewrite(config, other=False)
    uninstall(["codex"])
    assert config.read_text() == MINE


def test_install_and_doctor_know_the_rewritten_table_is_ours(
    homes: Homes, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _installed(homes)
    _codex_rewrite(config)
    again = {a.path: a for a in install(["codex"], homes=homes)}[str(config)]
    assert again.verb == "unchanged" and "defined there by you" not in again.detail
    codex_checks = [c for c in shim_checks(homes, Manifest()) if c.name == "codex shim"]
    assert [c.level for c in codex_checks] == ["ok", "ok"], codex_checks
    # an upgrade that changes what the block holds rewrites it, marked again, user's part kept
    monkeypatch.setattr(codex, "PRE_APPROVED", ("dry_run",))
    updated = {a.path: a for a in install(["codex"], homes=homes)}[str(config)]
    assert updated.verb == "update", updated
    text = config.read_text()
    assert text.startswith(MINE) and '[mcp_servers.other]\ncommand = "echo"' in text
    assert text.count("[mcp_servers.skillopt_sleep]") == 1 and "tools.run]" not in text
    assert text.endswith("# <<< skillopt-sleep\n")
    uninstall(["codex"])
    assert config.read_text() == MINE + '\n[mcp_servers.other]\ncommand = "echo"\nargs = ["hi"]\n'


def test_a_rewritten_table_the_user_edited_is_left_in_place(homes: Homes) -> None:
    config = _installed(homes)
    _codex_rewrite(config)
    config.write_text(
        config.read_text().replace('"skillopt_sleep.mcp"]', '"skillopt_sleep.mcp", "-v"]')
    )
    edited = config.read_text()
    install_verbs = {a.path: a.verb for a in install(["codex"], homes=homes)}
    assert install_verbs[str(config)] == "skip"
    uninstall(["codex"])
    assert config.read_text() == edited


def test_the_line_cut_refuses_what_it_cannot_prove_right() -> None:
    tricky = '[mcp_servers.skillopt_sleep]\nargs = """\n[not.a.table]\n"""\n[x]\ny = 1\n'
    assert without_table(tricky, TABLE) is None
    quoted = '[ mcp_servers . "skillopt_sleep" ]\ncommand = "a"\n# keep me\n[x]\ny = 1\n'
    assert without_table(quoted, TABLE) == "# keep me\n[x]\ny = 1\n"
    parent = '[mcp_servers]\n[mcp_servers.skillopt_sleep]\ncommand = "a"\n'
    assert without_table(parent, TABLE) == "[mcp_servers]\n"
    escaped = '[x."\\U0001F600"]\ny = 1\n[mcp_servers.skillopt_sleep]\ncommand = "a"\n'
    assert without_table(escaped, TABLE) == '[x."\\U0001F600"]\ny = 1\n'


def test_a_config_with_a_byte_order_mark_is_installed_and_restored(homes: Homes) -> None:
    config = homes.codex / "config.toml"
    original = b"\xef\xbb\xbf" + MINE.encode()
    config.write_bytes(original)
    result = _run("install", "codex")
    assert result.exit_code == 0, result.output + result.stderr
    assert config.read_bytes().startswith(original) and b"[mcp_servers.skillopt_sleep]" in (
        config.read_bytes()
    )
    assert _run("uninstall", "codex").exit_code == 0
    assert config.read_bytes() == original


@pytest.mark.integration
@pytest.mark.skipif(find_cli("codex") is None, reason="the codex CLI is not installed")
def test_the_real_codex_rewrite_then_uninstall_leaves_only_the_users_server(
    homes: Homes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(homes.codex))
    config = _installed(homes)
    codex_cli = str(find_cli("codex"))

    def codex_says(*args: str) -> str:
        done = subprocess.run(
            [codex_cli, *args], capture_output=True, text=True, timeout=60, check=True
        )
        return done.stdout

    codex_says("mcp", "add", "other", "--", "echo", "hi")
    assert "skillopt_sleep" in codex_says("mcp", "list")
    uninstall(["codex"])
    listed = codex_says("mcp", "list")
    assert "skillopt_sleep" not in listed and "other" in listed
    codex_says("mcp", "remove", "other")
    assert config.read_text() == MINE
