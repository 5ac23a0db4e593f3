"""Odd inputs and environments: --since edges, Rich markup in requests, an ASCII-only locale."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from faults._cli import home_args, sleep_cli
from faults._sessions import PROJECT, write_session
from skillopt_core.errors import EXIT_USAGE, UsageError
from skillopt_sleep.cli import app
from skillopt_sleep.harvest import harvest, parse_since


def test_since_zero_is_an_empty_window_not_no_window(tmp_path: Path) -> None:
    assert parse_since("0d") == timedelta(0)
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix the login test"])
    kwargs = {"index": ":memory:", "homes": {"claude": home}}
    assert harvest(PROJECT, ("claude",), "0d", **kwargs).sessions == ()  # type: ignore[arg-type]
    assert len(harvest(PROJECT, ("claude",), None, **kwargs).sessions) == 1  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["99999999999d", "1e400d", "seven days"])
def test_an_impossible_since_is_a_usage_error(value: str) -> None:
    with pytest.raises(UsageError):
        parse_since(value)
    result = CliRunner().invoke(app, ["harvest", "-p", PROJECT, "--since", value])
    assert result.exit_code == EXIT_USAGE
    assert "--since" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


MARKUP = ["[/INST] fix the login test [/b]", "[/INST] fix the login test [/b] again", "[bold"]


def test_rich_markup_in_requests_does_not_crash_mine(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    write_session(home, "s1", MARKUP[:1])
    write_session(home, "s2", MARKUP[1:])
    args = ["mine", "-p", PROJECT, "--claude-home", str(home), "--embedder", "jaccard",
            "--archive", str(tmp_path / "archive.sqlite3")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "[/INST]" in result.output


def test_rich_markup_in_reasons_does_not_crash_harvest(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix it"])
    odd = home / "projects" / "-home-dev-webapp" / "[red]oops.jsonl"
    odd.symlink_to(odd)  # reported by name, and the name is markup
    result = CliRunner().invoke(app, ["harvest", "-p", PROJECT, "--claude-home", str(home)])
    assert result.exit_code == 0, result.output
    assert "[red]oops.jsonl" in result.output  # shown as written


ASCII_LOCALE = {"PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "LC_ALL": "C", "LANG": "C"}


@pytest.mark.parametrize("as_json", [False, True])
def test_harvest_survives_an_ascii_locale(tmp_path: Path, as_json: bool) -> None:
    home = tmp_path / ".claude"
    write_session(home, "s1", ["r\u00e9pare le test \u2014 \u65e5\u672c \U0001f600"])
    (home / "projects" / "-home-dev-webapp" / "caf\u00e9\u2014.jsonl").symlink_to("nowhere-\u00e9")
    args = ["harvest", "-p", PROJECT, *home_args({"claude": home}), "--state-dir",
            str(tmp_path / "state"), *(["--json"] if as_json else [])]  # fmt: skip
    result = sleep_cli(args, ASCII_LOCALE)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    if as_json:
        (session,) = json.loads(result.stdout)
        assert session["turns"][0]["text"].startswith("r\u00e9pare")  # JSON is UTF-8 bytes


def test_a_damaged_embedding_model_is_a_clear_error(tmp_path: Path) -> None:
    import shutil

    from skillopt_sleep.mine.embed.minilm_numpy import SHIPPED

    damaged = tmp_path / "model"
    shutil.copytree(SHIPPED, damaged)
    with open(damaged / "model.safetensors", "r+b") as weights:
        weights.truncate(1_000_000)  # an interrupted download or a full disk at install time
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix the login test"])
    write_session(home, "s2", ["fix the login test again"])
    args = ["mine", "-p", PROJECT, "--claude-home", str(home), "--embedder", "minilm-numpy",
            "--model", str(damaged), "--archive", str(tmp_path / "archive.sqlite3")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "cannot load the embedding model" in result.output
    assert "--embedder static" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
