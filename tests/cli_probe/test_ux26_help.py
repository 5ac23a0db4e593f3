"""Every `skillopt-sleep` command's ``--help`` teaches: what it does, examples that parse, and
the files it touches. No command's help had an example or said what it reads or writes, and a
bare `skillopt-sleep config` failed with "Missing command" instead of showing its help."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from skillopt_sleep.cli import app


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))


ROOT = get_command(app)
COMMANDS = dict(_commands(ROOT))


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_help_has_examples_and_files(path: tuple[str, ...]) -> None:
    shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "Examples:" in shown.output
    assert f"$ skillopt-sleep {' '.join(path)}" in shown.output
    assert "Files: " in shown.output


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_example_parses(path: tuple[str, ...]) -> None:
    """An example that names an option the command lacks would teach an error."""
    from skillopt_sleep.cli._examples import HELP_EXTRAS

    examples, _files = HELP_EXTRAS[" ".join(path)]
    for example in examples:
        words = shlex.split(example.split(">")[0])
        assert words[0] == "skillopt-sleep"
        command, args, prog = ROOT, words[1:], "skillopt-sleep"
        while hasattr(command, "commands") and args and args[0] in command.commands:
            prog += f" {args[0]}"
            command, args = command.commands[args[0]], args[1:]
        command.make_context(prog, list(args))  # a usage error raises


def test_a_bare_group_shows_its_help() -> None:
    shown = CliRunner().invoke(app, ["config"])
    assert "Missing command" not in shown.output
    assert "Usage: skillopt-sleep config" in shown.output and "show" in shown.output


@pytest.mark.parametrize("args", [["-h"], ["status", "-h"], ["config", "show", "-h"]])
def test_dash_h_is_help(args: list[str]) -> None:
    """``-h`` was "No such option: -h", exit 2."""
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0 and "Usage: skillopt-sleep" in shown.output
