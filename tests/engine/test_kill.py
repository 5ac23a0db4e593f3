"""SIGKILL a night at many points (stage boundaries and inside writes): the live skill file is
always intact and valid, the state is readable, and the next night completes.

Each kill runs the night in a forked child of this (already imported) process, which counts the
writes it makes (``os.replace``, ``os.fsync``, ``os.write``) and the stage boundaries it reports,
and kills itself at the chosen one. ``auto_adopt`` is on, so adopts are inside the night too.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.engine import list_proposals, load_config, run_night, status
from skillopt_sleep.skills.learned import CLOSE, OPEN
from tests.engine._world import World, make_world

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")

USER_SKILL = (
    b"---\nname: login-tests\ndescription: Fix failing login tests in tests/test_auth.py\n---\n"
    b"# Login tests\nRun the auth suite first.\n"
)
_PATCHED = ("replace", "fsync", "write")


def _skill(world: World) -> Path:
    return world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"


def _night(world: World, progress: Callable[[str, int, int], None] | None = None) -> Any:
    config = load_config(world.webapp, world.overrides(**{"night.auto_adopt": True}))
    return run_night(world.webapp, config, home=world.home, progress=progress)


def _counting_child(world: World, kill_at: int | None, count_file: Path) -> None:
    """Runs in the forked child: count events, die at ``kill_at``; never returns."""
    seen = [0]

    def event() -> None:
        seen[0] += 1
        if kill_at is not None and seen[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            event()
            result = original(*args, **kwargs)
            event()
            return result

        return counted

    for name in _PATCHED:
        setattr(os, name, wrap(getattr(os, name)))
    try:
        _night(world, lambda stage, done, total: event())
        code = 0
    except BaseException:
        code = 3
    count_file.write_text(str(seen[0]))
    os._exit(code)


def _fork(world: World, kill_at: int | None, count_file: Path) -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        _counting_child(world, kill_at, count_file)
    _, status_code = os.waitpid(pid, 0)
    return status_code


def _fresh(root: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    world = make_world(root)
    _skill(world).parent.mkdir(parents=True)
    _skill(world).write_bytes(USER_SKILL)
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(root / "state"))
    return world


def _assert_live_valid(world: World) -> None:
    live = _skill(world).read_bytes()
    if live != USER_SKILL:
        assert live.startswith(USER_SKILL)
        text = live.decode("utf-8")
        assert text.count(OPEN) == 1 and text.count(CLOSE) == 1 and text.endswith("\n")


@pytest.mark.slow
def test_sigkill_anywhere_in_a_night_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = _fresh(tmp_path / "probe", monkeypatch)
    assert _fork(probe, None, tmp_path / "count") == 0
    total = int((tmp_path / "count").read_text())
    assert total > 60, total
    points = sorted({1 + (i * (total - 1)) // 59 for i in range(60)})
    assert len(points) >= 50

    for number, point in enumerate(points):
        run = _fresh(tmp_path / f"k{number:02d}", monkeypatch)
        code = _fork(run, point, tmp_path / "ignored")
        assert os.WIFSIGNALED(code) and os.WTERMSIG(code) == signal.SIGKILL, (point, code)
        _assert_live_valid(run)
        status(run.webapp)  # state readable after the kill
        report = _night(run)  # the next night completes
        assert report.outcome in ("adopted", "nothing new", "no change"), (point, report.outcome)
        _assert_live_valid(run)
        states = [p.state for p in list_proposals(run.webapp)]
        assert "adopted" in states or report.outcome == "nothing new", (point, states)
        shutil.rmtree(run.root)
