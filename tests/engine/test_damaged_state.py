"""Damaged state files end a command with ``error: …`` and ``fix: …``, never a traceback.

Each test stages a night, damages one file of the project's state (bytes that are not UTF-8, a
directory in a file's place, valid JSON of the wrong type) and runs the commands that read it:
exit 1, the damage named with its way out, and no live file touched.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_ERROR
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState
from skillopt_sleep.engine.state import append_line, read_lines
from tests.engine._world import World


def _cli(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _homes(world: World) -> list[str]:
    home = world.home
    return ["--claude-home", str(home / ".claude"), "--codex-home", str(home / ".codex"),
            "--copilot-home", str(home / ".copilot"), "--embedder", "tfidf"]  # fmt: skip


def _command(world: World, name: str) -> list[str]:
    """The argv of ``name`` on the world's project (a night takes the world's homes)."""
    extra = {"run": _homes(world), "report-json": ["--format", "json"]}.get(name, [])
    return [name.removesuffix("-json"), "-p", str(world.webapp), *extra]


@pytest.fixture
def staged(world: World, monkeypatch: pytest.MonkeyPatch) -> ProjectState:
    """The world after one night staged a proposal (nothing adopted)."""
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    night = _cli(*_command(world, "run"), "--json")
    assert night.exit_code == 0, night.output
    assert json.loads(night.stdout)["outcome"] == "staged"
    return ProjectState(world.webapp)


def _live(world: World) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(world.root.rglob("*")) if p.is_file()}


def _fails_cleanly(world: World, command: str) -> Result:
    """Run ``command`` and check it failed as a damaged file should, changing no live file."""
    before = _live(world)
    result = _cli(*_command(world, command))
    assert result.exit_code == EXIT_ERROR, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "error:" in result.stderr and "fix:" in result.stderr, result.output
    assert "Traceback" not in result.output
    assert _live(world) == before
    return result


def _not_utf8_line(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(b"\xff\n")


def _directory(path: Path) -> None:
    if path.is_file():
        path.unlink()
    path.mkdir()


def _array(path: Path) -> None:
    path.write_text("[1]\n")


def _report(state: ProjectState) -> Path:
    return state.proposals()[-1] / "report.json"


@pytest.mark.parametrize("command", ["status", "run"])
@pytest.mark.parametrize("damage", [_not_utf8_line, _directory])
def test_a_damaged_history_is_named(
    world: World, staged: ProjectState, damage: Callable[[Path], None], command: str
) -> None:
    damage(staged.history_path)
    result = _fails_cleanly(world, command)
    assert "history.jsonl is damaged" in result.stderr and "aside" in result.stderr


@pytest.mark.parametrize("command", ["rollback", "run"])
@pytest.mark.parametrize("damage", [_not_utf8_line, _directory])
def test_a_damaged_journal_is_named(
    world: World, staged: ProjectState, damage: Callable[[Path], None], command: str
) -> None:
    assert _cli(*_command(world, "adopt")).exit_code == 0
    damage(staged.journal_path)
    result = _fails_cleanly(world, command)
    assert "journal.jsonl is damaged" in result.stderr and "aside" in result.stderr


@pytest.mark.parametrize("command", ["status", "proposals", "report-json"])
def test_a_report_of_the_wrong_type_is_named(
    world: World, staged: ProjectState, command: str
) -> None:
    _array(_report(staged))
    result = _fails_cleanly(world, command)
    assert "report.json is damaged" in result.stderr and "JSON array" in result.stderr


@pytest.mark.parametrize("name", ["report.json", "report.md"])
def test_a_report_that_is_not_utf8_is_named(world: World, staged: ProjectState, name: str) -> None:
    (_report(staged).with_name(name)).write_bytes(b"\xff{}\n")
    result = _fails_cleanly(world, "report-json" if name.endswith("json") else "report")
    assert f"{name} is damaged" in result.stderr


@pytest.fixture
def fresh(world: World, monkeypatch: pytest.MonkeyPatch) -> ProjectState:
    """The world's state before its first night (which has sessions to read, unlike a second)."""
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    return ProjectState(world.webapp).ensure()


def test_a_project_marker_of_the_wrong_type_is_named(world: World, staged: ProjectState) -> None:
    _array(staged.root / "project.json")
    result = _fails_cleanly(world, "adopt")
    assert "project.json is damaged" in result.stderr and "JSON object" in result.stderr


@pytest.mark.parametrize("name", ["project.json", "optimizer.json"])
def test_a_night_names_a_state_file_of_the_wrong_type(
    world: World, fresh: ProjectState, name: str
) -> None:
    _array(fresh.root / name)
    result = _fails_cleanly(world, "run")
    assert f"{name} is damaged" in result.stderr and "JSON object" in result.stderr


def test_a_directory_in_place_of_a_state_file_is_damage_not_permissions(
    world: World, fresh: ProjectState
) -> None:
    _directory(fresh.optimizer_path)
    result = _fails_cleanly(world, "run")
    assert "optimizer.json is damaged" in result.stderr and "permissions" not in result.stderr


def test_report_json_escapes_a_bidi_override(world: World, staged: ProjectState) -> None:
    """A U+202E from a request would reorder the terminal's line ("Trojan Source")."""
    fresh = _report(staged).read_bytes()
    assert fresh.isascii()
    report = json.loads(fresh)
    report["message"] = "fix the \u202etset nigol\u202c test\x9b"
    _report(staged).write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
    result = _cli(*_command(world, "report-json"))
    assert result.exit_code == 0, result.output
    assert not set(result.stdout) & {"\u202e", "\u202c", "\x9b"}
    assert json.loads(result.stdout)["message"] == report["message"]


def _user_config(world: World) -> Path:
    import os

    return Path(os.environ["SKILLOPT_SLEEP_CONFIG"])


def _project_config(world: World) -> Path:
    return world.webapp / ".skillopt-sleep" / "config.toml"


@pytest.mark.parametrize("command", ["config", "doctor", "status"])
@pytest.mark.parametrize("where", [_project_config, _user_config])
def test_a_config_that_is_not_utf8_is_reported_like_a_toml_error(
    world: World, where: Callable[[World], Path], command: str
) -> None:
    argv = ["config", "show"] if command == "config" else [command]
    argv += ["-p", str(world.webapp)]
    config = where(world)
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b'[night]\nsince = "\n')
    syntax = _cli(*argv)
    config.write_bytes(b'[night]\nsince = "\xff"\n')
    result = _cli(*argv)
    assert result.exit_code == syntax.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "is not valid TOML" in result.output and "line 2, column 10" in result.output
    assert "fix:" in result.output and "UTF-8" in result.output


def test_a_torn_last_line_is_ignored_and_cut_before_the_next_append(tmp_path: Path) -> None:
    """A kill in the middle of an append leaves a line without its newline: reads skip it, and
    the next append starts a line of its own instead of gluing onto the fragment."""
    path = tmp_path / "history.jsonl"
    append_line(path, {"n": 1})
    with path.open("ab") as handle:
        handle.write('{"n": 2, "note": "é'.encode()[:-1])
    assert read_lines(path) == [{"n": 1}]
    append_line(path, {"n": 3})
    assert read_lines(path) == [{"n": 1}, {"n": 3}]


def test_a_complete_line_that_is_not_an_object_is_damage(tmp_path: Path) -> None:
    from skillopt_core.errors import StorageError

    path = tmp_path / "journal.jsonl"
    append_line(path, {"n": 1})
    with path.open("a") as handle:
        handle.write("[1]\n")
    with pytest.raises(StorageError, match="damaged at line 2"):
        read_lines(path)
