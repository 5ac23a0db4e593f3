"""The last uninstall leaves nothing behind (no manifest, no lock, no empty folders of ours), and
removing the lock file cannot let two runs hold it at once."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.lock import DirectoryLocked, exclusive
from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes, manifest
from skillopt_sleep.install.manifest import install_dir
from skillopt_sleep.paths import state_dir

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Windows keeps its lock file")


def _run(*args: str) -> int:
    return CliRunner().invoke(app, list(args)).exit_code


@pytest.fixture
def default_state(homes: Homes, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform's state folder (under the test's home), as for a user who set nothing."""
    monkeypatch.delenv("SKILLOPT_SLEEP_HOME")
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    assert homes.home in state_dir().parents
    return state_dir()


def test_uninstall_all_leaves_no_lock_and_no_folder_of_ours(default_state: Path) -> None:
    assert _run("install", "codex", "copilot") == 0
    assert (install_dir() / ".lock").exists()
    assert _run("uninstall", "all") == 0
    assert not default_state.exists()


def test_a_folder_the_user_named_stays_but_our_install_folder_goes(homes: Homes) -> None:
    assert _run("install", "codex") == 0
    assert _run("uninstall", "all") == 0
    assert state_dir().is_dir() and not install_dir().exists()


def test_the_lock_stays_while_something_is_installed_or_the_folder_is_not_empty(
    homes: Homes,
) -> None:
    assert _run("install", "codex", "copilot") == 0
    assert _run("uninstall", "codex") == 0
    assert (install_dir() / ".lock").exists()
    assert _run("uninstall", "copilot") == 0
    assert not install_dir().exists()
    assert _run("install", "codex") == 0
    (install_dir() / "notes.txt").write_text("not ours")
    assert _run("uninstall", "all") == 0
    assert (install_dir() / ".lock").exists() and (install_dir() / "notes.txt").exists()


def test_a_run_that_locked_a_removed_lock_file_starts_again(
    homes: Homes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run B opened ``.lock`` just before the last uninstall removed it, and locks that old file;
    run C has meanwhile made a new ``.lock`` and holds it. B must not go on."""
    attempts: list[str] = []

    @contextmanager
    def old_file_first(directory: Path, what: str) -> Iterator[None]:
        with exclusive(directory, what):
            if not attempts:
                (directory / ".lock").unlink()
                (directory / ".lock").write_text("999999999\nskillopt-sleep install")
            attempts.append((directory / ".lock").read_text())
            yield

    monkeypatch.setattr(manifest, "exclusive", old_file_first)
    assert _run("install", "codex") == 0
    assert len(attempts) == 2 and attempts[1].startswith(f"{os.getpid()}\n")


def test_a_lock_file_never_ours_turns_the_run_away(
    homes: Homes, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextmanager
    def always_replaced(directory: Path, what: str) -> Iterator[None]:
        with exclusive(directory, what):
            (directory / ".lock").unlink()
            (directory / ".lock").write_text("999999999\nskillopt-sleep install")
            yield

    monkeypatch.setattr(manifest, "exclusive", always_replaced)
    with pytest.raises(DirectoryLocked), manifest.Manifest().locked("skillopt-sleep install"):
        pytest.fail("entered on a lock that is not ours")
