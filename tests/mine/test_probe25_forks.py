"""A forked session repeats its parent's turns: those copies are not more occasions or attempts.

``claude --fork-session`` copies the earlier records with their times; a Codex fork copies them
with the fork's time. Either way the request was typed once.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from skillopt_sleep.mine import Archive, MineConfig, mine
from skillopt_sleep.records import Session, Turn

T0 = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
MIGRATE = "migrate the billing cron job to the new scheduler service"
RUNBOOK = "write the runbook entry for the disk alert on the build machines"


def _session(
    harness: str, sid: str, turns: list[tuple[str, datetime]], forked_from: str = ""
) -> Session:
    made: list[Turn] = []
    for text, stamp in turns:
        made.append(Turn("user", text, stamp))
        made.append(Turn("assistant", f"Done: {text[:20]}", stamp + timedelta(seconds=30)))
    return Session(
        harness,  # type: ignore[arg-type]
        sid,
        "/home/dev/webapp",
        "/home/dev/webapp",
        turns[0][1],
        turns[-1][1] + timedelta(minutes=1),
        tuple(made),
        forked_from=forked_from,
    )


def _mine(sessions: list[Session]):  # type: ignore[no-untyped-def]
    with Archive(":memory:") as archive:
        return mine(sessions, archive, MineConfig(embedder="jaccard", night="2026-11-20"))


def test_a_codex_fork_weeks_later_does_not_make_a_one_off_recur() -> None:
    """Codex writes the copied turns with the fork's time: two weeks after the request."""
    later = T0 + timedelta(days=14)
    parent = _session("codex", "p1", [(MIGRATE, T0)])
    fork = _session(
        "codex", "f1", [(MIGRATE, later), (RUNBOOK, later + timedelta(minutes=5))], "p1"
    )
    result = _mine([parent, fork])
    assert result.families == ()
    assert result.tasks == ()


def test_a_fork_of_a_fork_copies_count_once() -> None:
    later = T0 + timedelta(days=3)
    parent = _session("codex", "p1", [(MIGRATE, T0)])
    fork = _session("codex", "f1", [(MIGRATE, later)], "p1")
    again = _session("codex", "f2", [(MIGRATE, later + timedelta(days=3))], "f1")
    assert _mine([parent, fork, again]).families == ()


def test_a_claude_fork_copies_are_not_more_attempts() -> None:
    """Claude keeps the copied turns' times: one occasion already, but the family's size, its
    outcomes and its evidence counted the copy as a second attempt."""
    parent = _session("claude", "p1", [(MIGRATE, T0)])
    fork = _session("claude", "f1", [(MIGRATE, T0), (RUNBOOK, T0 + timedelta(days=1))], "p1")
    again = _session("claude", "a1", [(MIGRATE, T0 + timedelta(days=7))])
    result = _mine([parent, fork, again])
    (family,) = result.families
    assert family.size == 2
    assert sum(family.outcomes.values()) == 2
    assert all(len(task.evidence) == 2 for task in result.tasks)


def test_the_same_turn_recorded_in_two_files_is_one_attempt() -> None:
    """An older Claude Code resumed into a new file with the same records (same times), and no
    fork marker: the same typed turn, not a second attempt."""
    first = _session("claude", "s1", [(MIGRATE, T0)])
    resumed = _session("claude", "s2", [(MIGRATE, T0), (RUNBOOK, T0 + timedelta(hours=2))])
    again = _session("claude", "s3", [(MIGRATE, T0 + timedelta(days=7))])
    (family,) = _mine([first, resumed, again]).families
    assert family.size == 2


def test_a_genuine_second_asking_in_a_new_session_still_recurs() -> None:
    """Not a fork: the same request typed again a week later is a second occasion."""
    first = _session("codex", "s1", [(MIGRATE, T0)])
    second = _session("codex", "s2", [(MIGRATE, T0 + timedelta(days=7))])
    (family,) = _mine([first, second]).families
    assert family.size == 2


def test_a_fork_whose_parent_was_never_harvested_keeps_its_turns() -> None:
    """The parent deleted before any harvest: the fork's copy is the only record of the request."""
    fork = _session("codex", "f1", [(MIGRATE, T0 + timedelta(days=14))], "gone")
    again = _session("codex", "s2", [(MIGRATE, T0 + timedelta(days=21))])
    (family,) = _mine([fork, again]).families
    assert family.size == 2


FIX = "no, that's wrong: use the v2 scheduler API instead of the cron shim"


def _evidence_of(result):  # type: ignore[no-untyped-def]
    (family,) = result.families
    signals = {s.excerpt for task in result.tasks for e in task.evidence for s in e.signals}
    return family, signals


@pytest.mark.parametrize("harness", ["codex", "claude"])
def test_a_correction_made_in_a_fork_is_evidence_about_the_request(harness: str) -> None:
    """A fork is how a user tries again after a bad answer: the copy is no attempt of its own,
    but the correction typed after it marks the original attempt failed (it was dropped with
    the copy before)."""
    later = T0 if harness == "claude" else T0 + timedelta(days=1)  # Claude keeps the times
    parent = _session(harness, "p1", [(MIGRATE, T0)])
    fork = _session(harness, "f1", [(MIGRATE, later), (FIX, later + timedelta(hours=2))], "p1")
    again = _session(harness, "s2", [(MIGRATE, T0 + timedelta(days=7))])
    family, signals = _evidence_of(_mine([parent, fork, again]))
    assert family.size == 2
    assert dict(family.outcomes) == {"failed": 1, "unknown": 1}
    assert signals == {FIX}


def test_a_fork_of_a_fork_adds_its_evidence_to_the_first_attempt() -> None:
    later = T0 + timedelta(days=1)
    parent = _session("codex", "p1", [(MIGRATE, T0)])
    fork = _session("codex", "f1", [(MIGRATE, later)], "p1")
    again = _session("codex", "f2", [(MIGRATE, later), (FIX, later + timedelta(hours=1))], "f1")
    other = _session("codex", "s2", [(MIGRATE, T0 + timedelta(days=7))])
    family, signals = _evidence_of(_mine([parent, fork, again, other]))
    assert family.size == 2
    assert dict(family.outcomes) == {"failed": 1, "unknown": 1}
    assert signals == {FIX}


def test_the_same_turn_recorded_twice_keeps_what_followed_it_in_either_file() -> None:
    first = _session("claude", "s1", [(MIGRATE, T0)])
    resumed = _session("claude", "s2", [(MIGRATE, T0), (FIX, T0 + timedelta(hours=2))])
    again = _session("claude", "s3", [(MIGRATE, T0 + timedelta(days=7))])
    family, signals = _evidence_of(_mine([first, resumed, again]))
    assert family.size == 2
    assert dict(family.outcomes) == {"failed": 1, "unknown": 1}
    assert signals == {FIX}


def test_a_copy_that_adds_nothing_leaves_the_attempt_as_it_was() -> None:
    from skillopt_sleep.mine.candidates import extract_candidates
    from skillopt_sleep.mine.occasions import with_evidence

    (original,) = extract_candidates([_session("codex", "p1", [(MIGRATE, T0), (FIX, T0)])])
    (copy,) = extract_candidates([_session("codex", "f1", [(MIGRATE, T0), (FIX, T0)], "p1")])
    assert with_evidence(original, copy) is original
