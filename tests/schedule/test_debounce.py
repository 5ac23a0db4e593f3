"""The refresh debounce as pure functions of (monotonic) times: no waiting."""

from __future__ import annotations

from skillopt_sleep.schedule.debounce import (
    Debouncer,
    Pending,
    Policy,
    note_change,
    refresh_due,
    refreshed,
)

POLICY = Policy(quiet=30, max_wait=600, min_interval=300)


def test_nothing_changed_nothing_due() -> None:
    assert not refresh_due(Pending(), 10_000, POLICY)


def test_due_after_a_quiet_spell_following_the_last_change() -> None:
    state = note_change(note_change(Pending(), 100), 120)
    assert state.first == 100 and state.last == 120
    assert not refresh_due(state, 149, POLICY)
    assert refresh_due(state, 150, POLICY)


def test_unbroken_activity_is_refreshed_after_max_wait() -> None:
    state = Pending()
    for t in range(0, 600, 10):  # a write every 10 s, never quiet for 30 s
        state = note_change(state, t)
        assert not refresh_due(state, t, POLICY)
    state = note_change(state, 600)
    assert refresh_due(state, 600, POLICY)


def test_refreshes_are_at_least_min_interval_apart() -> None:
    state = refreshed(note_change(Pending(), 0), 30)
    assert state == Pending(None, None, 30)
    state = note_change(state, 40)
    assert not refresh_due(state, 100, POLICY)  # quiet, but only 70 s since the last refresh
    assert refresh_due(state, 330, POLICY)


def test_debouncer_uses_its_clock_and_clears_on_take() -> None:
    now = [0.0]
    debouncer = Debouncer(POLICY, lambda: now[0])
    assert not debouncer.take()
    debouncer.note()
    now[0] = 29.0
    assert not debouncer.take()
    now[0] = 30.0
    assert debouncer.take()
    assert not debouncer.take()  # cleared
    assert debouncer.state == Pending(None, None, 30.0)
