"""A test double of the night process: the real one, whose night waits at a chosen stage.

``python -m tests.mcp_nights._waiting_night STAGE JOB_DIR`` runs :func:`skillopt_sleep.mcp._night_child.main`
on ``JOB_DIR`` with the real ``run_night``, except that at the first progress tick of ``STAGE``
(recorded in the job file first, so a test sees where it is) the night waits until a SIGTERM
has come, then goes on. Whether it goes on at all is the night process's own decision: its
handler raises KeyboardInterrupt (a cancel) unless it defers the signal. Nothing here is timed:
the wait ends with the signal, however long that takes.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

from skillopt_sleep.mcp._night_child import main


def waiting_at(stage: str) -> Any:
    def night(project: Path, config: Any, *, dry_run: bool, progress: Any) -> Any:
        from skillopt_sleep.engine import run_night

        came = [False]
        handler = signal.getsignal(signal.SIGTERM)

        def noted(signum: int, frame: FrameType | None) -> None:
            came[0] = True
            if callable(handler):
                handler(signum, frame)  # the night process's own: it may raise here

        signal.signal(signal.SIGTERM, noted)

        def tick(name: str, done: int, total: int) -> None:
            progress(name, done, total)
            if name == stage and done == 0:
                while not came[0]:
                    time.sleep(0.01)

        return run_night(project, config, dry_run=dry_run, progress=tick)

    return night


if __name__ == "__main__":
    sys.exit(main(sys.argv[2:], runner=waiting_at(sys.argv[1])))
