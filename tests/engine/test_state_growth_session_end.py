"""The SessionEnd hook's log stays bounded, loses no line to a concurrent rotation, and
``status`` reads only what can hold a session that ended since the last night.

Before, ``<state>/session-end.jsonl`` gained a line per Claude Code session forever (shared by
every project), and every ``status`` parsed all of it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from skillopt_sleep.engine import views
from skillopt_sleep.engine.state import ProjectState, append_line
from skillopt_sleep.install.layout import plugin_dir
from tests._guard import StandIns

HOOK = plugin_dir("claude-code") / "hooks" / "session_end.py"
LAST_NIGHT = "2020-01-20T03:00:00+00:00"  # the hook stamps lines with the real time


@pytest.fixture(autouse=True)
def _scheduler(fake_scheduler: StandIns) -> None:
    """``status`` asks the scheduler about a project with no schedule record."""


@pytest.fixture
def state_home() -> Path:
    home = Path(os.environ["SKILLOPT_SLEEP_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return home


@pytest.fixture
def hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("session_end_hook", HOOK)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(cwd: str, at: str, n: int = 0) -> str:
    return json.dumps({"harness": "claude", "session_id": f"s{n}", "transcript_path": "",
                       "cwd": cwd, "reason": "other", "at": at})  # fmt: skip


def _run_hook(cwd: Path) -> None:
    event = {"session_id": "new", "transcript_path": "/t/new.jsonl", "cwd": str(cwd)}
    done = subprocess.run(
        [sys.executable, str(HOOK)],
        input=json.dumps(event).encode(),
        env={**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"},
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr


def _all_lines(folder: Path) -> list[str]:
    return [line for p in folder.glob("session-end*.jsonl") for line in p.read_text().splitlines()]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    state = ProjectState(root).ensure()
    append_line(state.history_path, {"night_id": "20200120-030000", "started_at": LAST_NIGHT})
    return root


def test_a_long_log_is_rotated_by_the_next_hook(state_home: Path, project: Path) -> None:
    log = state_home / "session-end.jsonl"
    old = "\n".join(_line("/elsewhere", "2019-01-01T00:00:00+00:00", n) for n in range(3000))
    log.write_text(old + "\n")
    assert log.stat().st_size > 256 * 1024
    _run_hook(project)
    assert not log.exists() or log.stat().st_size < 1024
    lines = _all_lines(state_home)
    assert len(lines) == 3001 and any(json.loads(x)["session_id"] == "new" for x in lines)
    _run_hook(project)  # the next session starts a new log
    assert log.is_file() and len(log.read_text().splitlines()) == 1
    assert views.status(project).ended_since_last_night == 2


def test_only_the_newest_segments_are_kept(state_home: Path, project: Path) -> None:
    for n in range(6):
        (state_home / f"session-end.2025010{n}T000000000000Z-1.jsonl").write_text("{}\n")
    (state_home / "session-end.jsonl").write_text("x" * (300 * 1024) + "\n")
    _run_hook(project)
    kept = sorted(p.name for p in state_home.glob("session-end.*.jsonl"))
    assert len(kept) == 3
    assert kept[:2] == ["session-end.20250104T000000000000Z-1.jsonl",
                        "session-end.20250105T000000000000Z-1.jsonl"]  # fmt: skip
    assert kept[2].startswith("session-end.20") and not (state_home / "session-end.jsonl").exists()


def test_concurrent_hooks_lose_no_line_to_a_rotation(
    state_home: Path, hook: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks append without a lock while others rename the log away: each line is in exactly
    one file afterwards (the rename never overwrites; a late write lands in the segment)."""
    monkeypatch.setattr(hook, "MAX_LOG", 2048)
    monkeypatch.setattr(hook, "KEEP_SEGMENTS", 10**6)
    writers, each = 8, 150

    def write(writer: int) -> None:
        for n in range(each):
            hook.append(state_home, _line("/p", LAST_NIGHT, writer * each + n))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = sorted(json.loads(x)["session_id"] for x in _all_lines(state_home))
    assert ids == sorted(f"s{n}" for n in range(writers * each))
    assert len(list(state_home.glob("session-end.*.jsonl"))) > 10  # it did rotate, often


def test_status_counts_recent_segments_and_skips_old_ones(
    state_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, after = str(project), "2020-01-21T10:00:00+00:00"
    old = state_home / "session-end.20190101T000000000000Z-1.jsonl"
    old.write_text(_line(inside, "2019-01-01T00:00:00+00:00") + "\n")
    os.utime(old, (1546300800, 1546300800))  # 2019-01-01: before the last night
    recent = state_home / "session-end.20200121T100000000000Z-2.jsonl"
    recent.write_text(_line(inside, after, 1) + "\n" + _line("/elsewhere", after, 2) + "\n")
    (state_home / "session-end.jsonl").write_text(_line(inside + "/sub", after, 3) + "\n")
    read: list[str] = []
    real = views.read_lines

    def spying(path: Path, **kwargs: Any) -> Any:
        read.append(path.name)
        return real(path, **kwargs)

    monkeypatch.setattr(views, "read_lines", spying)
    assert views.status(project).ended_since_last_night == 2
    assert old.name not in read and recent.name in read
