"""The installer without any harness CLI: idempotent, recorded, never silently overwriting,
uninstalling exactly what it wrote; the shipped files render and parse."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skillopt_sleep.install import Homes, harnesses_of, install, uninstall
from skillopt_sleep.install.engine_command import pointer_path, shell_command
from skillopt_sleep.install.layout import plugin_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@pytest.fixture
def homes(tmp_path: Path) -> Homes:
    return Homes.from_env({}, tmp_path / "home")


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _install(homes: Homes, *names: str, **kw: object) -> list:
    return install(list(names) or ["all"], homes=homes, claude_plugin=False, **kw)  # type: ignore[arg-type]


def test_install_writes_every_shim_with_absolute_engine_paths(homes: Homes) -> None:
    actions = _install(homes)
    assert {a.verb for a in actions} == {"create"}
    command = (homes.claude / "commands" / "skillopt-sleep.md").read_text()
    assert "{{" not in command and sys.executable in json.dumps(
        json.loads(pointer_path().read_text())
    )
    skill = (homes.agents_skills / "skillopt-sleep" / "SKILL.md").read_text()
    assert "name: skillopt-sleep" in skill and "--source codex" in skill and "{{" not in skill
    config = tomllib.loads((homes.codex / "config.toml").read_text())
    server = config["mcp_servers"]["skillopt_sleep"]
    assert Path(server["command"]).is_absolute() and server["args"] == ["-m", "skillopt_sleep.mcp"]
    copilot = json.loads((homes.copilot / "mcp-config.json").read_text())
    entry = copilot["mcpServers"]["skillopt_sleep"]
    assert entry["type"] == "local" and entry["tools"] == ["*"]
    assert Path(entry["command"]).is_absolute()
    assert not (homes.codex / "skills").exists()  # one skill folder only, never both


def test_reinstall_is_a_no_op_and_dry_run_touches_nothing(homes: Homes) -> None:
    planned = _install(homes, dry_run=True)
    assert {a.verb for a in planned} == {"create"} and not homes.home.exists()
    assert not pointer_path().exists()
    _install(homes)
    before = _files(homes.home)
    again = _install(homes)
    assert {a.verb for a in again} == {"unchanged"}
    assert _files(homes.home) == before


def test_an_edited_file_is_backed_up_never_silently_replaced_and_kept_on_uninstall(
    homes: Homes,
) -> None:
    _install(homes, "codex")
    skill = homes.agents_skills / "skillopt-sleep" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nmy own note\n")
    (replaced,) = [a for a in _install(homes, "codex") if a.path == str(skill)]
    assert replaced.verb == "replace" and "backed up" in replaced.detail
    backups = list(skill.parent.glob("SKILL.md.skillopt-sleep-backup*"))
    assert backups and "my own note" in backups[0].read_text()
    skill.write_text("edited again\n")
    actions = uninstall(["codex"])
    assert any(a.verb == "keep" and a.path == str(skill) for a in actions)
    assert skill.read_text() == "edited again\n"


def test_user_configs_keep_their_own_content_through_a_round_trip(homes: Homes) -> None:
    homes.codex.mkdir(parents=True)
    toml = 'model = "gpt-5.5"  # mine\n\n[mcp_servers.other]\ncommand = "x"\n'
    (homes.codex / "config.toml").write_text(toml)
    homes.copilot.mkdir(parents=True)
    mine = {"mcpServers": {"other": {"command": "y"}}, "extra": [1, 2]}
    (homes.copilot / "mcp-config.json").write_text(json.dumps(mine))
    before = _files(homes.home)
    _install(homes)
    merged = json.loads((homes.copilot / "mcp-config.json").read_text())
    assert merged["mcpServers"]["other"] == {"command": "y"} and merged["extra"] == [1, 2]
    assert (homes.codex / "config.toml").read_text().startswith(toml)
    uninstall(["all"])
    after = _files(homes.home)
    assert after[".codex/config.toml"] == before[".codex/config.toml"]
    assert json.loads(after[".copilot/mcp-config.json"]) == mine
    assert set(after) == set(before)
    assert not pointer_path().exists() and not (pointer_path().parent / "bin").exists()


def test_a_server_the_user_registered_themselves_is_left_alone(homes: Homes) -> None:
    homes.codex.mkdir(parents=True)
    own = '[mcp_servers.skillopt_sleep]\ncommand = "/opt/mine"\n'
    (homes.codex / "config.toml").write_text(own)
    (action,) = [a for a in _install(homes, "codex") if a.path.endswith("config.toml")]
    assert action.verb == "skip" and "already defined" in action.detail
    assert (homes.codex / "config.toml").read_text() == own


def test_broken_json_is_reported_not_rewritten(homes: Homes) -> None:
    homes.copilot.mkdir(parents=True)
    (homes.copilot / "mcp-config.json").write_text("{not json")
    (action,) = [a for a in _install(homes, "copilot") if a.path.endswith("mcp-config.json")]
    assert action.verb == "skip"
    assert (homes.copilot / "mcp-config.json").read_text() == "{not json"


def test_vscode_gets_servers_with_the_workspace_folder(homes: Homes, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _install(homes, "copilot", vscode_project=repo)
    entry = json.loads((repo / ".vscode" / "mcp.json").read_text())["servers"]["skillopt_sleep"]
    assert (
        entry["type"] == "stdio" and entry["env"]["SKILLOPT_SLEEP_PROJECT"] == "${workspaceFolder}"
    )
    uninstall(["copilot"])
    assert not (repo / ".vscode").exists()


def test_harness_names_are_checked() -> None:
    from skillopt_core.errors import UsageError

    assert harnesses_of(["all"]) == ["claude-code", "codex", "copilot"]
    with pytest.raises(UsageError, match="unknown harness"):
        harnesses_of(["cursor"])


def test_windows_command_lines_quote_paths_with_spaces() -> None:
    argv = [r"C:\Program Files\Python312\python.exe", "-m", "skillopt_sleep.mcp"]
    assert shell_command(argv, windows=True) == (
        r'"C:\Program Files\Python312\python.exe" -m skillopt_sleep.mcp'
    )
    assert shell_command(["/opt/my env/bin/skillopt-sleep"], windows=False) == (
        "'/opt/my env/bin/skillopt-sleep'"
    )


def test_powershell_installers_call_the_same_installer() -> None:
    for name, action in (("install.ps1", "install"), ("uninstall.ps1", "uninstall")):
        text = (plugin_dir("codex") / name).read_text()
        assert f"$action = '{action}'" in text
        assert "-m skillopt_sleep.install $action codex @args" in text
        assert "exit $LASTEXITCODE" in text and "~/.claude" not in text


def test_shipped_skills_have_valid_frontmatter() -> None:
    import yaml

    for harness in ("claude-code", "codex", "copilot"):
        text = (plugin_dir(harness) / "skills" / "skillopt-sleep" / "SKILL.md").read_text()
        front = yaml.safe_load(text.split("---")[1])
        assert front["name"] == "skillopt-sleep"
        assert 1 <= len(front["description"]) <= 1024


def test_every_plugin_file_is_shipped_in_the_wheel() -> None:
    """pyproject's package-data globs (which do not match hidden folders with ``*``) must cover
    every file under plugins/, or `pip install` users get a plugin with holes."""
    import glob

    root = Path(__file__).resolve().parents[2]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["skillopt_sleep"]
    package = root / "skillopt_sleep"
    shipped = {
        Path(match).relative_to("_plugins").as_posix()
        for pattern in patterns
        if pattern.startswith("_plugins/")
        for match in glob.glob(pattern, root_dir=package)
    }
    files = {
        p.relative_to(root / "plugins").as_posix()
        for p in (root / "plugins").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert files - shipped == set()
