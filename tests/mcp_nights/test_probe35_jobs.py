"""A night's job as two servers and a cancel leave it.

Each failed before: a night cancelled while its process was still starting read as cancelled
but with ``finished_at: ""`` and ``pid: 0`` (the pid ``run`` had returned was lost, and the
design's 0 means "runs inside the server"); two servers calling ``run`` for one project at
once both returned a running job (each checked for a running night before either had
recorded its own), and one night failed a moment later with "another skillopt-sleep night is
using ...", although the README promises the second ``run`` is refused at once.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from skillopt_sleep.mcp import jobfile
from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.server import build_server

STARTING = (sys.executable, "-c", "import time; time.sleep(60)")
"""A night process that never gets as far as handling SIGTERM."""
HANG_GUARD_S = 60.0


@pytest.mark.skipif(sys.platform == "win32", reason="nights detach on POSIX only")
def test_a_night_cancelled_while_starting_records_when_it_ended_and_its_process(
    tmp_path: Path,
) -> None:
    jobs = Jobs(command=STARTING)
    where = {"project": str(tmp_path)}

    async def go() -> tuple[Any, Any]:
        async with Client(build_server(jobs=jobs)) as client:
            started = (await client.call_tool("run", where)).structured_content
            asked = datetime.now().astimezone()
            stopped = await client.call_tool("cancel_night", {"job_id": started["id"]})
            assert not stopped.is_error, stopped.content
            jobs.wait(started["id"], HANG_GUARD_S)
            ended = await client.call_tool("night_status", {"job_id": started["id"]})
            return started, (asked, ended.structured_content)

    started, (asked, ended) = anyio.run(go)
    assert ended["state"] == "failed" and ended["error"] == jobfile.CANCELLED
    assert ended["pid"] == started["pid"] > 0
    finished = datetime.fromisoformat(ended["finished_at"])
    assert finished.tzinfo is not None
    assert abs((finished - asked).total_seconds()) < HANG_GUARD_S


def test_two_servers_starting_a_night_for_one_project_at_once_run_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each server's start is held, past its check for a running night, until the other's has
    come as far (or, when starts take turns, until the wait gives up): before, both passed."""
    meet = threading.Barrier(2, timeout=2.0)
    prune = jobfile.prune

    def held(project: Path, *args: Any) -> None:
        # when starts take turns the other never comes as far: the wait gives up
        with contextlib.suppress(threading.BrokenBarrierError):
            meet.wait()
        prune(project, *args)

    monkeypatch.setattr(jobfile, "prune", held)
    release = threading.Event()

    def night(project: Path, config: Any, **_: Any) -> Any:
        release.wait(HANG_GUARD_S)
        raise RuntimeError("stopped by the test")

    servers = [Jobs(night), Jobs(night)]  # two servers, each with its nights
    replies: list[Any] = []

    async def one(jobs: Jobs) -> None:
        async with Client(build_server(jobs=jobs)) as client:
            replies.append(await client.call_tool("run", {"project": str(tmp_path)}))

    async def both() -> None:
        async with anyio.create_task_group() as group:
            for jobs in servers:
                group.start_soon(one, jobs)

    try:
        anyio.run(both)
    finally:
        release.set()
    started = [r for r in replies if not r.is_error]
    refused = [r for r in replies if r.is_error]
    assert len(started) == 1 and len(refused) == 1, [r.content for r in replies]
    text = refused[0].content[0].text
    assert "already running" in text and "exit code 5" in text
    assert started[0].structured_content["id"] in text
    assert len(jobfile.project_jobs(tmp_path)) == 1
    for jobs in servers:
        for directory in jobfile.project_jobs(tmp_path):
            jobs.wait(directory.name, HANG_GUARD_S)
