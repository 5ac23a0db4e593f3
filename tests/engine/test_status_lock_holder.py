"""`status` names what holds the project's lock: an adopt, a rollback or a reject holds it too,
and was reported as "a night is running now"."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState
from tests.engine._world import World


def _status(world: World, *extra: str) -> str:
    result = CliRunner().invoke(app, ["status", "-p", str(world.webapp), *extra])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_status_names_the_command_holding_the_lock(world: World, fake_scheduler: object) -> None:
    with ProjectState(world.webapp).night_lock("skillopt-sleep adopt"):
        shown = _status(world)
        running = json.loads(_status(world, "--json"))["running"]
    assert "skillopt-sleep adopt is running now (pid " in shown
    assert "a night is running" not in shown
    assert running["command"] == "skillopt-sleep adopt" and running["pid"].isdigit()
    with ProjectState(world.webapp).night_lock():
        assert "a night is running now (pid " in _status(world)
    assert json.loads(_status(world, "--json"))["running"] is None
