"""Inline SVG line charts for the HTML report: no scripts, no fonts, no network.

A chart is drawn on a fixed ``viewBox`` and scaled by CSS to the page width, so the same markup
works at desktop and phone widths. Scores live in [0, 1], so the y axis is fixed at 0–100%:
a reader comparing two nights' charts must not be fooled by a rescaled axis. The x axis is
categorical (steps, nights) with one slot per point, so a single point sits in the middle and
many points thin out their labels instead of overlapping. A chart with nothing to show still
renders its frame and says why, so "every chart is present" holds on any night.

Colours come from CSS classes (``s-train``, ``s-current``...) defined by the page, so the
dark-mode palette applies to the charts too. Every label is HTML-escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 560, 270
LEFT, RIGHT, TOP, BOTTOM = 48, 14, 14, 48
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
LABEL_Y = TOP + PLOT_H + 16  # baseline of the x-axis labels
CHAR_W = 8.5  # rough width of an axis-label character in viewBox units, for label thinning


@dataclass(frozen=True)
class Series:
    """One line (or set of markers) on a chart; ``values`` has one entry per x slot."""

    label: str
    css: str  # the page's class for this series' colour
    values: Sequence[float | None]
    line: bool = True
    marks: Sequence[str] = ()  # per point: "" (plain dot), "accepted" or "rejected"
    notes: Sequence[str] = ()  # per point: extra words for the hover title


def _x(index: int, slots: int) -> float:
    return LEFT + (index + 0.5) * PLOT_W / slots


def _y(value: float) -> float:
    return TOP + (1.0 - min(1.0, max(0.0, value))) * PLOT_H


def _num(value: float) -> str:
    return f"{value:.1f}"


def _frame(x_title: str) -> list[str]:
    parts = [f'<rect class="plot" x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}"/>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _num(_y(tick))
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{LEFT + PLOT_W}" y1="{y}" y2="{y}"/>')
        parts.append(
            f'<text class="tick" x="{LEFT - 6}" y="{y}" text-anchor="end" '
            f'dominant-baseline="middle">{int(tick * 100)}%</text>'
        )
    parts.append(
        f'<text class="axis-title" x="{LEFT + PLOT_W / 2:.1f}" y="{HEIGHT - 6}" '
        f'text-anchor="middle">{escape(x_title)}</text>'
    )
    return parts


def _x_labels(labels: Sequence[str], bold: int | None) -> list[str]:
    """Evenly thinned labels, placed from the right so the newest point always keeps its own.

    A label that would poke out of the picture is anchored to the edge instead of centred, and
    any label that would then overlap its right-hand neighbour is dropped.
    """
    slots = len(labels)
    widest = max((len(label) for label in labels), default=1)
    fit = max(1, int(PLOT_W // (widest * CHAR_W + 10)))
    every = max(1, math.ceil(slots / fit))
    parts = []
    free_right = math.inf  # where the labels already placed to the right begin
    for index in range(slots - 1, -1, -1):
        if (slots - 1 - index) % every:
            continue
        half = len(labels[index]) * CHAR_W / 2
        x, anchor = _x(index, slots), "middle"
        if x + half > WIDTH - 2:
            x, anchor = WIDTH - 2 - half, "end"
        elif x - half < 2:
            x, anchor = 2 + half, "start"
        if x + half + 6 > free_right:
            continue
        free_right = x - half
        text_x = {"middle": x, "end": x + half, "start": x - half}[anchor]
        css = "tick strong" if index == bold else "tick"
        parts.append(
            f'<text class="{css}" x="{text_x:.1f}" y="{LABEL_Y}" '
            f'text-anchor="{anchor}">{escape(labels[index])}</text>'
        )
    return parts[::-1]


def _series(series: Series, labels: Sequence[str], slots: int) -> list[str]:
    points = [(i, v) for i, v in enumerate(series.values) if v is not None and i < slots]
    parts = []
    if series.line and len(points) > 1:
        coords = " ".join(f"{_x(i, slots):.1f},{_y(v):.1f}" for i, v in points)
        parts.append(f'<polyline class="line {series.css}" points="{coords}"/>')
    radius = 4.0 if slots <= 30 else 2.5
    for i, value in points:
        mark = series.marks[i] if i < len(series.marks) else ""
        note = series.notes[i] if i < len(series.notes) else ""
        title = f"{labels[i]} · {series.label}: {value * 100:.1f}%" + (f" ({note})" if note else "")
        css = f"dot {series.css} {mark}".strip()
        parts.append(
            f'<circle class="{css}" cx="{_x(i, slots):.1f}" cy="{_y(value):.1f}" r="{radius}">'
            f"<title>{escape(title)}</title></circle>"
        )
    return parts


def line_chart(
    *,
    chart_id: str,
    title: str,
    x_title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    empty: str,
    bold: int | None = None,
) -> str:
    """An ``<svg class="chart">`` with a y axis of 0–100% and one slot per label.

    ``empty`` is the sentence drawn in the frame when no series has a value to plot.
    """
    slots = len(labels)
    plotted = sum(1 for s in series for v in s.values[:slots] if v is not None)
    desc = f"{plotted} point(s) over {slots} {x_title.lower()} slot(s)" if plotted else empty
    parts = [
        f'<svg class="chart" id="{escape(chart_id)}" data-points="{plotted}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'aria-labelledby="{escape(chart_id)}-t {escape(chart_id)}-d">',
        f'<title id="{escape(chart_id)}-t">{escape(title)}</title>',
        f'<desc id="{escape(chart_id)}-d">{escape(desc)}</desc>',
        *_frame(x_title),
    ]
    if plotted:
        parts.extend(_x_labels(labels, bold))
        for one in series:
            parts.extend(_series(one, labels, slots))
    else:
        parts.append(
            f'<text class="empty" x="{LEFT + PLOT_W / 2:.1f}" y="{TOP + PLOT_H / 2:.1f}" '
            f'text-anchor="middle" dominant-baseline="middle">{escape(empty)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def legend(entries: Sequence[tuple[str, str]]) -> str:
    """HTML (not SVG) legend, so its text stays readable when the chart shrinks on a phone."""
    items = "".join(
        f'<li><span class="key {escape(css)}" aria-hidden="true"></span>{escape(label)}</li>'
        for css, label in entries
    )
    return f'<ul class="legend">{items}</ul>'
