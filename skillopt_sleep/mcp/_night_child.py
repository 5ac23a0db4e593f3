"""The process one MCP night runs in: ``python -m skillopt_sleep.mcp._night_child JOB_DIR``.

:class:`~skillopt_sleep.mcp.jobs.Jobs` starts it in a session of its own (stdin from /dev/null,
output to the job's log) with the job's lock already held on an inherited descriptor, so it
outlives the server and the client session, and the lock is free exactly when it has ended.
It reads what to run from the job's ``request.json``, loads the project's config with the tool's
overrides, runs :func:`skillopt_sleep.engine.run_night` and records every progress tick and the
outcome in ``job.json`` (:mod:`skillopt_sleep.mcp.jobfile`).

SIGTERM (``cancel_night``) becomes KeyboardInterrupt in the main thread, where the night runs:
the engine unwinds (the project lock is released, the harvest index rolled back, live files are
never touched) and the job ends failed, "cancelled". Two moments defer it: while a job file is
being written (a tick's write is never cut short; the cancel follows it), and once the night
has begun staging its proposal (that takes seconds; stopping half-way would leave a proposal
staged by a night that never finished, so the night finishes instead).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.mcp.jobfile import (
    REQUEST_FILE,
    JobRecorder,
    NightRunner,
    Progress,
    read_view,
    record,
)


class Cancel:
    """SIGTERM -> KeyboardInterrupt in the main thread, unless a write or staging defers it."""

    def __init__(self) -> None:
        self.requested = False
        self._raised = False
        self._holds = 0
        self._settled = False  # staging began or the night ended: let it finish

    def install(self) -> Cancel:
        signal.signal(signal.SIGTERM, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        self.raise_if_due()

    def raise_if_due(self) -> None:
        """Raise a cancel that was deferred, now that nothing defers it any more."""
        if self.requested and not (self._raised or self._holds or self._settled):
            self._raised = True
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """No cancel inside (a job file is being written); one that came stays pending."""
        self._holds += 1
        try:
            yield
        finally:
            self._holds -= 1

    def settle(self) -> None:
        """From now on the night runs to its end, whatever signal comes."""
        self._settled = True

    def ticks(self, progress: Progress) -> Progress:
        """``progress`` for the engine: staging settles the night; a cancel deferred while the
        tick was written is raised once it is."""

        def tick(stage: str, done: int, total: int) -> None:
            if stage == "stage":
                self.settle()
            progress(stage, done, total)
            self.raise_if_due()

        return tick


def main(argv: Sequence[str] | None = None, runner: NightRunner | None = None) -> int:
    """Run the job in ``argv[0]`` (a job folder); ``runner`` replaces ``run_night`` (tests)."""
    cancel = Cancel().install()  # first: a cancel during the engine's imports counts too
    directory = Path((sys.argv[1:] if argv is None else argv)[0])
    with cancel.held():
        request: dict[str, Any] = _read_request(directory)
        recorder = JobRecorder(directory, replace(read_view(directory), pid=os.getpid()))

    def night(progress: Progress) -> NightReport:
        try:
            cancel.raise_if_due()
            from skillopt_sleep.engine import load_config

            project = Path(request["project"])
            config = load_config(project, chosen_by_model=dict(request.get("overrides") or {}))
            if runner is None:
                from skillopt_sleep.engine import run_night

                chosen: NightRunner = run_night
            else:
                chosen = runner
            return chosen(
                project,
                config,
                dry_run=bool(request["dry_run"]),
                progress=cancel.ticks(progress),
            )
        finally:
            cancel.settle()  # the outcome is recorded whatever comes now

    return record(recorder, night, cancel.held)


def _read_request(directory: Path) -> dict[str, Any]:
    from skillopt_sleep.engine.state import read_json

    request: dict[str, Any] = read_json(directory / REQUEST_FILE)
    return request


if __name__ == "__main__":
    sys.exit(main())
