"""The forked ordered map: input order, early stop, worker failures, and no leftover children."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import pytest

from skillopt_sleep import _forked

pytestmark = pytest.mark.skipif(not _forked.available(), reason="fork is not usable here")


def _square(n: int) -> int:
    return n * n


PARENT = os.getpid()


def _fail_on_seven(n: int) -> int:
    """Fails in a worker; this process may work item 7 too (see ``ordered_map``), so it fails
    wherever it meets an item from 7 on."""
    if n >= 7 and os.getpid() != PARENT:
        raise ValueError("seven")
    if n >= 7:
        time.sleep(0.05)  # here: leave the worker time to meet one first
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
    if n >= 7 and os.getpid() != PARENT:
        os.kill(os.getpid(), 9)  # what the OOM killer does
    if n >= 7:
        time.sleep(0.05)
    return n


def _raise_here(n: int) -> int:
    if os.getpid() == PARENT:
        raise ValueError("in this process")
    time.sleep(0.05)
    return n


def test_a_failure_in_this_processs_own_batch_is_raised_as_it_is() -> None:
    with pytest.raises(ValueError, match="in this process"):
        list(_forked.ordered_map(_raise_here, list(range(20)), 2, 2))


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
    spread = list(_forked.in_order(_slow_away_from(os.getpid()), range(40), batch=4))
    assert len(spread) == 40 and len(set(spread)) == 2 and os.getpid() in spread


def _slow_away_from(parent: int) -> Callable[[int], int]:
    def work(n: int) -> int:
        if os.getpid() != parent:
            time.sleep(0.02)
        return os.getpid()

    return work


def test_this_process_works_while_the_next_result_is_not_ready() -> None:
    """The parent is never idle waiting for a worker: it works the next free batches itself
    (never more than OWN_AHEAD ahead), and results still come in order."""
    work = _slow_away_from(os.getpid())
    spread = list(_forked.ordered_map(work, list(range(60)), 3, 2))
    assert len(spread) == 60 and len(set(spread)) == 3
    assert spread.count(os.getpid()) >= 2 * _forked.OWN_AHEAD
    assert list(_forked.ordered_map(_square, list(range(60)), 3, 2)) == [n * n for n in range(60)]


def test_a_worker_is_given_batches_in_order_a_few_ahead() -> None:
    """Each worker's batches are consecutive runs in input order: what it sends back is read in
    the order it was given, so every stream stays in step with the output."""
    found = list(_forked.ordered_map(_pid_and_item, list(range(200)), 2, 1))
    assert [n for _, n in found] == list(range(200))
    for pid in {pid for pid, _ in found}:
        assert [n for p, n in found if p == pid] == sorted(n for p, n in found if p == pid)


def _pid_and_item(n: int) -> tuple[int, int]:
    return os.getpid(), n


def test_in_order_works_in_process_where_fork_is_not_safe(monkeypatch) -> None:
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 2)
    monkeypatch.setattr(_forked, "available", lambda: False)
    assert list(_forked.in_order(_square, range(40), batch=4)) == [n * n for n in range(40)]
    assert set(_forked.in_order(_pid, range(40), batch=4)) == {os.getpid()}
    monkeypatch.setattr(_forked, "available", lambda: True)
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 1)
    assert set(_forked.in_order(_pid, range(40), batch=4)) == {os.getpid()}


def _default_sigterm(n: int) -> tuple[int, bool]:
    import signal

    return os.getpid(), signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_workers_do_not_run_the_parents_sigterm_handler() -> None:
    """A night turns SIGTERM into an interrupt that unwinds it; a worker given the same signal
    (a stop sent to the process group) just ends, instead of unwinding a copy of the night."""
    import signal

    from skillopt_core.interrupts import sigterm_interrupts

    with sigterm_interrupts():
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        found = list(_forked.ordered_map(_default_sigterm, list(range(8)), 2, 1))
        forked = [default for pid, default in found if pid != os.getpid()]
        assert len(forked) == 4 and all(forked)


def _dies_after_its_first_batch(n: int) -> int:
    if os.getpid() != PARENT and n == 1:
        os._exit(9)  # killed right after sending batch 0, before the parent gives it more
    if os.getpid() != PARENT and n == 0:
        time.sleep(0.05)
    return n


def test_a_worker_that_dies_between_batches_is_a_worker_error() -> None:
    """A worker gone between two batches (given more before or after it died: a write to its
    closed pipe is EPIPE, which is ignored) ends the run with the WorkerError that says what
    happened."""
    for _ in range(5):
        with pytest.raises(_forked.WorkerError, match="exited"):
            list(_forked.ordered_map(_dies_after_its_first_batch, list(range(40)), 2, 1))


_KILLED_PARENT = """
import os, sys, time
from skillopt_sleep import _forked

def slow(n):
    if os.getpid() != PARENT:
        print(os.getpid(), flush=True)  # a worker says who it is, then works a long batch
    time.sleep(60)
    return n

PARENT = os.getpid()
list(_forked.ordered_map(slow, list(range(8)), workers=2, batch=1))
"""


def _gone(pid: int) -> bool:
    """Ended (a zombie no one reaped counts: it runs nothing and holds no file)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="the death signal is Linux's")
def test_a_worker_dies_with_its_killed_parent() -> None:
    """A SIGKILLed night's worker ran on to the end of its batch, holding the night's inherited
    locks (the project's: a rerun exited 5 naming the dead night). Failed before: it ran 60 s."""
    import signal
    import subprocess
    import sys

    parent = subprocess.Popen(
        [sys.executable, "-c", _KILLED_PARENT], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not _gone(worker):
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the worker outlived its SIGKILLed parent")
