"""What a night is pointed at, found by an outside probe: a mistyped harness home read nothing
and the night said only "nothing new"; `run -p ~` (or `/`) read every project's sessions and
staged into the user-wide skill folder; an over-long `night.since` was refused with "leave it
out for no window", where leaving it out means 30 days."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faults._sessions import records, session_file
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_USAGE
from skillopt_sleep.cli import app
from tests._guard import StandIns


def _said(result: object) -> str:
    """Everything the command printed, on one line (a message wraps at the console's width, and
    click's usage errors are boxed)."""
    text = getattr(result, "stdout", "") + getattr(result, "stderr", "")
    return " ".join(text.replace("│", " ").split())


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # a long path would be folded across lines


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "webapp"
    root.mkdir()
    return root


# -- a mistyped harness home ----------------------------------------------------------------------


def test_a_night_names_a_home_flag_that_does_not_exist(project: Path, tmp_path: Path) -> None:
    typo = tmp_path / ".claud"
    args = ["run", "-p", str(project), "--backend", "mock", "-s", "claude"]
    result = CliRunner().invoke(app, [*args, "--claude-home", str(typo)])
    assert result.exit_code == 0, result.output
    said = _said(result)
    assert f"the claude home {typo} (set by --claude-home) does not exist" in said
    assert said.index("does not exist") < said.index("no session of this project")


def test_a_night_names_a_configured_home_that_does_not_exist(
    project: Path, tmp_path: Path, _isolated_machine: Path
) -> None:
    config = _isolated_machine / ".config" / "skillopt-sleep" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[homes]\nclaude = "/nonexistent-probe35"\n')
    result = CliRunner().invoke(app, ["dry-run", "-p", str(project), "--backend", "mock"])
    assert result.exit_code == 0, result.output
    said = _said(result)
    assert f"the claude home /nonexistent-probe35 (set by homes.claude in {config})" in said
    assert "does not exist" in said


def test_a_home_that_is_a_file_is_named_too(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "codex.txt"
    home.write_text("not a folder")
    args = ["run", "-p", str(project), "--backend", "mock", "-s", "codex"]
    result = CliRunner().invoke(app, [*args, "--codex-home", str(home)])
    assert result.exit_code == 0, result.output
    assert f"the codex home {home} (set by --codex-home) is not a folder" in _said(result)


def test_a_night_with_sessions_still_names_the_home_it_could_not_read(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / ".claude"
    for number in range(3):
        path = session_file(home, f"s{number}", str(project))
        path.parent.mkdir(parents=True, exist_ok=True)
        turns = records(f"s{number}", ["fix the failing login test"], start=number * 10)
        path.write_text("".join(json.dumps({**r, "cwd": str(project)}) + "\n" for r in turns))
    typo = tmp_path / ".codx"
    args = ["run", "-p", str(project), "--backend", "mock", "-s", "claude,codex"]
    args += ["--claude-home", str(home), "--codex-home", str(typo), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["sessions"] == 3
    assert f"the codex home {typo} (set by --codex-home) does not exist" in report["message"]


def test_usual_homes_that_are_absent_are_no_news(project: Path, tmp_path: Path) -> None:
    empty = tmp_path / "claude-home"
    empty.mkdir()  # an existing home with no session of the project: nothing to correct
    for extra in ([], ["--claude-home", str(empty)]):
        result = CliRunner().invoke(app, ["run", "-p", str(project), "--backend", "mock", *extra])
        assert result.exit_code == 0, result.output
        assert "home" not in _said(result).split("nothing new")[1].split("first night")[0]


def test_a_home_of_a_source_not_read_is_not_named(project: Path, tmp_path: Path) -> None:
    args = ["run", "-p", str(project), "--backend", "mock", "-s", "claude"]
    result = CliRunner().invoke(app, [*args, "--codex-home", str(tmp_path / "nope")])
    assert result.exit_code == 0, result.output
    assert "codex home" not in _said(result)


@pytest.mark.parametrize("json", [[], ["--json"]])
def test_harvest_names_a_home_that_does_not_exist(
    project: Path, tmp_path: Path, json: list[str]
) -> None:
    typo = tmp_path / ".claud"
    args = ["harvest", "-p", str(project), "-s", "claude", "--claude-home", str(typo), *json]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"the claude home {typo} (set by --claude-home) does not exist" in _said(result)


def test_harvest_names_a_home_from_the_environment(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_HOMES_CODEX", str(tmp_path / "codx"))
    result = CliRunner().invoke(app, ["harvest", "-p", str(project)])
    assert result.exit_code == 0, result.output
    assert "(set by SKILLOPT_SLEEP_HOMES_CODEX) does not exist" in _said(result)


def test_mine_names_a_home_that_does_not_exist(project: Path, tmp_path: Path) -> None:
    typo = tmp_path / ".copilto"
    args = ["mine", "-p", str(project), "-e", "tfidf", "--copilot-home", str(typo)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"the copilot home {typo} (set by --copilot-home) does not exist" in _said(result)


# -- a project that holds the home folder ---------------------------------------------------------


@pytest.mark.parametrize("command", [["run"], ["dry-run"], ["schedule", "--dry-run"]])
@pytest.mark.parametrize("where", ["home", "root", "parent"])
def test_a_night_refuses_a_project_holding_the_home_folder(
    command: list[str], where: str, _isolated_machine: Path, fake_scheduler: StandIns
) -> None:
    home = _isolated_machine
    project = {"home": home, "root": Path(home.anchor), "parent": home.parent}[where]
    result = CliRunner().invoke(app, [*command, "-p", str(project), "--backend", "mock"])
    assert result.exit_code == EXIT_USAGE, result.output
    said = _said(result)
    assert "holds your home folder" in said and "pass the repository's own folder" in said
    assert not (home / ".claude" / "skills").exists()


def test_a_project_inside_the_home_folder_is_fine(_isolated_machine: Path) -> None:
    project = _isolated_machine / "src" / "webapp"
    project.mkdir(parents=True)
    result = CliRunner().invoke(app, ["run", "-p", str(project), "--backend", "mock"])
    assert result.exit_code == 0, result.output


def test_status_of_the_home_folder_is_still_shown(
    _isolated_machine: Path, fake_scheduler: StandIns
) -> None:
    result = CliRunner().invoke(app, ["status", "-p", str(_isolated_machine)])
    assert result.exit_code == 0, result.output


# -- an over-long night.since ---------------------------------------------------------------------


def test_an_over_long_night_since_says_what_leaving_it_out_does(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "1000000d")
    result = CliRunner().invoke(app, ["run", "-p", str(project), "--backend", "mock"])
    assert result.exit_code == EXIT_USAGE, result.output
    said = _said(result)
    assert "night.since (env SKILLOPT_SLEEP_NIGHT_SINCE): 1000000d is longer than 200" in said
    assert "no window" not in said and "leave it unset for 30d" in said


def test_an_over_long_since_flag_of_a_night_says_night_since(project: Path) -> None:
    args = ["run", "-p", str(project), "--backend", "mock", "--since", "1000000d"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == EXIT_USAGE, result.output
    said = _said(result)
    assert "no window" not in said and "leave it out for night.since of the config" in said


@pytest.mark.parametrize("command", [["harvest"], ["mine", "-e", "tfidf"]])
def test_an_over_long_since_of_harvest_says_it_reads_every_session(
    command: list[str], project: Path
) -> None:
    result = CliRunner().invoke(app, [*command, "-p", str(project), "--since", "1000000d"])
    assert result.exit_code == EXIT_USAGE, result.output
    said = _said(result)
    assert "use at most 73000d, or leave it out to read every session" in said
