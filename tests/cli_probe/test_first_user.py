"""What a first-time user following the README met in `skillopt-sleep`: a misspelt project shown
as click's box (or, for `schedule`, with no fix), `mine` ignoring ``[mine]`` of the config,
`doctor --json` exiting 0 over a failed check, a silent `uninstall`, `report --json` ignoring
``--format`` and printing a bare path with ``--path``, paths cut in two in piped output, and the
`schedule` / `daemon` summaries broken mid-sentence in `--help`."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.cli._render import night_summary
from skillopt_sleep.install.doctor import Check
from tests._guard import StandIns

LONG = "Application Support/" + "a-folder-name-long-enough-to-pass-eighty-columns-" * 2


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def narrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped output at Rich's default width, as in a log."""
    monkeypatch.setenv("COLUMNS", "80")


@pytest.mark.parametrize(
    "command", [("status",), ("run",), ("report",), ("schedule", "--dry-run"), ("daemon",)]
)
def test_a_missing_project_is_an_error_with_its_fix(
    command: tuple[str, ...], tmp_path: Path, fake_scheduler: StandIns
) -> None:
    code, out, err = _invoke(*command, "-p", str(tmp_path / "no-such-project"))
    assert code == 2 and not out
    assert "error: project" in err and "is not a directory" in err, err
    assert "fix: pass the project's folder with -p/--project" in err, err
    assert "╭" not in err  # not click's boxed usage message


def test_mine_mines_as_the_configuration_says_unless_a_flag_says_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    def preview(*_: Any, mine_config: Any, **__: Any) -> Any:
        seen.append(mine_config)
        return SimpleNamespace(tasks=(), families=(), embedder_name="x", stats={})

    monkeypatch.setattr("skillopt_sleep.engine.preview_families", preview)
    (tmp_path / ".skillopt-sleep").mkdir()
    (tmp_path / ".skillopt-sleep" / "config.toml").write_text(
        '[mine]\nembedder = "jaccard"\nmin_family_size = 3\nconfirm_budget = 1\n'
    )
    code, out, err = _invoke("mine", "-p", str(tmp_path), "--json")
    assert code == 0, err
    assert json.loads(out) == []
    configured = seen.pop()
    assert (configured.embedder, configured.min_family_size) == ("jaccard", 3)
    assert configured.confirm_budget == 1
    code, _, err = _invoke("mine", "-p", str(tmp_path), "-e", "tfidf", "--min-family-size", "2")
    assert code == 0, err
    flagged = seen.pop()
    assert (flagged.embedder, flagged.min_family_size) == ("tfidf", 2)


def test_doctor_exits_1_on_a_failed_check_with_json_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = [Check("engine", "ok", "fine"), Check("project", "fail", "gone", "pass -p")]
    monkeypatch.setattr("skillopt_sleep.install.doctor.diagnose", lambda _: checks)
    code, out, _ = _invoke("doctor", "-p", str(tmp_path), "--json")
    assert code == 1
    assert [c["level"] for c in json.loads(out)] == ["ok", "fail"]
    code, out, _ = _invoke("doctor", "-p", str(tmp_path))
    assert code == 1 and "[FAIL] project: gone" in out


def test_uninstall_with_nothing_installed_says_so() -> None:
    code, out, err = _invoke("uninstall", "all")
    assert code == 0, err
    assert out.startswith("nothing to uninstall:") and "any harness" in out
    code, out, err = _invoke("uninstall", "codex", "--dry-run")
    assert code == 0 and "for codex" in out, err
    code, out, err = _invoke("uninstall", "all", "--json")
    assert code == 0 and json.loads(out) == [], err


def test_report_json_is_json_and_refuses_another_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def report_path(_: Path, proposal: str | None, kind: str) -> Path:
        return tmp_path / "staging" / "n1" / f"report.{kind}"

    monkeypatch.setattr("skillopt_sleep.engine.report_path", report_path)
    code, out, err = _invoke("report", "-p", str(tmp_path), "--json", "--format", "html")
    assert code == 2 and not out
    assert "error: --json prints report.json" in err and "fix:" in err, err
    code, out, err = _invoke("report", "-p", str(tmp_path), "--json", "--path")
    assert code == 0, err
    assert json.loads(out) == {"path": str(report_path(tmp_path, None, "json")), "format": "json"}
    code, out, err = _invoke("report", "-p", str(tmp_path), "--path", "--format", "html", "--json")
    assert code == 0 and json.loads(out)["path"].endswith("report.html"), err
    code, out, err = _invoke("report", "-p", str(tmp_path), "--path")
    assert code == 0 and out == f"{report_path(tmp_path, None, 'md')}\n", err


def test_status_and_config_show_print_paths_whole_in_piped_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_scheduler: StandIns, narrow: None
) -> None:
    state = tmp_path / LONG
    config = state / "config.toml"
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(state))
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(config))
    project = tmp_path / "project"
    project.mkdir()
    code, out, err = _invoke("status", "-p", str(project))
    assert code == 0, err
    assert any(str(state / "projects") in line for line in out.splitlines()), out
    code, out, err = _invoke("config", "show", "-p", str(project))
    assert code == 0, err
    assert f"user file: {config}\n" in out, out


