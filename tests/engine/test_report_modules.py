"""The night report's engine modules stay small: ``reporting.py`` (394 lines) was split into
private ``_report_*`` modules with one job each, and every name the night, the finisher and the
tests import from ``skillopt_sleep.engine.reporting`` is still importable from there."""

from __future__ import annotations

from pathlib import Path

import pytest

import skillopt_sleep.engine as engine

MAX_LINES = 300
ENGINE = Path(engine.__file__).parent

PUBLIC = (
    "Basics",
    "base_text",
    "family_views",
    "full_night",
    "held_out",
    "history",
    "mark_adopted",
    "new_file_text",
    "nothing_to_replay",
    "quiet_night",
    "stage_report",
    "stopped_night",
    "summary_line",
    "with_notes",
    "withheld_notes",
)


def _report_modules() -> list[Path]:
    return sorted(
        [ENGINE / "reporting.py", ENGINE / "report_view.py", *ENGINE.glob("_report_*.py")]
    )


@pytest.mark.parametrize("path", _report_modules(), ids=lambda p: p.name)
def test_no_report_module_is_over_the_line_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines"


def test_reporting_was_split_into_private_modules() -> None:
    assert len(list(ENGINE.glob("_report_*.py"))) >= 2


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_is_importable_from_reporting(name: str) -> None:
    from skillopt_sleep.engine import reporting

    assert callable(getattr(reporting, name)) and name in reporting.__all__


def test_the_night_stages_through_the_name_tests_patch() -> None:
    """``night.py`` calls ``reporting.stage_report`` by attribute, so a patch there holds."""
    source = (ENGINE / "night.py").read_text(encoding="utf-8")
    assert "reporting.stage_report(" in source
