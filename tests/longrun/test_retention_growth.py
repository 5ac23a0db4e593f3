"""Stores that grew every night, for years, and were never trimmed.

A 120-night simulation found three: the mining archive's cached family verdicts (a family's
hash changes whenever it gains a request, so most nights left dead rows), one ``night:`` row a
night in the harvest index (a file never vacuumed), and a line a night in ``history.jsonl``.
Each is now bounded by the night itself; these tests simulate many nights cheaply by calling
the trims on synthetic rows, and check that what the readers need is still there and that a
trim cut short leaves the store complete.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.errors import StorageError
from skillopt_sleep.engine import finish, gather
from skillopt_sleep.engine.state import ProjectState, read_lines
from skillopt_sleep.harvest import _index_retention
from skillopt_sleep.harvest._index import HarvestIndex
from skillopt_sleep.mine import _retention
from skillopt_sleep.mine.archive import Archive

START = datetime(2026, 3, 2, 3, 0, tzinfo=timezone.utc)


def _night(n: int) -> str:
    return (START + timedelta(days=n)).strftime("%Y%m%d-%H%M%S")


# -- the archive's cached family verdicts ---------------------------------------------------------


def _mining_run(path: Path, asked: list[str], stored: list[str]) -> None:
    """One night's use of the verdict cache: look ``asked`` up, store ``stored``."""
    with Archive(path) as archive:
        for digest in asked:
            assert archive.confirmation(digest) is not None, digest
        for digest in stored:
            archive.put_confirmation(digest, [[0, 1]])


def _verdicts(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {row[0] for row in db.execute("SELECT family_hash FROM confirmations")}
    finally:
        db.close()


def test_verdicts_no_night_uses_are_dropped_and_those_in_use_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_retention, "CONFIRM_KEEP_RUNS", 5)
    path = tmp_path / "mine-archive.sqlite3"
    _mining_run(path, [], ["steady"])
    for night in range(1, 120):  # a family that changes every night, one that never does
        _mining_run(path, ["steady"], [f"changing-{night}"])
        with Archive(path) as archive:
            archive.retain_confirmations()
    kept = _verdicts(path)
    assert "steady" in kept  # used last night (and every night): never dropped
    assert "changing-119" in kept  # stored last night
    assert len(kept) <= 1 + 5  # was 120: every dead verdict of every night
    assert "changing-100" not in kept


def test_the_cap_never_drops_a_verdict_the_last_night_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_retention, "CONFIRM_CAP", 3)
    path = tmp_path / "mine-archive.sqlite3"
    for night in range(40):  # ten families a night, all of them new
        _mining_run(path, [], [f"n{night}-f{i}" for i in range(10)])
        with Archive(path) as archive:
            archive.retain_confirmations()
    kept = _verdicts(path)
    assert {f"n39-f{i}" for i in range(10)} <= kept  # the last night's ten, over the cap
    assert len(kept) == 10 + 3  # and the three most recently used before it


def test_verdicts_of_an_older_archive_are_kept_until_they_go_unused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_retention, "CONFIRM_KEEP_RUNS", 2)
    path = tmp_path / "mine-archive.sqlite3"
    with Archive(path) as archive:  # as an older version stored them: no stamp
        archive._db.executemany(
            "INSERT INTO confirmations VALUES (?, '[[0, 1]]')", [("old-a",), ("old-b",)]
        )
        archive._db.commit()
        archive.retain_confirmations()
    assert _verdicts(path) == {"old-a", "old-b"}  # their clock starts now, not at zero
    for _ in range(3):
        _mining_run(path, ["old-a"], [])
        with Archive(path) as archive:
            archive.retain_confirmations()
    assert _verdicts(path) == {"old-a"}


class _CutShort:
    """A connection whose statement ``at`` fails after it ran, as a kill there would."""

    def __init__(self, db: sqlite3.Connection, at: str) -> None:
        self._db, self._at = db, at

    def execute(self, sql: str, params: Any = ()) -> Any:
        cursor = self._db.execute(sql, params)
        if sql.startswith(self._at):
            raise KeyboardInterrupt
        return cursor

    def __enter__(self) -> Any:
        return self._db.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._db.__exit__(*exc)


def test_a_verdict_trim_cut_short_leaves_every_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_retention, "CONFIRM_KEEP_RUNS", 1)
    path = tmp_path / "mine-archive.sqlite3"
    for night in range(5):
        _mining_run(path, [], [f"f{night}"])
    with Archive(path) as archive, pytest.raises(KeyboardInterrupt):
        _retention.retain_confirmations(
            _CutShort(archive._db, "DELETE FROM confirmations WHERE")  # type: ignore[arg-type]
        )
    assert _verdicts(path) == {f"f{n}" for n in range(5)}
    with Archive(path) as archive:
        assert archive.confirmation("f0") == [[0, 1]]
        assert archive.retain_confirmations() == 4  # the next night trims
    assert _verdicts(path) == {"f4"}


# -- the harvest index's night rows ---------------------------------------------------------------


