from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core import lock
from skillopt_core.cli import app
from skillopt_core.lock import DirectoryLocked, exclusive

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from skillopt_core.lock import exclusive
    with exclusive(Path(sys.argv[1]), *sys.argv[2:]):
        print("locked", flush=True)
        sys.stdin.readline()
    """
)


def hold(directory: Path, *what: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(directory), *what],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_second_holder_is_refused_with_the_pid_and_released_on_exit(tmp_path: Path) -> None:
    proc = hold(tmp_path)
    try:
        with pytest.raises(DirectoryLocked, match=f"pid {proc.pid}"), exclusive(tmp_path):
            pass
    finally:
        proc.communicate("\n", timeout=30)
    with exclusive(tmp_path):
        pass


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    proc = hold(tmp_path)
    proc.kill()
    proc.wait(timeout=30)
    with exclusive(tmp_path):
        pass


def test_the_refusal_names_the_holder_not_the_caller(tmp_path: Path) -> None:
    proc = hold(tmp_path, "skillopt-sleep night")
    try:
        with (
            pytest.raises(DirectoryLocked) as caught,
            exclusive(tmp_path, "skillopt-sleep rollback"),
        ):
            pass
    finally:
        proc.communicate("\n", timeout=30)
    message = str(caught.value)
    assert f"another skillopt-sleep night is using {tmp_path} (pid {proc.pid})" in message
    assert "rollback" not in message and "different directory" not in message


def test_two_trainings_on_one_run_dir_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = hold(out, "skillopt train")
    try:
        result = CliRunner().invoke(
            app, ["train", "--split-dir", str(TOY), "--out-root", str(out), "--epochs", "1"]
        )
    finally:
        proc.communicate("\n", timeout=30)
    assert result.exit_code == 5, "BusyError: another run holds the lock"
    assert "another skillopt train is using" in result.output
    assert not (out / "history.json").exists()


def test_a_run_is_not_turned_away_by_a_status_testing_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``holder()`` (``status``, an MCP poll) takes the lock for an instant to test it. Before, a
    scheduled night starting in that instant exited 5 ("another process is using ...")."""
    real = lock._try_lock
    tries = []

    def taken_once(fd: int) -> bool:
        tries.append(fd)
        return len(tries) > 1 and real(fd)

    monkeypatch.setattr(lock, "_try_lock", taken_once)
    with lock.exclusive(tmp_path, "night"):
        assert len(tries) == 2


def test_a_real_holder_still_turns_a_run_away(tmp_path: Path) -> None:
    with (
        lock.exclusive(tmp_path, "night"),
        pytest.raises(lock.DirectoryLocked),
        lock.exclusive(tmp_path, "night"),
    ):
        pass


def test_a_folder_the_lock_creates_is_private(tmp_path: Path) -> None:
    """``<state>/schedule/`` was made 0755 by the lock that first used it (the README promises
    0700 folders in the state dir)."""
    import stat

    folder = tmp_path / "schedule"
    with exclusive(folder, "test"):
        pass
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_waiting_holder_gets_the_lock_once_it_is_let_go_and_never_retries_its_block(
    tmp_path: Path,
) -> None:
    proc = hold(tmp_path, "short step")
    with (
        pytest.raises(DirectoryLocked, match="short step"),
        lock.exclusive_waiting(tmp_path, "waiter", timeout=0.2, poll=0.02),
    ):
        pass
    threading.Timer(0.3, lambda: proc.communicate("\n")).start()
    runs = []
    with (
        pytest.raises(DirectoryLocked, match="inner"),
        lock.exclusive_waiting(tmp_path, "waiter", timeout=10, poll=0.02),
    ):
        runs.append(1)
        raise DirectoryLocked("inner")  # from the block: not a reason to take it again
    assert runs == [1]
    with exclusive(tmp_path, "after"):  # and it was let go
        pass
