"""Nights started over MCP run in a detached process and are read from their job files.

Each test failed before: the night ran in a thread of the server, so it died with the server,
a fresh server knew no job, there was no ``cancel_night``, and nothing was written to disk.
Nights use the deterministic ``mock`` backend on the relocated transcripts; waits poll the job
file with a hang guard, never a timed assertion.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters

from skillopt_sleep.engine import ProjectState, list_proposals, status
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.mcp import jobfile
from skillopt_sleep.mcp.jobfile import JobView
from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.server import build_server
from tests.engine._world import World

HANG_GUARD_S = 60.0  # only ever reached when something hangs

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="nights detach on POSIX; Windows runs them in the server"
)


def _roots_for(path: Path) -> Any:
    async def callback(_context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=path.as_uri(), name="project")])

    return callback


def _waiting(stage: str) -> Jobs:
    """Background nights whose night process waits at ``stage`` until it gets a SIGTERM."""
    return Jobs(command=(sys.executable, "-m", "tests.mcp_nights._waiting_night", stage))


async def _call(client: Client, tool: str, args: dict[str, Any] | None = None) -> Any:
    result = await client.call_tool(tool, args or {})
    assert not result.is_error, result.content
    return result.structured_content


async def _until(client: Client, job_id: str, done: Callable[[dict[str, Any]], bool]) -> Any:
    with anyio.fail_after(HANG_GUARD_S):
        while True:
            job = await _call(client, "night_status", {"job_id": job_id})
            if done(job):
                return job
            await anyio.sleep(0.05)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_night_outlives_the_server_that_started_it(world: World) -> None:
    """Started by one server, read (by id and as the project's latest) from a fresh one after
    the first is gone; the night ran in a process of its own, its files private."""

    async def start() -> Any:
        async with Client(build_server(), list_roots_callback=_roots_for(world.webapp)) as c:
            return await _call(c, "dry_run")

    started = anyio.run(start)
    assert started["state"] == "running"

    async def later() -> tuple[Any, Any]:
        async with Client(build_server(), list_roots_callback=_roots_for(world.webapp)) as c:
            job = await _until(c, started["id"], lambda j: j["state"] != "running")
            return job, await _call(c, "night_status")

    job, latest = anyio.run(later)
    assert job["state"] == "finished", job["error"]
    assert job["report"]["outcome"] == "dry run" and job["report"]["sessions"] > 0
    read, files = job["stages"]["harvest"].split("/")  # the files the harvest read
    assert read == files != "0" and job["finished_at"]
    assert latest["id"] == started["id"] and latest["state"] == "finished"
    assert started["id"].startswith("job-") and job["pid"] == started["pid"] != os.getpid()
    directory = Path(job["log"]).parent
    assert directory.parent == ProjectState(world.webapp).root / "jobs"
    assert _mode(directory.parent) == _mode(directory) == 0o700
    for name in ("job.json", "request.json", "night.log"):
        assert _mode(directory / name) == 0o600, name


def test_cancel_stops_a_night_cleanly_from_another_server(world: World) -> None:
    """A night waiting in its replay stage: a second server refuses another night for the
    project (naming the job), cancels it, and reads it as failed, cancelled; the project lock
    is free again and nothing was staged or recorded as a night."""
    jobs = _waiting("replay")

    async def start() -> Any:
        async with Client(
            build_server(jobs=jobs), list_roots_callback=_roots_for(world.webapp)
        ) as c:
            job = await _call(c, "run")
            return await _until(c, job["id"], lambda j: j["stage"] == "replay")

    waiting = anyio.run(start)
    pid = waiting["pid"]
    assert os.getsid(pid) == pid  # a session of its own: the client's hangup never reaches it
    if Path("/proc").is_dir():
        assert os.readlink(f"/proc/{pid}/fd/0") == os.devnull

    async def cancel() -> tuple[Any, Any, Any]:
        async with Client(build_server(), list_roots_callback=_roots_for(world.webapp)) as c:
            second = await c.call_tool("run", {})
            cancelled = await _call(c, "cancel_night")
            ended = await _until(c, waiting["id"], lambda j: j["state"] != "running")
            return second, cancelled, ended

    second, cancelled, ended = anyio.run(cancel)
    assert second.is_error and "already running" in second.content[0].text
    assert waiting["id"] in second.content[0].text
    assert cancelled["id"] == waiting["id"]
    assert ended["state"] == "failed" and ended["exit_code"] == 130
    assert ended["error"].startswith("cancelled") and "untouched" in ended["error"]
    jobs.wait(waiting["id"], HANG_GUARD_S)  # reaps the process (a hang guard, not a timing)
    assert ProjectState(world.webapp).running() is None
    assert list_proposals(world.webapp) == []
    assert status(world.webapp).nights == ()


SERVER_WITH_WAITING_NIGHTS = """
import signal, sys
from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.server import build_server
from skillopt_sleep.mcp.stdio import serve_stdio
command = (sys.executable, "-m", "tests.mcp_nights._waiting_night", "replay")
serve_stdio(build_server(jobs=Jobs(command=command)))
signal.pause()  # linger after stdin closes, so that the client kills the process group
"""


def test_a_night_survives_its_server_process_group_being_killed(world: World) -> None:
    """A real stdio server process starts a night; its client then kills the server's whole
    process group, as the SDK does to a server that lingers (SIGTERM, SIGKILL after). The
    night, waiting in its replay stage until a SIGTERM reaches it, is still running for a
    fresh server, which is the one that stops it."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", SERVER_WITH_WAITING_NIGHTS],
        env=dict(os.environ),
        cwd=str(world.root),
    )

    async def start() -> Any:
        async with Client(params) as client:
            job = await _call(client, "run", {"project": str(world.webapp)})
            return await _until(client, job["id"], lambda j: j["stage"] == "replay")

    waiting = anyio.run(start)

    async def later() -> tuple[Any, Any]:
        async with Client(build_server(), list_roots_callback=_roots_for(world.webapp)) as c:
            alive = await _call(c, "night_status")
            await _call(c, "cancel_night", {"job_id": waiting["id"]})
            return alive, await _until(c, waiting["id"], lambda j: j["state"] != "running")

    alive, ended = anyio.run(later)
    assert alive["id"] == waiting["id"] and alive["state"] == "running", alive["error"]
    assert ended["state"] == "failed" and ended["error"].startswith("cancelled")


