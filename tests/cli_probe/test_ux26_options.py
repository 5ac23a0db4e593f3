"""Options spelt and checked the same across `skillopt-sleep` commands.

`harvest` and `mine` took ``--since`` but a night (`run`, `dry-run`, `schedule`, `daemon`) did
not ("No such option: --since"), although ``night.since`` is the same window; and `config show`
with a misspelt ``-p`` showed the defaults as that project's settings, exit 0, where every other
command that reads a project's state says it is not a directory (exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from tests._guard import StandIns


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_config_show_refuses_a_missing_project(tmp_path: Path) -> None:
    code, out, err = _invoke("config", "show", "-p", str(tmp_path / "no-such-project"))
    assert code == 2 and not out
    assert "is not a directory" in err and "fix: pass the project's folder" in err


@pytest.mark.parametrize("command", ["run", "dry-run"])
def test_a_night_reads_the_since_window(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    def night(root: Path, config: Any, **_: Any) -> Any:
        seen.append(config.night.since)
        raise KeyboardInterrupt  # stop here: the window is what is checked

    monkeypatch.setattr("skillopt_sleep.engine.run_night", night)
    code, _, err = _invoke(command, "-p", str(tmp_path), "--since", "7d")
    assert seen == ["7d"], err
    assert code == 130


@pytest.mark.parametrize("command", ["run", "dry-run", "schedule", "daemon"])
def test_a_bad_since_is_a_usage_error_naming_it(command: str, tmp_path: Path) -> None:
    code, out, err = _invoke(command, "-p", str(tmp_path), "--since", "soon")
    assert code == 2 and not out
    assert "--since" in err and "not a duration" in err


def test_schedule_keeps_the_since_window(tmp_path: Path, fake_scheduler: StandIns) -> None:
    code, out, err = _invoke("schedule", "-p", str(tmp_path), "--since", "14d", "--dry-run")
    assert code == 0, err
    assert "--since 14d" in out


def test_dry_run_is_spelt_the_same_everywhere() -> None:
    """`schedule` listed ``--print,--dry-run`` in its help; `install` and `uninstall` say
    ``--dry-run``, as the README spells it for `schedule` too."""
    from typer.main import get_command

    root = get_command(app)
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            if "--dry-run" in param.opts:
                assert param.opts[0] == "--dry-run", name


def test_mine_takes_source_as_harvest_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`harvest`, `run` and `schedule` take ``-s/--source``; `mine` said "No such option"."""
    from types import SimpleNamespace

    seen: list[Any] = []

    def preview(*_: Any, sources: Any, **__: Any) -> Any:
        seen.append(sources)
        return SimpleNamespace(tasks=(), families=(), embedder_name="x", stats={})

    monkeypatch.setattr("skillopt_sleep.engine.preview_families", preview)
    code, _, err = _invoke("mine", "-p", str(tmp_path), "-s", "claude,codex", "--json")
    assert code == 0, err
    assert seen == [["claude", "codex"]]
    code, _, err = _invoke("mine", "-p", str(tmp_path), "--source", "nope")
    assert code == 2 and "unknown source 'nope'" in err


@pytest.mark.parametrize(
    ("word", "meant"),
    [("status", "skillopt-sleep status"), ("remove", "skillopt-sleep unschedule")],
)
def test_a_schedule_subcommand_names_the_command_meant(
    word: str, meant: str, tmp_path: Path, fake_scheduler: StandIns
) -> None:
    """`schedule status` said only "Got unexpected extra argument(s) (status)"."""
    code, out, err = _invoke("schedule", word, "-p", str(tmp_path))
    assert code == 2 and not out
    assert err.startswith("error: `schedule` takes no argument") and meant in err
    assert not fake_scheduler.crontab.exists()  # nothing was installed
