"""A new user's first night over a long history: the sessions stream into the miner (never all
held at once), every long stage shows progress, and the night replays no more than its bounds."""

from __future__ import annotations

import weakref

import pytest

from skillopt_sleep.engine import load_config, run_night
from skillopt_sleep.records import Session
from tests.engine._history import write_history
from tests.engine._world import World

SESSIONS = 60


def _config(world: World, **extra: object):
    return load_config(world.webapp, world.overrides(**extra))


def test_a_first_night_never_holds_every_session(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillopt_sleep.mine.candidates as candidates

    write_history(world.home / ".claude", world.webapp, SESSIONS)
    seen: list[weakref.ref[Session]] = []
    alive: list[int] = []
    original = candidates.candidates_from_session

    def counting(session: Session) -> list[candidates.Candidate]:
        seen.append(weakref.ref(session))
        alive.append(sum(ref() is not None for ref in seen))
        return original(session)

    monkeypatch.setattr(candidates, "candidates_from_session", counting)
    first = run_night(world.webapp, _config(world), home=world.home)
    assert first.sessions >= SESSIONS and len(seen) == first.sessions
    assert max(alive) <= 8  # a few in flight, not the history (they were all held: 60+)
    later = run_night(world.webapp, _config(world), home=world.home)
    assert later.sessions == 0 and later.usage.calls == 0  # the streamed harvest was committed


def test_every_long_stage_of_a_first_night_shows_progress(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = write_history(world.home / ".claude", world.webapp, SESSIONS)
    # only firsts and lasts pass (raising=False: the test runs against code without thinning too)
    monkeypatch.setattr("skillopt_sleep.engine.night.TICK_S", 1e9, raising=False)
    ticks: list[tuple[str, int, int]] = []
    run_night(
        world.webapp,
        _config(world),
        dry_run=True,
        home=world.home,
        progress=lambda stage, done, total: ticks.append((stage, done, total)),
    )
    harvest = [t for t in ticks if t[0] == "harvest"]
    read = harvest[-1][1]
    assert read == harvest[-1][2] >= len(files)  # files read, not a bare 1/1
    stages = [t[0] for t in ticks]
    mining = stages[stages.index("mine") : len(stages) - stages[::-1].index("mine")]
    assert {"cluster", "families"} <= set(mining)  # inside mining's 0/1 .. 1/1, not after
    for stage in set(stages):  # thinned: between a stage's first and last tick, nothing
        own = [t for t in ticks if t[0] == stage][1:]
        assert all(done <= 0 or done >= total for _, done, total in own), (stage, own)


def test_a_first_night_replays_at_most_max_tasks_of_each_split(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillopt_sleep.engine.night as night

    write_history(world.home / ".claude", world.webapp, SESSIONS)
    replayed: list[tuple[int, int, int]] = []
    original = night.consolidate

    def spy(base_text: str, part: night.Selection, *args: object, **kwargs: object) -> object:
        replayed.append((len(part.train), len(part.val), len(part.test)))
        return original(base_text, part, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(night, "consolidate", spy)
    config = _config(world, **{"night.max_tasks": 5, "budget.max_calls": 0})
    report = run_night(world.webapp, config, dry_run=True, home=world.home)
    assert report.tasks >= SESSIONS  # one family, a task per wording of it
    assert replayed and all(max(sizes) <= 5 for sizes in replayed), replayed  # were 15 val, 9 test
    assert report.held_out is not None and 0 < report.held_out.n <= 5