def test_a_cancel_while_staging_lets_the_night_finish(world: World) -> None:
    """Cut short, staging would leave a proposal of a night that never finished: the night
    process defers the cancel and the night ends finished, its proposal pending and recorded."""

    async def go() -> Any:
        jobs = _waiting("stage")
        async with Client(
            build_server(jobs=jobs), list_roots_callback=_roots_for(world.webapp)
        ) as c:
            job = await _call(c, "run")
            await _until(c, job["id"], lambda j: j["stage"] == "stage")
            await _call(c, "cancel_night", {"job_id": job["id"]})
            return await _until(c, job["id"], lambda j: j["state"] != "running")

    ended = anyio.run(go)
    assert ended["state"] == "finished", ended["error"]
    proposal = ended["report"]["proposal"]
    assert [(p.id, p.state) for p in list_proposals(world.webapp)] == [(proposal, "pending")]
    assert [n.night_id for n in status(world.webapp).nights] == [ended["report"]["night_id"]]
    assert ProjectState(world.webapp).running() is None


@pytest.mark.parametrize("lock_file", [True, False])
def test_a_running_job_whose_process_is_gone_reads_as_failed(
    tmp_path: Path, lock_file: bool
) -> None:
    """A job file that says running while no process holds its lock (killed, the machine
    restarted) is failed, saying so and what to do, even when its pid now names a live
    process (here: this one); a cancel leaves that process alone."""
    directory = jobfile.create(tmp_path)
    if lock_file:
        os.close(jobfile.hold_lock(directory))  # the lock file exists, and nobody holds it
    view = JobView(directory.name, str(tmp_path), False, "running", jobfile.now(), pid=os.getpid())
    jobfile.write_view(directory, view)
    calls = [
        ("night_status", {"job_id": view.id}),
        ("night_status", {"project": str(tmp_path)}),
        ("cancel_night", {"project": str(tmp_path)}),
    ]

    async def go() -> list[Any]:
        async with Client(build_server()) as client:
            return [await _call(client, name, args) for name, args in calls]

    for job in anyio.run(go):
        assert job["id"] == view.id and job["state"] == "failed" and job["exit_code"] == 1
        assert "ended without finishing" in job["error"] and "start the night again" in job["error"]
        assert "nothing live was changed" in job["error"]