def test_a_nights_summary_prints_the_staged_folder_and_commands_whole(
    tmp_path: Path, narrow: None, capsys: pytest.CaptureFixture[str]
) -> None:
    staged = tmp_path / LONG / "staging" / "20261127-031700"
    usage = SimpleNamespace(calls=3, input_tokens=10, output_tokens=5, cost_usd=0.0)
    change = SimpleNamespace(
        path=str(tmp_path / LONG / "SKILL.md"),
        val_before=0.0,
        val_after=1.0,
        val_tasks=2,
        gate_split="val",
        accepted_edits=1,
    )
    report = SimpleNamespace(
        night_id="20261127-031700",
        outcome="staged",
        message="1 edit(s) passed the gate",
        sessions=1,
        requests=1,
        tasks=1,
        families=(),
        usage=usage,
        changes=[change],
        held_out=None,
        edits=(),
        proposal="20261127-031700",
        proposal_dir=str(staged),
    )
    night_summary(report)
    lines = capsys.readouterr().out.splitlines()
    assert f"staged: {staged}" in lines
    assert any(line.startswith(f"  {change.path}: validation") for line in lines), lines
    review = "review: skillopt-sleep report 20261127-031700    adopt: skillopt-sleep adopt"
    assert any(line.startswith(review) for line in lines), lines


def test_every_command_summary_is_one_line_in_the_root_help() -> None:
    """Rich keeps a docstring's line breaks in the command list: a summary written over two lines
    showed broken mid-sentence there (`daemon`), whatever the terminal's width."""
    root = typer.main.get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    broken = [
        name
        for name, command in root.commands.items()
        if "\n" in inspect.cleandoc(command.help or "").split("\n\n")[0]
    ]
    assert not broken, broken


def test_adopt_force_with_nobody_to_answer_says_how_to_adopt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under cron or in a pipe it ended with click's bare "Aborted."."""
    adopted: list[Any] = []
    monkeypatch.setattr("skillopt_sleep.engine.three_way_diff", lambda *_: "--- live\n+++ staged")
    monkeypatch.setattr("skillopt_sleep.engine.adopt", lambda *a, **k: adopted.append(a))
    result = CliRunner().invoke(app, ["adopt", "-p", str(tmp_path), "--force"], input="")
    assert result.exit_code == 1 and not adopted
    assert "error: not adopted" in result.stderr and "fix:" in result.stderr
    assert "--yes" in result.stderr and "Aborted" not in result.output


def test_config_show_spells_values_as_a_config_file_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("SKILLOPT_SLEEP_BACKENDS_OPTIONS", "{timeout = 5}")
    code, out, err = _invoke("config", "show", "-p", str(tmp_path))
    assert code == 0, err
    cells = [line.split("│") for line in out.splitlines() if line.startswith("│")]
    shown = {row[1].strip(): row[2].strip() for row in cells}
    assert shown["night.auto_adopt"] == "false"
    assert shown["backends.optimizer"] == '"mock"'
    assert shown["night.sources"] == '["claude", "codex", "copilot"]'
    assert shown["backends.options"] == '{ "timeout" = 5 }'


@pytest.fixture
def daemon_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    """`daemon` returns at once if it ever gets as far as serving (a check it missed)."""
    from skillopt_sleep.schedule import daemon

    monkeypatch.setattr(daemon.Daemon, "serve", lambda self: 0)
    monkeypatch.setattr(daemon, "install_signal_handlers", lambda stop: None)


@pytest.mark.parametrize("command", ["run", "dry-run", "schedule", "daemon"])
def test_the_night_commands_spell_source_and_embedder_as_harvest_and_mine_do(
    command: str, tmp_path: Path, daemon_returns: None
) -> None:
    """`harvest -s` and `mine -e` worked, `run -s` was "No such option"."""
    code, _, err = _invoke(command, "-p", str(tmp_path), "-s", "nosuch")
    assert code == 2 and "unknown source 'nosuch'" in err, err
    code, _, err = _invoke(command, "-p", str(tmp_path), "-e", "nosuch")
    assert code == 2 and "unknown embedder 'nosuch'" in err, err
    root = typer.main.get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    helps = {p.name: getattr(p, "help", "") for p in root.commands[command].params}
    assert all("(overrides --backend)" in helps[role] for role in ("optimizer", "target"))


@pytest.mark.parametrize("command", [("schedule", "--dry-run"), ("daemon",)])
@pytest.mark.parametrize(
    ("flag", "said"),
    [
        (("--embedder", "nosuch"), "unknown embedder 'nosuch'"),
        (("--backend", "nosuch"), "unknown backend 'nosuch'"),
        (("--judge", "nosuch"), "unknown backend 'nosuch'"),
    ],
)
def test_a_misspelt_backend_or_embedder_is_refused_before_it_is_scheduled(
    command: tuple[str, ...],
    flag: tuple[str, str],
    said: str,
    tmp_path: Path,
    daemon_returns: None,
) -> None:
    """The entry was written, and failed with exit 2 into night.log every night."""
    code, out, err = _invoke(*command, "-p", str(tmp_path), *flag)
    assert code == 2 and not out, (out, err)
    assert f"error: {said}" in err, err
