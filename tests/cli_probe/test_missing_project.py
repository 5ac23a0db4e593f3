"""`harvest` and `mine` accept a project folder that is gone (its sessions stay in the harnesses'
logs), so a misspelt ``-p`` is no error there; it used to print an empty table and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app

NOTE = "is not a directory and no session was recorded in it; check -p/--project"


@pytest.mark.parametrize(
    "command", [("harvest",), ("harvest", "--json"), ("mine", "--embedder", "tfidf")]
)
def test_a_misspelt_project_says_why_nothing_was_found(
    command: tuple[str, ...], tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, [*command, "-p", str(tmp_path / "no-such-project")])
    assert result.exit_code == 0, result.output
    assert NOTE in " ".join((result.stdout + result.stderr).split())


def test_an_existing_empty_project_gets_no_note(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["harvest", "-p", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "not a directory" not in result.stdout + result.stderr
