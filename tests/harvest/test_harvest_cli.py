"""`skillopt-sleep harvest`: summary table, --json, --output, and a preview that does not consume."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from skillopt_sleep.cli import app


def _args(homes: dict[str, Path], *extra: str) -> list[str]:
    return [
        "harvest",
        "--project",
        "/home/dev/webapp",
        "--claude-home",
        str(homes["claude"]),
        "--codex-home",
        str(homes["codex"]),
        "--source",
        "claude",
        "--source",
        "codex",
        *extra,
    ]


def test_summary_json_and_output(homes: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, _args(homes))
    assert shown.exit_code == 0, shown.output
    assert "claude" in shown.output and "codex" in shown.output
    out = tmp_path / "sessions.json"
    listed = runner.invoke(app, [*_args(homes, "--json", "--output", str(out))])
    assert listed.exit_code == 0
    sessions = json.loads(out.read_text())
    assert len(sessions) == 8
    assert {s["harness"] for s in sessions} == {"claude", "codex"}
    assert all(s["started_at"].endswith("Z") for s in sessions)


def test_preview_does_not_advance_the_index_unless_committed(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    runner = CliRunner()
    state = ["--state-dir", str(tmp_path / "state")]
    out = tmp_path / "s.json"
    for _ in range(2):
        assert runner.invoke(app, _args(homes, *state, "--output", str(out))).exit_code == 0
        assert len(json.loads(out.read_text())) == 8
    assert runner.invoke(app, _args(homes, *state, "--commit", "--output", str(out))).exit_code == 0
    assert runner.invoke(app, _args(homes, *state, "--output", str(out))).exit_code == 0
    assert json.loads(out.read_text()) == []


def test_bad_source_and_since_are_usage_errors(homes: dict[str, Path]) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["harvest", "--source", "cursor"]).exit_code == 2
    assert runner.invoke(app, ["harvest", "--since", "soon"]).exit_code == 2


def test_vscode_home_option(tmp_path: Path) -> None:
    from harvest._copilot import vscode_home

    out = tmp_path / "s.json"
    args = ["harvest", "--project", "/home/dev/webapp", "--source", "copilot"]
    args += ["--copilot-home", str(tmp_path / "none"), "--vscode-home", str(vscode_home(tmp_path))]
    shown = CliRunner().invoke(app, [*args, "--state-dir", str(tmp_path / "st"), "-o", str(out)])
    assert shown.exit_code == 0, shown.output
    sessions = json.loads(out.read_text())
    assert sessions and all(Path(s["source_files"][0]).name != "events.jsonl" for s in sessions)


def test_source_takes_a_comma_list_and_vscode_as_run_does(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    """`--source claude,codex` is what `run` takes: harvest reads it the same way (it was an
    "unknown source 'claude,codex'" usage error), and `vscode` names a source here too."""
    runner = CliRunner()
    out = tmp_path / "s.json"
    args = ["harvest", "--project", "/home/dev/webapp", "--claude-home", str(homes["claude"])]
    args += ["--codex-home", str(homes["codex"]), "--state-dir", str(tmp_path / "st")]
    listed = runner.invoke(app, [*args, "--source", "claude,codex", "--output", str(out)])
    assert listed.exit_code == 0, listed.output
    assert {s["harness"] for s in json.loads(out.read_text())} == {"claude", "codex"}
    only = runner.invoke(app, [*args, "--source", " codex, ", "--output", str(out)])
    assert only.exit_code == 0, only.output
    assert {s["harness"] for s in json.loads(out.read_text())} == {"codex"}
    vscode = tmp_path / "no-vscode"
    shown = runner.invoke(
        app, [*args, "-s", "vscode", "--vscode-home", str(vscode), "-o", str(out)]
    )
    assert shown.exit_code == 0, shown.output
    assert runner.invoke(app, [*args, "--source", ","]).exit_code == 2


def test_the_summary_fits_80_columns_without_cutting_names(
    homes: dict[str, Path], tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """In a pipe or a log (80 columns) the table cut headers and names: "harne…", "copil…"."""
    monkeypatch.setenv("COLUMNS", "80")
    args = ["harvest", "--project", "/home/dev/webapp", "--claude-home", str(homes["claude"])]
    args += ["--codex-home", str(homes["codex"]), "--copilot-home", str(tmp_path / "none")]
    shown = CliRunner().invoke(app, [*args, "--state-dir", str(tmp_path / "st")])
    assert shown.exit_code == 0, shown.output
    table = shown.output.split("Harvest summary")[1]
    assert "…" not in table and "copilot" in table and "harness" in table
    assert max(len(line) for line in table.splitlines()) <= 80
