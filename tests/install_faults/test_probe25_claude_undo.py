"""The Claude Code plugin over a developer's lifecycle. Uninstalling after the user already removed
it (or after `claude` moved) must finish, not fail on every uninstall with a fix that cannot help
(running the command by hand says the same "not found"); installing again must put back a plugin
the user removed (it said "unchanged" from the manifest and did nothing)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes, claude, install
from skillopt_sleep.install.manifest import install_dir
from tests.install_faults.conftest import FakeClaude

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake claude is a sh script")

# what Claude Code 2.1 prints when the plugin / the marketplace is no longer there
PLUGIN_GONE = (
    'echo "✘ Failed to uninstall plugin \\"skillopt-sleep@skillopt-sleep\\": Plugin '
    '\\"skillopt-sleep@skillopt-sleep\\" not found in installed plugins" >&2; exit 1'
)


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _entries() -> list[dict[str, object]]:
    path = install_dir() / "manifest.json"
    return json.loads(path.read_text())["entries"] if path.exists() else []


def test_a_plugin_the_user_already_removed_is_not_an_endless_failure(
    homes: Homes, fake_claude: FakeClaude
) -> None:
    assert _run("install", "claude-code").exit_code == 0
    fake_claude.script(uninstall=PLUGIN_GONE)
    result = _run("uninstall", "claude-code")
    assert result.exit_code == 0, result.output
    assert "already undone" in result.output and "not found" in result.output
    assert not _entries()
    assert not (install_dir() / "engine.json").exists()  # nothing left runs the engine


def test_an_unrelated_not_found_still_fails_the_undo(homes: Homes, fake_claude: FakeClaude) -> None:
    assert _run("install", "claude-code").exit_code == 0
    fake_claude.script(uninstall='echo "sh: 1: node: not found" >&2; exit 127')
    result = _run("uninstall", "claude-code")
    assert result.exit_code == 1 and "node: not found" in result.stderr
    assert any(e["kind"] == "command" for e in _entries())


def test_a_claude_that_moved_is_found_again_on_path(
    homes: Homes, fake_claude: FakeClaude, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run("install", "claude-code").exit_code == 0
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    log = tmp_path / "calls"
    fake_claude.script(uninstall=f'echo "$@" >> "{log}"')
    fake_claude.path.rename(moved / "claude")
    monkeypatch.setenv("PATH", f"{moved}{os.pathsep}{os.environ['PATH']}")
    result = _run("uninstall", "claude-code")
    assert result.exit_code == 0, result.output
    assert str(moved / "claude") in result.output
    assert log.read_text().split() == ["plugin", "uninstall", "skillopt-sleep@skillopt-sleep"]
    assert not _entries()


def test_install_again_puts_back_a_plugin_the_user_removed(
    homes: Homes, fake_claude: FakeClaude, tmp_path: Path
) -> None:
    assert _run("install", "claude-code").exit_code == 0
    log = tmp_path / "calls"
    fake_claude.script(install=f'echo "$@" >> "{log}"')
    result = _run("install", "claude-code")
    assert result.exit_code == 0, result.output
    assert log.read_text().split() == ["plugin", "install", "skillopt-sleep@skillopt-sleep"]


def test_a_moved_plugin_folder_leaves_one_marketplace_entry(
    homes: Homes, fake_claude: FakeClaude, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(["claude-code"], homes=homes)
    monkeypatch.setattr(claude, "plugin_dir", lambda harness: tmp_path / "moved" / harness)
    install(["claude-code"], homes=homes)
    commands = [e for e in _entries() if e["kind"] == "command"]
    assert len(commands) == 2, commands
    assert any(str(tmp_path / "moved") in str(e["path"]) for e in commands)
