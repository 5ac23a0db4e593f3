"""A night killed or stopped mid-way leaves ``nights/<id>/`` with its working files and no
``report.json``. Before, those folders stayed until pruning, and pruning kept the newest 30
folders of any kind, so a few killed nights pushed finished nights' folders out. Now a night
holding the lock removes them first, and pruning counts finished nights only.
"""

from __future__ import annotations

import json
import os
import signal
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.errors import BusyError
from skillopt_sleep.engine import ProjectState, load_config, run_night
from skillopt_sleep.engine.night import KEEP_NIGHTS
from tests.engine._world import World


def _night(world: World, project: Path, **options: Any) -> Any:
    config = load_config(project, world.overrides())
    return run_night(project, config, home=world.home, **options)


def _after_replay(stage: str, done: int, total: int) -> bool:
    """The replays are done: the night's folder holds their working files, not yet its report."""
    return stage == "replay" and 0 < total == done


def _killed_night(world: World) -> None:
    """SIGKILL a night (in a forked child) right after its replays."""

    def kill(stage: str, done: int, total: int) -> None:
        if _after_replay(stage, done, total):
            os.kill(os.getpid(), signal.SIGKILL)

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            _night(world, world.webapp, progress=kill)
        finally:
            os._exit(0)
    _, code = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(code) and os.WTERMSIG(code) == signal.SIGKILL, code


def _stopped_night(world: World) -> None:
    """Ctrl-C a night right after its replays."""

    def stop(stage: str, done: int, total: int) -> None:
        if _after_replay(stage, done, total):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _night(world, world.webapp, progress=stop)


def _folders(state: ProjectState) -> dict[str, bool]:
    """Each night folder's name and whether it holds a report."""
    nights = state.root / "nights"
    return {p.name: (p / "report.json").is_file() for p in sorted(nights.iterdir())}


@pytest.mark.parametrize("end", ["killed", "stopped"])
def test_the_next_night_removes_an_unfinished_nights_folder(world: World, end: str) -> None:
    if end == "killed":
        if not hasattr(os, "fork"):
            pytest.skip("needs os.fork (POSIX)")
        _killed_night(world)
    else:
        _stopped_night(world)
    state = ProjectState(world.webapp)
    (left,) = _folders(state).items()
    assert left[1] is False and any(state.night_dir(left[0]).rglob("*")), left

    report = _night(world, world.webapp)
    assert report.outcome == "staged"  # its sessions were not used up
    assert _folders(state) == {report.night_id: True}


def _fake_night(state: ProjectState, night_id: str, *, finished: bool) -> None:
    folder = state.night_dir(night_id) / "target-00"
    folder.mkdir(parents=True)
    (folder / "rollouts.jsonl").write_text("{}\n")
    if finished:
        (state.night_dir(night_id) / "report.json").write_text(json.dumps({"night_id": night_id}))


def test_pruning_counts_finished_nights_only(tmp_path: Path) -> None:
    state = ProjectState(tmp_path / "p", root=tmp_path / "state")
    for night, finished in [("01", True), ("02", True), ("03", False), ("04", True), ("05", False)]:
        _fake_night(state, f"202611{night}-031700", finished=finished)
    assert [p.name for p in state.prune_nights(keep=2)] == ["20261101-031700"]
    assert list(_folders(state)) == [f"202611{n}-031700" for n in ("02", "03", "04", "05")]


def test_only_unfinished_folders_other_than_tonights_are_removed(tmp_path: Path) -> None:
    state = ProjectState(tmp_path / "p", root=tmp_path / "state")
    for night, finished in [("01", True), ("02", False), ("03", True), ("04", False)]:
        _fake_night(state, f"202611{night}-031700", finished=finished)
    removed = state.remove_unfinished_nights("20261104-031700")
    assert [p.name for p in removed] == ["20261102-031700"]
    assert _folders(state) == {
        "20261101-031700": True,
        "20261103-031700": True,
        "20261104-031700": False,
    }


def test_leftovers_never_push_finished_nights_out(world: World) -> None:
    quiet = world.root / "quiet"  # no sessions: a quick "nothing new" night that still prunes
    quiet.mkdir()
    state = ProjectState(quiet).ensure()
    first = datetime(2026, 10, 1, 3, 17, tzinfo=timezone.utc)
    finished = [(first + timedelta(days=n)).strftime("%Y%m%d-%H%M%S") for n in range(KEEP_NIGHTS)]
    for number, night in enumerate(finished):
        _fake_night(state, night, finished=True)
        if number % 6 == 5:  # a killed night after every few finished ones
            _fake_night(state, night[:-1] + "9", finished=False)

    report = _night(world, quiet, now=first + timedelta(days=60))
    assert report.outcome == "nothing new"
    assert list(_folders(state)) == [*finished[1:], report.night_id]


def test_a_dry_run_removes_no_folder_and_the_next_night_removes_its_own(world: World) -> None:
    state = ProjectState(world.webapp)
    _stopped_night(world)
    (stopped,) = _folders(state)
    dry = _night(world, world.webapp, dry_run=True)
    assert _folders(state) == {stopped: False, dry.night_id: False}

    report = _night(world, world.webapp)
    assert _folders(state) == {report.night_id: True}


def test_a_night_turned_away_by_the_lock_removes_nothing(world: World) -> None:
    """The folder without a report may be the running night's own: only the lock's holder
    tidies up."""
    state = ProjectState(world.webapp)
    with state.night_lock("a running night"):
        _fake_night(state, "20261127-031700", finished=False)
        with pytest.raises(BusyError):
            _night(world, world.webapp)
    assert _folders(state) == {"20261127-031700": False}


def test_a_first_night_outside_its_window_says_how_to_widen_it(world: World) -> None:
    """It said "no new sessions since the last night" on a first night, when there was no last
    night and the sessions were only older than night.since."""
    config = load_config(world.webapp, world.overrides(**{"night.since": "1h"}))
    first = run_night(world.webapp, config, home=world.home)
    assert first.outcome == "nothing new" and "since the last night" not in first.message
    assert "in the last 1h" in first.message and "SKILLOPT_SLEEP_NIGHT_SINCE=" in first.message
    again = run_night(world.webapp, config, home=world.home, dry_run=True)
    assert (again.outcome, again.message) == ("nothing new", "no new sessions since the last night")


def test_later_nights_read_no_further_back_than_the_first_unless_the_window_widens(
    world: World,
) -> None:
    """The first night's window (night.since) held only for the first night: the second read
    the whole history it had left unread, months of sessions at once."""
    old = (datetime.now(timezone.utc) - timedelta(days=60)).timestamp()
    for path in world.home.rglob("*"):
        if path.is_file():
            os.utime(path, (old, old))
    month = load_config(world.webapp, world.overrides(**{"night.since": "30d"}))
    for _ in range(2):
        quiet = run_night(world.webapp, month, home=world.home)
        assert (quiet.outcome, quiet.sessions) == ("nothing new", 0)
    wider = load_config(world.webapp, world.overrides(**{"night.since": "120d"}))
    report = run_night(world.webapp, wider, home=world.home, dry_run=True)
    assert report.sessions > 0  # widening the window reaches the older sessions after all
