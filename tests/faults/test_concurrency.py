"""Concurrent runs: one committing harvest at a time (a clear busy error, exit 5), a commit
refused when another run committed meanwhile, and no `database is locked` traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from faults._cli import home_args, sleep_cli
from faults._sessions import PROJECT, write_many
from skillopt_core.errors import EXIT_BUSY, BusyError
from skillopt_sleep.cli import app
from skillopt_sleep.harvest import HarvestRun, _index, open_index
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._index import FileRow
from skillopt_sleep.harvest._lines import FileId


def _args(home: Path, state: Path, *extra: str) -> list[str]:
    return ["harvest", "-p", PROJECT, *home_args({"claude": home}), "--state-dir", str(state),
            "-s", "claude", *extra]  # fmt: skip


def test_a_second_committing_harvest_is_busy(tmp_path: Path) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_many(home, 2)
    with open_index(PROJECT, state) as index, index.locked():
        second = sleep_cli(_args(home, state, "--commit", "--json"))
    assert second.returncode == EXIT_BUSY
    assert b"another harvest --commit is using" in second.stderr
    assert second.stdout == b"" and b"Traceback" not in second.stderr
    first = sleep_cli(_args(home, state, "--commit", "--json"))  # free again: delivers all
    assert first.returncode == 0 and first.stdout.count(b'"session_id"') == 2


def test_two_recording_runs_never_both_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_many(home, 2)
    monkeypatch.setattr(_index, "BUSY_TIMEOUT_S", 0.05)
    with open_index(PROJECT, state) as first, open_index(PROJECT, state) as second:
        assert len(list(HarvestRun(PROJECT, ("claude",), None, first, homes={"claude": home}))) == 2
        with pytest.raises(BusyError):  # the first holds the write transaction
            list(HarvestRun(PROJECT, ("claude",), None, second, homes={"claude": home}))
        first.commit()


def test_a_run_planned_before_another_runs_commit_records_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    row = FileRow(_index.digest("/f.jsonl"), "claude", FileId(1, 2, 3, 4), 3, "s1", True)
    with open_index(PROJECT, state) as late, open_index(PROJECT, state) as early:
        late.bind(PROJECT)
        early.bind(PROJECT)
        early.put(row, FileState())
        early.commit()
        with pytest.raises(BusyError, match="committed this project's index while"):
            late.put(row, FileState())


@pytest.mark.parametrize("commit", [False, True])
def test_a_locked_database_is_a_busy_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, commit: bool
) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_many(home, 2)
    open_index(PROJECT, state).close()
    monkeypatch.setattr(_index, "BUSY_TIMEOUT_S", 0.05)
    holder = sqlite3.connect(state / _index.INDEX_NAME, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process mid-commit, for longer than we wait
    try:
        extra = ("--commit",) if commit else ()
        result = CliRunner().invoke(app, _args(home, state, *extra))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == EXIT_BUSY, result.output
    assert "busy" in result.output and "database is locked" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
