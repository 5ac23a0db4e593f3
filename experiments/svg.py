"""Two small SVG charts (lines over nights, bars with intervals), so plots need no plotting library."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 56, 150, 36, 48
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f")


def _frame(title: str, y_label: str) -> list[str]:
    plot_h = HEIGHT - TOP - BOTTOM
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
        f'<text x="14" y="{TOP + plot_h / 2}" transform="rotate(-90 14 {TOP + plot_h / 2})" '
        f'text-anchor="middle">{escape(y_label)}</text>',
    ]
    for tick in range(0, 101, 25):
        y = TOP + plot_h * (1 - tick / 100)
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}%</text>'
        )
    return out


def _y(value: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - max(0.0, min(1.0, value)))


def line_chart(
    title: str, series: Mapping[str, Sequence[float]], x_labels: Sequence[str], y_label: str
) -> str:
    """One line per series (values in [0, 1]) over the same x positions."""
    out = _frame(title, y_label)
    span = WIDTH - LEFT - RIGHT
    step = span / max(1, len(x_labels) - 1)
    for i, label in enumerate(x_labels):
        out.append(
            f'<text x="{LEFT + i * step:.1f}" y="{HEIGHT - BOTTOM + 18}" '
            f'text-anchor="middle">{escape(label)}</text>'
        )
    for n, (name, values) in enumerate(series.items()):
        colour = COLOURS[n % len(COLOURS)]
        points = " ".join(f"{LEFT + i * step:.1f},{_y(v):.1f}" for i, v in enumerate(values))
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        for i, v in enumerate(values):
            out.append(
                f'<circle cx="{LEFT + i * step:.1f}" cy="{_y(v):.1f}" r="3" fill="{colour}"/>'
            )
        y = TOP + 16 * n
        out.append(
            f'<rect x="{WIDTH - RIGHT + 12}" y="{y}" width="12" height="3" fill="{colour}"/>'
            f'<text x="{WIDTH - RIGHT + 30}" y="{y + 5}">{escape(name)}</text>'
        )
    return "\n".join([*out, "</svg>\n"])


def bar_chart(title: str, bars: Sequence[tuple[str, float, float, float]], y_label: str) -> str:
    """Bars of (label, value, interval low, interval high), values in [0, 1]."""
    out = _frame(title, y_label)
    span = WIDTH - LEFT - 16
    width = span / max(1, len(bars))
    for i, (label, value, low, high) in enumerate(bars):
        x = LEFT + i * width + width * 0.15
        w = width * 0.7
        colour = COLOURS[0] if i == 0 else COLOURS[7]
        out.append(
            f'<rect x="{x:.1f}" y="{_y(value):.1f}" width="{w:.1f}" '
            f'height="{_y(0) - _y(value):.1f}" fill="{colour}"/>'
        )
        mid = x + w / 2
        out.append(
            f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{_y(low):.1f}" y2="{_y(high):.1f}" '
            f'stroke="black"/>'
        )
        out.append(
            f'<text x="{mid:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">'
            f"{escape(label)}</text>"
            f'<text x="{mid:.1f}" y="{_y(value) - 6:.1f}" text-anchor="middle">'
            f"{value * 100:.0f}%</text>"
        )
    return "\n".join([*out, "</svg>\n"])
