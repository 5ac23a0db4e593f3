"""click's own usage errors print like every other failure: ``error:`` and ``fix:``, exit 2.

They printed typer's box ("Usage: ... Try '... --help' for help. ╭─ Error ─╮ No such option"),
although the README promises that every failure prints ``error: ...`` and ``fix: ...``."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    (["run", "--bogus"], "No such option: --bogus", "skillopt-sleep run --help"),
    (["run", "--samples", "abc"], "Invalid value for '--samples'", "skillopt-sleep run --help"),
    (["nosuchcmd"], "No such command 'nosuchcmd'", "skillopt-sleep --help"),
    (["report", "--format", "pdf"], "'pdf' is not a report format", "skillopt-sleep report --help"),
]


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The console script of ``module`` (its ``main``, named as the installed script is)."""
    prog = module.replace("_core", "").replace("_", "-")
    code = f"import sys; sys.argv[0] = {prog!r}; from {module}.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(("args", "said", "help_of"), CASES)
def test_a_usage_error_is_error_and_fix(args: list[str], said: str, help_of: str) -> None:
    done = _run("skillopt_sleep", *args)
    assert done.returncode == 2 and done.stdout == ""
    first, second = done.stderr.splitlines()
    assert first.startswith("error: ") and said in first
    assert second == f"  fix: see `{help_of}`"


def test_the_core_cli_too_and_help_and_version_are_unchanged() -> None:
    done = _run("skillopt_core", "train", "--bogus")
    assert (done.returncode, done.stderr) == (
        2,
        "error: No such option: --bogus\n  fix: see `skillopt train --help`\n",
    )
    assert _run("skillopt_sleep", "--version").stdout.startswith("skillopt-sleep ")
    shown = _run("skillopt_sleep", "run", "--help")
    assert shown.returncode == 0 and "Usage: skillopt-sleep run" in shown.stdout
    bare = _run("skillopt_sleep")  # no arguments: the help, as before
    assert bare.returncode == 2 and "Usage: skillopt-sleep" in bare.stdout + bare.stderr


def test_an_unknown_harvest_source_names_the_option() -> None:
    """It said "Invalid value: unknown source 'nosuch'", naming no option."""
    done = _run("skillopt_sleep", "harvest", "--source", "nosuch")
    assert done.returncode == 2
    assert done.stderr.startswith("error: Invalid value for '--source' / '-s': unknown source")


def test_help_paragraphs_flow_at_any_width() -> None:
    """Typer kept the docstring's source line breaks in every paragraph but the first: at 70
    columns `report --help` broke "its" from "state now" mid-line."""
    from typer.testing import CliRunner

    from skillopt_sleep.cli import app

    wide = CliRunner().invoke(app, ["report", "--help"], env={"COLUMNS": "200"}).output
    assert "which proposal that is, its state now, and what the latest night did" in wide
    narrow = CliRunner().invoke(app, ["report", "--help"], env={"COLUMNS": "70"}).output
    lines = [line.strip() for line in narrow.splitlines()]
    assert "proposal that is, its" not in lines  # a ragged line ending where the source did
