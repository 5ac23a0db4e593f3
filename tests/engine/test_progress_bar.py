"""The night's progress bar: drawn on a terminal's stderr, and without Rich's refresh thread
(mining forks its workers only from a single-threaded process)."""

from __future__ import annotations

import io
import threading

import pytest

from skillopt_sleep.cli._run import progress_bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_night_progress_bar_draws_without_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = _Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    before = threading.active_count()
    seen: list[int] = []
    with progress_bar(True) as progress:
        for done in range(4):
            progress("mine", done, 3)
            seen.append(threading.active_count())
    assert set(seen) == {before}
    assert "mine" in screen.getvalue()


def test_no_bar_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr("sys.stderr", screen)
    with progress_bar(True) as progress:
        progress("mine", 1, 3)
    assert screen.getvalue() == ""
