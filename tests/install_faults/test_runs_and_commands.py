"""The installer against other runs and a misbehaving `claude`: a second install or uninstall is
turned away while one runs; a hung `claude` is stopped with its children and reported; a failed
undo is an error whose entry stays in the manifest for the next uninstall."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from skillopt_core.lock import DirectoryLocked, exclusive
from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes, changes, install, uninstall
from skillopt_sleep.install.manifest import install_dir
from tests.install_faults.conftest import FakeClaude

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake claude is a sh script")


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _entries() -> list[dict[str, object]]:
    path = install_dir() / "manifest.json"
    return json.loads(path.read_text())["entries"] if path.exists() else []


def _plugin_entry() -> list[dict[str, object]]:
    return [e for e in _entries() if e["key"] == "install the skillopt-sleep plugin"]


def _wait_for(path: Path, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.fixture
def hang(tmp_path: Path) -> Iterator[str]:
    """Shell for a `claude` step that never returns and leaves a grandchild running (killed here
    by its pid, should the installer have left it)."""
    pid_file = tmp_path / "grandchild"
    yield f'sleep 300 & echo $! > "{pid_file}"; sleep 300'
    if pid_file.exists() and _alive(pid := int(pid_file.read_text())):
        os.kill(pid, signal.SIGKILL)


def test_a_second_run_is_turned_away_while_the_manifest_is_locked(homes: Homes) -> None:
    with exclusive(install_dir(), "skillopt-sleep install"):
        for command in (("install", "codex", "--no-plugin"), ("uninstall", "codex")):
            result = _run(*command)
            assert result.exit_code == 5, result.output
            assert "another skillopt-sleep install is using" in result.stderr
            assert f"(pid {os.getpid()})" in result.stderr and "wait for it" in result.stderr
    assert not list(homes.home.rglob("SKILL.md")) and not _entries()


def test_install_holds_the_lock_for_the_whole_run(
    homes: Homes, fake_claude: FakeClaude, tmp_path: Path
) -> None:
    started, release = tmp_path / "started", tmp_path / "release"
    fake_claude.script(
        install=f'touch "{started}"; while [ ! -e "{release}" ]; do sleep 0.05; done'
    )
    first = threading.Thread(target=install, args=(["claude-code"],), kwargs={"homes": homes})
    first.start()
    try:
        _wait_for(started)
        with pytest.raises(DirectoryLocked, match="another skillopt-sleep install"):
            install(["codex"], homes=homes, claude_plugin=False)
        with pytest.raises(DirectoryLocked):
            uninstall(["claude-code"])
    finally:
        release.touch()
        first.join(30)
    assert len(_plugin_entry()) == 1
    assert not list(homes.home.rglob("SKILL.md"))  # the turned-away codex install wrote nothing


def test_a_hung_claude_is_stopped_with_its_children_and_reported(
    homes: Homes,
    fake_claude: FakeClaude,
    hang: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(changes, "COMMAND_TIMEOUT_S", 1)
    fake_claude.script(install=hang)
    began = time.monotonic()
    result = _run("install", "claude-code")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert time.monotonic() - began < 30
    assert result.exit_code == 1, result.output
    assert "plugin install" in result.stderr and "did not finish in 1 s" in result.stderr
    assert "fix:" in result.stderr and "by hand" in result.stderr
    grandchild = int((tmp_path / "grandchild").read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)
    assert not _plugin_entry()  # not recorded: the next install tries it again


@pytest.mark.parametrize("failure", ["exits", "hangs"])
def test_a_failed_plugin_uninstall_is_an_error_and_is_retried(
    homes: Homes,
    fake_claude: FakeClaude,
    hang: str,
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    monkeypatch.setattr(changes, "COMMAND_TIMEOUT_S", 1)
    assert _run("install", "claude-code").exit_code == 0
    failing = {
        "exits": 'echo "Removing plugin..." >&2; echo "Error: plugin cache is busy" >&2; exit 1',
        "hangs": hang,
    }[failure]
    fake_claude.script(uninstall=failing)
    result = _run("uninstall", "claude-code")
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    why = "plugin cache is busy" if failure == "exits" else "did not finish in 1 s"
    assert "plugin uninstall" in result.stderr and why in result.stderr
    assert "fix:" in result.stderr and "skillopt-sleep uninstall claude-code" in result.stderr
    assert len(_plugin_entry()) == 1
    assert (install_dir() / "engine.json").exists()  # the plugin still runs the engine
    fake_claude.script()
    again = _run("uninstall", "claude-code")
    assert again.exit_code == 0, again.output
    assert "plugin uninstall" in again.output and not _entries()


def test_an_undo_left_undone_keeps_its_entry_and_fails_the_uninstall(homes: Homes) -> None:
    assert _run("install", "copilot").exit_code == 0
    config = homes.copilot / "mcp-config.json"
    kept = config.read_text()
    config.write_text("{broken")
    result = _run("uninstall", "copilot")
    assert result.exit_code == 1 and "not valid JSON" in result.stderr and "fix:" in result.stderr
    assert [e["path"] for e in _entries() if e["harness"] == "copilot"] == [str(config)]
    config.write_text(kept)
    assert _run("uninstall", "copilot").exit_code == 0
    assert not config.exists() and not _entries()
