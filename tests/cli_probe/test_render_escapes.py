"""The terminal summaries show user- and model-written text as written: a terminal escape in a
night's message, an edit or a path was printed raw (it could retitle the window or clear the
screen), since only Rich markup was escaped there."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skillopt_sleep.cli._render import night_summary, proposals_table
from tests.stage.reports import staged_night

HOSTILE = "\x1b]0;PWNED\x07\x1b[2J[/b]"


def test_a_night_summary_escapes_terminal_sequences(capsys: pytest.CaptureFixture[str]) -> None:
    night = staged_night()
    edits = tuple(replace(e, content=HOSTILE, op=HOSTILE) for e in night.edits)
    night_summary(replace(night, message=HOSTILE, edits=edits, proposal_dir=f"/tmp/{HOSTILE}"))
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b]0;PWNED\\x07" in shown and "[/b]" in shown


def test_a_proposals_table_escapes_terminal_sequences(capsys: pytest.CaptureFixture[str]) -> None:
    class Row:
        id, state, accepted_edits, verdict = "20261127-031700", HOSTILE, 1, HOSTILE
        files = (HOSTILE,)

    proposals_table([Row()])
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\\x1b" in shown


@pytest.mark.parametrize("columns", ["40", "100"])
def test_status_keeps_every_night_figure_at_any_width(
    columns: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 40 columns the Last nights table cropped every column but the id to "…"."""
    from types import SimpleNamespace

    from skillopt_sleep.cli._render import status_table

    monkeypatch.setenv("COLUMNS", columns)
    night = SimpleNamespace(night_id="20261127-031700", outcome="staged", sessions=12, tasks=3,
                            accepted_edits=2, held_out_before=0.5, held_out_after=0.75,
                            cost_usd=0.0123)  # fmt: skip
    status = SimpleNamespace(project="/p", state_dir="/s", running=None, nights=[night],
                             ended_since_last_night=0, pending=[], schedule={},
                             backends={"optimizer": "mock"}, health={}, archive={})  # fmt: skip
    status_table(status)
    flat = " ".join(capsys.readouterr().out.split())
    for figure in ("20261127-031700", "staged", "12", "0.50->0.75", "$0.0123"):
        assert figure in flat
    assert "…" not in flat


def test_status_says_when_the_shells_clock_shows_the_run_at_another_hour(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``status --json`` had the note; the terminal table dropped it (the README says both say
    so when your shell's clock differs)."""
    from types import SimpleNamespace

    from skillopt_sleep.cli._render import status_table

    note = "03:17 is Etc/UTC time (the scheduler's clock); your shell's clock shows 04:17 then"
    schedule = {"installed": True, "time": "03:17 Etc/UTC", "next_run": "2026-11-29T03:17:00Z",
                "zone_note": note}  # fmt: skip
    status = SimpleNamespace(project="/p", state_dir="/s", running=None, nights=[],
                             ended_since_last_night=0, pending=[], schedule=schedule,
                             backends={}, health={}, archive={})  # fmt: skip
    status_table(status)
    assert note in " ".join(capsys.readouterr().out.split())
