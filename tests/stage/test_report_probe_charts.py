"""The held-out chart across nights names each night once: two nights started in the same
second (ids ``…-031700`` and ``…-031700-2``) are two points with two labels."""

from __future__ import annotations

import re
from dataclasses import replace

from skillopt_sleep.stage import _text as t
from skillopt_sleep.stage.report import render_html
from tests.stage.reports import DIFF, staged_night


def test_a_second_night_in_the_same_second_has_its_own_label() -> None:
    assert t.night_label("20261127-031700") == "11-27 03:17"
    assert t.night_label("20261127-031700-2") == "11-27 03:17 #2"
    assert t.night_label("not-a-night-id-at-all") == "not-a-night-i…"


def test_the_nights_chart_labels_and_titles_tell_the_two_nights_apart() -> None:
    night = staged_night()
    history = (
        {"night_id": "20261122-031700", "held_out_before": 0.4, "held_out_after": 0.5},
        {"night_id": "20261123-031700", "held_out_before": 0.5, "held_out_after": 0.55},
    )
    report = replace(night, night_id="20261123-031700-2", history=history)
    chart = re.search(
        r'<svg class="chart" id="chart-nights".*?</svg>', render_html(report, DIFF), re.S
    )
    assert chart is not None
    titles = re.findall(r"<title>([^<·]*?) · after", chart[0])
    assert titles == ["11-22 03:17", "11-23 03:17", "11-23 03:17 #2"]
