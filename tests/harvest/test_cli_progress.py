"""The harvest progress bar draws from the run's own updates: no refresh thread, so the run can
still fork its reading workers when stderr is a terminal."""

from __future__ import annotations

import io
import threading
from pathlib import Path

from rich.console import Console

from harvest._fixtures import WEBAPP
from skillopt_sleep.cli import harvest as harvest_cli
from skillopt_sleep.harvest import HarvestRun, open_index


def test_progress_bar_runs_without_a_thread(homes: dict[str, Path]) -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    run = HarvestRun(WEBAPP, None, None, open_index(WEBAPP, ":memory:"), homes=homes)
    threads: list[int] = []
    before = threading.active_count()  # an earlier test may have left an idle thread behind
    with harvest_cli._progress(console, run):
        threads.extend(threading.active_count() for _ in run)
    assert threads
    assert set(threads) == {before}
    assert "harvest claude" in screen.getvalue()
