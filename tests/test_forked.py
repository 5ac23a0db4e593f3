"""The forked ordered map: input order, early stop, worker failures, and no leftover children."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from skillopt_sleep import _forked

pytestmark = pytest.mark.skipif(not _forked.available(), reason="fork is not usable here")


def _square(n: int) -> int:
    return n * n


def _fail_on_seven(n: int) -> int:
    if n == 7:
        raise ValueError("seven")
    return n


def _children() -> set[str]:
    """This process's child pids (Linux ``/proc``; elsewhere an empty set, checking nothing)."""
    found: set[str] = set()
    tasks = "/proc/self/task"
    for task in os.listdir(tasks) if os.path.isdir(tasks) else ():
        with open(f"{tasks}/{task}/children") as handle:
            found.update(handle.read().split())
    return found


@pytest.fixture(autouse=True)
def _no_children_left() -> Iterator[None]:
    before = _children()
    yield
    assert _children() <= before


@pytest.mark.parametrize(("workers", "batch"), [(1, 1), (2, 3), (3, 1), (8, 50)])
def test_results_come_back_in_input_order(workers: int, batch: int) -> None:
    items = list(range(101))
    assert list(_forked.ordered_map(_square, items, workers, batch)) == [n * n for n in items]


def test_no_items_forks_nothing() -> None:
    assert list(_forked.ordered_map(_square, [], 2, 4)) == []


def test_stopping_early_ends_the_workers() -> None:
    results = _forked.ordered_map(_square, list(range(10_000)), 2, 1)
    assert next(results) == 0
    results.close()


def test_a_worker_failure_is_raised_with_its_traceback() -> None:
    with pytest.raises(_forked.WorkerError, match="ValueError: seven"):
        list(_forked.ordered_map(_fail_on_seven, list(range(20)), 2, 2))


def _killed_on_seven(n: int) -> int:
    if n == 7:
        os.kill(os.getpid(), 9)  # what the OOM killer does
    return n


def test_a_killed_worker_is_a_clear_error_with_a_way_out() -> None:
    from skillopt_core.errors import SkillOptError

    with pytest.raises(_forked.WorkerError, match="exited") as raised:
        list(_forked.ordered_map(_killed_on_seven, list(range(20)), 2, 2))
    assert isinstance(raised.value, SkillOptError)
    assert "run it again" in str(raised.value)


def _pid(_: int) -> int:
    return os.getpid()


def test_in_order_forks_only_when_there_is_more_than_one_batch(monkeypatch) -> None:
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 2)
    monkeypatch.setattr(_forked, "available", lambda: True)  # an earlier test's idle thread
    assert set(_forked.in_order(_pid, range(4), batch=4)) == {os.getpid()}
    spread = list(_forked.in_order(_pid, range(40), batch=4))
    assert len(spread) == 40 and os.getpid() not in spread and len(set(spread)) == 2


def test_in_order_works_in_process_where_fork_is_not_safe(monkeypatch) -> None:
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 2)
    monkeypatch.setattr(_forked, "available", lambda: False)
    assert list(_forked.in_order(_square, range(40), batch=4)) == [n * n for n in range(40)]
    assert set(_forked.in_order(_pid, range(40), batch=4)) == {os.getpid()}
    monkeypatch.setattr(_forked, "available", lambda: True)
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 1)
    assert set(_forked.in_order(_pid, range(40), batch=4)) == {os.getpid()}


def _default_sigterm(n: int) -> bool:
    import signal

    return signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_workers_do_not_run_the_parents_sigterm_handler() -> None:
    """A night turns SIGTERM into an interrupt that unwinds it; a worker given the same signal
    (a stop sent to the process group) just ends, instead of unwinding a copy of the night."""
    import signal

    from skillopt_core.interrupts import sigterm_interrupts

    with sigterm_interrupts():
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        assert all(list(_forked.ordered_map(_default_sigterm, list(range(8)), 2, 1)))
