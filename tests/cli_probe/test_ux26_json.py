"""`--json` keeps the one shape convention the root ``--help`` states: an array where a command
lists things, else one object, and nothing but JSON on stdout (warnings and errors on stderr)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from tests._guard import StandIns

LISTS = [
    ["proposals"],
    ["harvest", "-s", "claude"],
    ["mine", "-e", "jaccard"],
    ["install", "all", "--dry-run", "--no-plugin"],
    ["uninstall", "all", "--dry-run"],
]
OBJECTS = [
    ["status"],
    ["config", "show"],
    ["dry-run", "--backend", "mock"],
    ["schedule", "--dry-run"],
    ["unschedule"],
]
TAKES_NO_PROJECT = {"install", "uninstall"}


@pytest.mark.parametrize(
    ("args", "kind"), [(a, list) for a in LISTS] + [(a, dict) for a in OBJECTS], ids=str
)
def test_json_shape(args: list[str], kind: type, tmp_path: Path, fake_scheduler: StandIns) -> None:
    project = [] if args[0] in TAKES_NO_PROJECT else ["-p", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, *project, "--json"])
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), kind)
    command = args[:2] if args[0] == "config" else args[:1]
    assert "--json" in CliRunner().invoke(app, [*command, "--help"]).output


def test_the_root_help_states_the_convention() -> None:
    shown = " ".join(CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output.split())
    assert "a JSON array where a command lists things" in shown