def test_an_in_server_night_is_recorded_but_cannot_be_cancelled(tmp_path: Path) -> None:
    """With an injected runner the night runs in a server thread, recorded in the same job file
    (a fresh server reads it); cancel_night refuses it rather than signal the server."""
    release = threading.Event()

    def night(project: Path, config: Any, **_: Any) -> Any:
        release.wait(HANG_GUARD_S)
        raise RuntimeError("stopped by the test")

    jobs = Jobs(night)
    where = {"project": str(tmp_path)}

    async def go() -> tuple[Any, Any]:
        async with Client(build_server(jobs=jobs)) as client:
            job = await _call(client, "dry_run", where)
            refused = await client.call_tool("cancel_night", where)
            release.set()
            return job, refused

    job, refused = anyio.run(go)
    assert job["pid"] == 0
    assert refused.is_error and "inside the server" in refused.content[0].text
    jobs.wait(job["id"], HANG_GUARD_S)

    async def fresh() -> Any:
        async with Client(build_server()) as client:
            return await _call(client, "night_status", {"job_id": job["id"]})

    ended = anyio.run(fresh)
    assert ended["state"] == "failed" and "stopped by the test" in ended["error"]


def test_a_damaged_job_file_is_named_and_blocks_no_night(tmp_path: Path) -> None:
    directory = jobfile.create(tmp_path)
    (directory / jobfile.JOB_FILE).write_text('{"id": 3}')
    release = threading.Event()

    def night(project: Path, config: Any, **_: Any) -> NightReport:
        release.wait(HANG_GUARD_S)
        raise RuntimeError("stopped by the test")

    jobs = Jobs(night)
    where = {"project": str(tmp_path)}

    async def go() -> tuple[Any, Any]:
        async with Client(build_server(jobs=jobs)) as client:
            damaged = await client.call_tool("night_status", {"job_id": directory.name})
            started = await client.call_tool("dry_run", where)
            release.set()
            return damaged, started

    damaged, started = anyio.run(go)
    assert damaged.is_error and "damaged" in damaged.content[0].text
    assert not started.is_error, started.content
    jobs.wait(started.structured_content["id"], HANG_GUARD_S)


def test_cancel_night_is_annotated_and_the_instructions_tell_the_truth() -> None:
    """The agent-facing instructions said a night stops with the session; now they say it goes
    on, and name the tool that stops it."""
    from skillopt_sleep.mcp.server import INSTRUCTIONS

    assert "stops if the session ends" not in INSTRUCTIONS
    assert "goes on if the session ends" in INSTRUCTIONS and "cancel_night" in INSTRUCTIONS

    async def go() -> list[types.Tool]:
        async with Client(build_server()) as client:
            return (await client.list_tools()).tools

    (tool,) = [t for t in anyio.run(go) if t.name == "cancel_night"]
    assert tool.annotations is not None and tool.output_schema
    assert tool.annotations.read_only_hint is False
    assert tool.annotations.destructive_hint is False
    assert tool.annotations.idempotent_hint is True
    assert "job_id" in tool.input_schema["properties"]