def test_the_index_keeps_its_newest_nights_per_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_index_retention, "NIGHT_ROWS", 7)
    with HarvestIndex(tmp_path / "harvest-index.sqlite3") as index:
        index.bind("/other")
        index.commit(night=_night(0))
        index.bind("/work")
        for n in range(120):
            index.commit(night=_night(n))
        assert index.finished_nights() == {_night(n) for n in range(113, 120)}
        index.bind("/other")
        assert index.finished_nights() == {_night(0)}  # another project's rows are its own


def test_an_index_trim_cut_short_loses_no_night(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.harvest import _index

    where = tmp_path / "harvest-index.sqlite3"
    with HarvestIndex(where) as index:
        index.bind("/work")
        for n in range(10):
            index.commit(night=_night(n))

    def killed(db: sqlite3.Connection, prefix: str) -> int:
        _index_retention.trim_nights(db, prefix, keep=1)
        raise KeyboardInterrupt  # the process dies here: its transaction is never committed

    monkeypatch.setattr(_index, "trim_nights", killed)
    index = HarvestIndex(where)
    index.bind("/work")
    with pytest.raises(KeyboardInterrupt):
        index.commit(night=_night(10))
    index.close()
    monkeypatch.undo()
    with HarvestIndex(where) as index:
        index.bind("/work")
        assert index.finished_nights() == {_night(n) for n in range(10)}
        index.commit(night=_night(10))  # and the next night commits as usual
        assert _night(10) in index.finished_nights()


def test_the_index_is_vacuumed_only_when_most_of_it_is_free(tmp_path: Path) -> None:
    where = tmp_path / "harvest-index.sqlite3"
    with HarvestIndex(where) as index:
        index.bind("/work")
        db = index._db
        db.execute("INSERT INTO meta VALUES ('filler', ?)", ("x" * (4 << 20),))
        index.commit(night=_night(0))
        full = where.stat().st_size
        assert full > 4 << 20  # mostly used: not rewritten
        db.execute("DELETE FROM meta WHERE key = 'filler'")  # as a purge of deleted files
        index.commit()  # a `harvest --commit`: not a night, no vacuum
        assert where.stat().st_size == full
        index.commit(night=_night(1))
        assert where.stat().st_size < full // 4
        assert index.finished_nights() == {_night(0), _night(1)}
        small = where.stat().st_size
        index.commit(night=_night(2))  # nothing free: nothing rewritten
        assert where.stat().st_size == small


# -- history.jsonl -------------------------------------------------------------------------------


def _history(state: ProjectState, nights: int) -> list[dict[str, Any]]:
    lines = [
        {"night_id": _night(n), "started_at": (START + timedelta(days=n)).isoformat()}
        for n in range(nights)
    ]
    state.root.mkdir(parents=True, exist_ok=True)
    state.history_path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return lines


def test_the_history_keeps_the_last_nights_and_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finish, "HISTORY_KEEP", 40)
    monkeypatch.setattr(finish, "HISTORY_SLACK", 10)
    state = ProjectState(tmp_path / "work", tmp_path / "state")
    lines = _history(state, 50)
    assert finish.trim_history(state) == 0  # within the slack: the file is not rewritten
    lines = _history(state, 120)
    now = START + timedelta(days=121)
    began = gather.nights_began(state, now)
    assert finish.trim_history(state) == 120 - 41
    kept = read_lines(state.history_path)
    assert kept == [lines[0], *lines[-40:]]  # the last nights, for status and the chart
    assert gather.nights_began(state, now) == began == START  # the harvest window is the same
    assert finish.trim_history(state) == 0
    assert oct(state.history_path.stat().st_mode & 0o777) == "0o600"


def test_a_history_line_that_cannot_be_read_is_never_trimmed_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finish, "HISTORY_KEEP", 5)
    monkeypatch.setattr(finish, "HISTORY_SLACK", 0)
    state = ProjectState(tmp_path / "work", tmp_path / "state")
    _history(state, 20)
    with state.history_path.open("ab") as handle:
        handle.write(b"{damaged\n" + json.dumps({"night_id": _night(20)}).encode() + b"\n")
    before = state.history_path.read_bytes()
    assert finish.trim_history(state) == 0
    assert state.history_path.read_bytes() == before
    with pytest.raises(StorageError, match="damaged at line 21"):  # as the readers said before
        read_lines(state.history_path)


def test_a_history_trim_cut_short_leaves_the_whole_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finish, "HISTORY_KEEP", 5)
    monkeypatch.setattr(finish, "HISTORY_SLACK", 0)
    state = ProjectState(tmp_path / "work", tmp_path / "state")
    _history(state, 30)
    before = state.history_path.read_bytes()

    def killed(source: Any, target: Any) -> None:
        raise KeyboardInterrupt  # the new file is written and synced, not yet renamed

    with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
        patched.setattr(os, "replace", killed)
        finish.trim_history(state)
    assert state.history_path.read_bytes() == before
    leftovers = [p.name for p in state.root.iterdir() if p.name != "history.jsonl"]
    for name in leftovers:  # a temp file a kill left is removed by the next night's recovery
        assert name.startswith(".history.jsonl."), name
    state.remove_temp_files()
    assert sorted(p.name for p in state.root.iterdir()) == ["history.jsonl"]
    assert finish.trim_history(state) == 30 - 6
