"""report.json read back (``report <night>``) is checked field by field before it is rendered:
the renderers trust a step or a count to be a number."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skillopt_sleep.jsonable import dumps
from skillopt_sleep.stage.report import render_html, render_markdown
from skillopt_sleep.stage.report_json import night_report
from tests.stage.reports import quiet_night, staged_night


def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(dumps(staged_night()))
    return data


def test_a_written_report_reads_back_as_it_was() -> None:
    for night in (staged_night(), quiet_night()):
        assert night_report(json.loads(dumps(night))) == night


def test_a_later_versions_outcome_and_keys_still_read() -> None:
    data = {**_data(), "outcome": "paused", "added_later": 1}
    assert night_report(data).outcome == "paused"


@pytest.mark.parametrize(
    ("where", "key", "value"),
    [
        ("edits", "step", "<script>alert(1)</script>"),
        ("changes", "val_tasks", "<img src=x onerror=alert(2)>"),
        ("changes", "accepted_edits", True),
        ("families", "outcomes", [1, 2]),
        ("families", "size", "many"),
        ("families", "examples", "not a list"),
        ("changes", "steps", [1, 2]),
    ],
)
def test_a_record_field_of_the_wrong_type_is_refused(where: str, key: str, value: Any) -> None:
    data = _data()
    data[where][0][key] = value
    with pytest.raises(ValueError, match=key):
        night_report(data)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("sessions", "many"),
        ("usage", {"calls": "x"}),
        ("history", [["not", "a", "night"]]),
        ("stage_seconds", {"mine": "slow"}),
        ("dry_run", "no"),
    ],
)
def test_a_top_level_field_of_the_wrong_type_is_refused(key: str, value: Any) -> None:
    with pytest.raises(ValueError):
        night_report({**_data(), key: value})


def test_what_reads_back_renders() -> None:
    report = night_report(_data())
    assert "<script" not in render_html(report, "")
    assert render_markdown(report, "").startswith("# SkillOpt-Sleep night")
