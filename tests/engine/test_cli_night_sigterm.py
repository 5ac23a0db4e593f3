"""A night stopped by SIGTERM (a shutdown, ``kill``, a scheduler ending the job) says so.

Before, SIGTERM ended the process on the spot: exit 143 and not a word in the scheduled
night's log, so a user reading it could not tell a stopped night from one that never ran.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest
from typer.testing import CliRunner

from skillopt_core.interrupts import EXIT_SIGTERM
from skillopt_sleep.cli import app
from skillopt_sleep.cli import night as night_cli
from skillopt_sleep.engine import list_proposals
from tests.engine._world import World

pytestmark = pytest.mark.skipif(os.name == "nt", reason="SIGTERM to oneself is POSIX")


class Escaped(Exception):
    """The test's own SIGTERM handler ran: the night did not install one."""


def _escaped(signum: int, frame: FrameType | None) -> None:
    raise Escaped


def _argv(world: World, *extra: str) -> list[str]:
    return [
        "run", "-p", str(world.webapp), "--embedder", "tfidf",
        "--claude-home", str(world.home / ".claude"),
        "--codex-home", str(world.home / ".codex"),
        "--copilot-home", str(world.home / ".copilot"),
        *extra,
    ]  # fmt: skip


def _terminating_bar(
    stage_to_stop: str,
) -> Callable[[bool], contextlib.AbstractContextManager[Any]]:
    @contextlib.contextmanager
    def bar(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
        def tick(stage: str, done: int, total: int) -> None:
            if stage == stage_to_stop:
                os.kill(os.getpid(), signal.SIGTERM)

        yield tick

    return bar


@pytest.mark.parametrize("stage", ["harvest", "replay"])
def test_a_night_stopped_by_sigterm_says_so_and_keeps_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    skill = world.webapp / ".claude" / "skills"
    before = {p: p.read_bytes() for p in skill.rglob("*") if p.is_file()}
    previous = signal.signal(signal.SIGTERM, _escaped)
    try:
        with monkeypatch.context() as patched:
            patched.setattr(night_cli, "progress_bar", _terminating_bar(stage))
            result = CliRunner().invoke(app, _argv(world))
        assert signal.getsignal(signal.SIGTERM) is _escaped  # put back as it was
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert not isinstance(result.exception, Escaped)
    assert result.exit_code == EXIT_SIGTERM
    assert "stopped by SIGTERM" in result.stderr and "run it again" in result.stderr
    assert {p: p.read_bytes() for p in skill.rglob("*") if p.is_file()} == before
    assert list_proposals(world.webapp) == []

    again = CliRunner().invoke(app, _argv(world, "--json"))  # the sessions were not used up
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["outcome"] == "staged"
