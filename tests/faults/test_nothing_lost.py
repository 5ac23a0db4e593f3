"""Nothing lost: the index advances only after the output is safely written; projects sharing a
state directory keep their own checkpoints; a grown session brings what is new."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from faults._cli import home_args, popen_cli, sleep_cli
from faults._sessions import PROJECT, write_many, write_session
from skillopt_sleep.harvest import harvest


def _harvest_args(home: Path, state: Path, *extra: str) -> list[str]:
    return ["harvest", "-p", PROJECT, *home_args({"claude": home}), "--state-dir", str(state),
            "-s", "claude", *extra]  # fmt: skip


def _delivered(home: Path, state: Path) -> int:
    out = state.parent / "check.json"
    result = sleep_cli(_harvest_args(home, state, "-o", str(out)))
    assert result.returncode == 0, result.stderr.decode()
    return len(json.loads(out.read_text()))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_commits_nothing(tmp_path: Path) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_many(home, 3)
    failed = sleep_cli(_harvest_args(home, state, "--commit", "-o", "/dev/full"))
    assert failed.returncode == 1
    assert b"could not write the sessions to /dev/full" in failed.stderr
    assert b"Traceback" not in failed.stderr
    assert _delivered(home, state) == 3  # still there for the next run


def test_an_unwritable_output_commits_nothing(tmp_path: Path) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_many(home, 2)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for output in (blocker / "out.json", blocker / "deeper" / "out.json"):
        failed = sleep_cli(_harvest_args(home, state, "--commit", "-o", str(output)))
        assert failed.returncode == 1 and b"Traceback" not in failed.stderr
        said = failed.stderr.decode()
        assert f"{blocker} is a file, not a folder" in said  # not mkdir's bare "File exists"
    assert _delivered(home, state) == 2


def test_an_unusable_state_dir_is_a_message(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    write_many(home, 1)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    failed = sleep_cli(_harvest_args(home, blocker / "state"))
    assert failed.returncode == 1
    assert b"cannot be created" in failed.stderr and b"Traceback" not in failed.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a fifo")
def test_a_kill_while_delivering_commits_nothing(tmp_path: Path) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_many(home, 60, ["fix the login test " + "x" * 4000])  # far more than a pipe holds
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # never blocks, whatever the child does
    process = popen_cli(_harvest_args(home, state, "--commit", "-o", str(fifo)))
    try:
        got = b""
        while len(got) < 1000:  # the run is delivering, and blocks on the full pipe
            assert process.poll() is None, "the harvest ended before it was killed"
            ready, _, _ = select.select([reader], [], [], 1.0)
            chunk = os.read(reader, 1000) if ready else b""
            got += chunk
            if not chunk:
                time.sleep(0.05)  # no writer yet: an empty read is not the end
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=60)
        os.close(reader)
    assert _delivered(home, state) == 60


def test_delivered_and_committed_is_not_delivered_again(tmp_path: Path) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_many(home, 2)
    out = tmp_path / "night.json"
    done = sleep_cli(_harvest_args(home, state, "--commit", "-o", str(out)))
    assert done.returncode == 0, done.stderr.decode()
    assert len(json.loads(out.read_text())) == 2
    assert _delivered(home, state) == 0


def _codex_rollout(home: Path, sid: str, cwd: str) -> None:
    path = home / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T10-00-00-{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [
        {"timestamp": "2026-11-20T10:00:00Z", "type": "session_meta",
         "payload": {"id": sid, "cwd": cwd}},
        {"timestamp": "2026-11-20T10:00:01Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": f"work on {cwd}"}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_two_projects_committed_into_one_state_dir_keep_their_sessions(tmp_path: Path) -> None:
    home, state = tmp_path / ".codex", tmp_path / "state"
    a = [f"aaaaaaaa-0000-4000-8000-00000000000{n}" for n in range(3)]
    b = [f"bbbbbbbb-0000-4000-8000-00000000000{n}" for n in range(5)]
    for sid in a:
        _codex_rollout(home, sid, "/home/dev/a")
    for sid in b:
        _codex_rollout(home, sid, "/home/dev/b")

    def night(project: str) -> set[str]:
        result = harvest(project, ("codex",), None, state, homes={"codex": home}, commit=True)
        return {s.session_id for s in result.sessions}

    assert night("/home/dev/a") == set(a)
    assert night("/home/dev/b") == set(b)
    assert night("/home/dev/a") == set() and night("/home/dev/b") == set()


def test_a_grown_session_brings_what_is_new(tmp_path: Path) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    path = write_session(home, "s1", ["fix the login test"])
    first = harvest(PROJECT, ("claude",), None, state, homes={"claude": home})
    assert first.first_new == {"claude:s1": 0}
    write_session(home, "s1", ["fix the login test", "now the signup test"])  # appended
    assert path.read_text().count("\n") == 4
    grown = harvest(PROJECT, ("claude",), None, state, homes={"claude": home})
    (session,) = grown.sessions
    assert [t.text for t in session.user_turns] == ["fix the login test", "now the signup test"]
    assert grown.first_new == {"claude:s1": 2}  # turns 2.. are new; indices stay stable
    assert grown.stats["claude"].bytes_read < path.stat().st_size  # only the new bytes read
