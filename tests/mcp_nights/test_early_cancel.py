"""``cancel_night`` right after ``run``, while the night's process is still starting (before it
can turn SIGTERM into an orderly stop, it dies of it): the job reads as cancelled, as asked, not
as "killed, or the machine restarted" (which it said before)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from skillopt_sleep.mcp import jobfile
from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.server import build_server

STARTING = (sys.executable, "-c", "import time; time.sleep(60)")
"""A night process that never gets as far as handling SIGTERM."""


def test_a_night_cancelled_while_starting_reads_as_cancelled(tmp_path: Path) -> None:
    jobs = Jobs(command=STARTING)
    where = {"project": str(tmp_path)}

    async def go() -> tuple[Any, Any]:
        async with Client(build_server(jobs=jobs)) as client:
            started = (await client.call_tool("run", where)).structured_content
            stopped = await client.call_tool("cancel_night", {"job_id": started["id"]})
            return started, stopped

    started, stopped = anyio.run(go)
    assert not stopped.is_error, stopped.content
    ended = jobs.wait(started["id"], 60)
    assert ended.state == "failed" and ended.error == jobfile.CANCELLED, ended.error
    assert ended.exit_code == 130
