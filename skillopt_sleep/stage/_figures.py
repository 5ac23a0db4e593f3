"""The report's two charts as HTML figures: score across tonight's steps, held-out across nights.

Each figure is a caption, the inline SVG (:mod:`._charts`), an HTML legend and, for the steps, a
collapsed table of the same numbers, so a reader on a small screen or with a screen reader gets
every value without reading it off the plot. A file's chart and table show its first
:data:`._bounds.STEPS` steps and say how many more ``report.json`` has.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from skillopt_sleep.stage import _bounds as b
from skillopt_sleep.stage import _text as t
from skillopt_sleep.stage._charts import Series, legend, line_chart

if TYPE_CHECKING:
    from skillopt_sleep.engine.records import NightReport, SkillChange


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _steps_figure(index: int, change: SkillChange | None, whole: str) -> str:
    """``change``'s first steps charted and tabulated; ``whole`` names the file with them all."""
    every = t.step_rows(change.steps) if change is not None else []
    rows = b.first_steps(every)
    labels = [f"step {r.step}" for r in rows]
    marks = ["accepted" if r.accepted else "rejected" for r in rows]
    notes = [r.decision for r in rows]
    name = t.skill_label(change.path) if change is not None else "no file changed"
    svg = line_chart(
        chart_id=f"chart-steps-{index}",
        title=f"Score across tonight's steps: {name}",
        x_title="Step",
        labels=labels,
        series=[
            Series("training batch", "s-train", [r.train for r in rows]),
            Series("validation, current skill", "s-current", [r.current for r in rows]),
            Series(
                "validation, candidate", "s-cand", [r.candidate for r in rows], False, marks, notes
            ),
        ],
        empty="no optimizer steps tonight",
    )
    keys = legend(
        [
            ("s-train", "training batch"),
            ("s-current", "validation, current skill"),
            ("s-cand accepted", "candidate accepted"),
            ("s-cand rejected", "candidate rejected"),
        ]
    )
    table = ""
    if rows:
        body = "".join(
            f'<tr><td class="num">{r.step}</td><td class="num">{_e(t.pct(r.train))}</td>'
            f'<td class="num">{_e(t.pct(r.current))}</td>'
            f'<td class="num">{_e(t.pct(r.candidate))}</td><td>{_e(r.decision or "—")}</td></tr>'
            for r in rows
        )
        table = (
            '<details><summary>Numbers</summary><div class="table-wrap"><table><thead><tr>'
            "<th>Step</th><th>Train</th><th>Current</th><th>Candidate</th><th>Decision</th>"
            f"</tr></thead><tbody>{body}</tbody></table></div></details>"
        )
    cut = ""
    if len(every) > len(rows):
        cut = f'<p class="muted">{_e(t.steps_cut(len(every) - len(rows)))} <code>{_e(whole)}</code>.</p>'
    return (
        f'<figure class="chart-box"><figcaption>Score across tonight\'s steps · '
        f'<span title="{_e(change.path if change else "")}">{_e(name)}</span></figcaption>'
        f"{svg}{keys}{table}{cut}</figure>"
    )


def _nights_figure(report: NightReport) -> str:
    points = t.night_points(report)
    labels = [t.night_label(p.night_id) for p in points]
    svg = line_chart(
        chart_id="chart-nights",
        title="Held-out score across nights",
        x_title="Night",
        labels=labels,
        series=[
            Series("before", "s-before", [p.before for p in points]),
            Series("after", "s-after", [p.after for p in points]),
        ],
        empty="no held-out tasks yet",
        bold=len(points) - 1,
    )
    keys = legend([("s-before", "before the night's edits"), ("s-after", "after")])
    return (
        '<figure class="chart-box"><figcaption>Held-out score across nights '
        f'<span class="muted">(last label: tonight)</span></figcaption>{svg}{keys}</figure>'
    )


def charts_section(report: NightReport) -> str:
    """One steps chart per changed file (an empty one when none changed), then the nights."""
    changes: Sequence[SkillChange | None] = report.changes or (None,)
    whole = b.beside(report, b.JSON_FILE)
    figures = [_steps_figure(i, c, whole) for i, c in enumerate(changes)]
    figures.append(_nights_figure(report))
    return f'<section id="charts"><h2>Charts</h2><div class="charts">{"".join(figures)}</div></section>'
