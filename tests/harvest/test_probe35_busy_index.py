"""A night (or a `harvest --commit`) holds the harvest index's run lock, and SQLite's write lock
from its first large write to its end: `harvest` and `mine` waited on it silently, for a whole
night, where `run` and `adopt` are turned away at once. They exit 5 at once, naming the holder."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from faults._sessions import records, session_file

import skillopt_sleep
from skillopt_core.errors import EXIT_BUSY, BusyError
from skillopt_sleep.engine import ProjectState
from skillopt_sleep.harvest import _index, harvest, open_index

# Another process: takes the index's run lock as a night does, then SQLite's write lock, as a
# night holding many uncommitted rows keeps it, until its stdin closes.
HOLDER = """
import sqlite3, sys
from pathlib import Path
from skillopt_core.lock import exclusive
location = Path(sys.argv[1])
with exclusive(location.parent / ".harvest-lock", "skillopt-sleep night"):
    db = sqlite3.connect(str(location), isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    print("ready", flush=True)
    sys.stdin.read()
"""


TREE = str(Path(skillopt_sleep.__file__).resolve().parents[1])


def _env() -> dict[str, str]:
    """This test's environment, with the code under test first (not an installed copy)."""
    return {**os.environ, "PYTHONPATH": TREE}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "webapp"
    root.mkdir()
    return root


@pytest.fixture
def holder(project: Path) -> Iterator[subprocess.Popen[str]]:
    location = ProjectState(project).index_path
    open_index(project).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(location)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    try:
        yield proc
    finally:
        assert proc.stdin is not None
        if not proc.stdin.closed:
            proc.stdin.close()
        proc.wait(timeout=30)


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", *args],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
        cwd=cwd,
        env=_env(),
    )


@pytest.mark.parametrize(
    "args",
    [["harvest"], ["harvest", "--json"], ["harvest", "--commit"], ["mine", "--embedder", "tfidf"]],
    ids=" ".join,
)
def test_harvest_and_mine_refuse_at_once_while_a_night_holds_the_index(
    args: list[str], project: Path, holder: subprocess.Popen[str]
) -> None:
    began = time.monotonic()
    done = _cli(args, project)
    assert done.returncode == EXIT_BUSY, done.stderr
    assert time.monotonic() - began < 15
    assert f"(pid {holder.pid})" in done.stderr
    assert "skillopt-sleep night" in done.stderr and "wait for it to finish" in done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr


def test_the_library_preview_is_refused_at_once_too(
    project: Path, holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_index, "BUSY_TIMEOUT_S", 1.0)  # what it waited before, shortened
    began = time.monotonic()
    with pytest.raises(BusyError, match=f"pid {holder.pid}"):
        harvest(project, commit=False)
    assert time.monotonic() - began < 5


def test_once_the_night_ends_harvest_reads_again(
    project: Path, tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    home = tmp_path / ".claude"
    path = session_file(home, "s1", str(project))
    path.parent.mkdir(parents=True)
    lines = [json.dumps({**r, "cwd": str(project)}) for r in records("s1", ["fix the login test"])]
    path.write_text("\n".join(lines) + "\n")
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=30)
    result = harvest(project, ["claude"], homes={"claude": home}, commit=False)
    assert len(result.sessions) == 1


def test_a_read_only_harvest_creates_no_lock(tmp_path: Path) -> None:
    harvest(tmp_path, ["claude"], homes={"claude": tmp_path / "none"}, commit=False)
    location = ProjectState(tmp_path).index_path
    assert not (location.parent / ".harvest-lock").exists()


def test_a_locked_index_is_waited_for_once_not_three_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a locked index (a run that took the lock after this one checked) waited the busy
    timeout for the journal mode, again for the schema (then taken for a fresh file), and again
    to set it up: 90 s before a busy error. Once is enough to know."""
    open_index(tmp_path).close()
    monkeypatch.setattr(_index, "BUSY_TIMEOUT_S", 1.0)
    other = sqlite3.connect(ProjectState(tmp_path).index_path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        began = time.monotonic()
        with pytest.raises(BusyError, match="is busy"):
            open_index(tmp_path)
        assert time.monotonic() - began < 2.5
    finally:
        other.execute("ROLLBACK")
        other.close()
