"""A night's report for the user who decides whether to adopt it: Markdown and HTML.

    from skillopt_sleep.stage.report import render_markdown, render_html

Both take the :class:`~skillopt_sleep.engine.records.NightReport` (``report.json`` is that
record as JSON) and the proposal's unified diff, and say the same things in the same order:
what to decide; the held-out verdict with its paired bootstrap interval; the validation gate per
changed file (saying plainly when it had to use training tasks); charts (HTML) or tables
(Markdown) of the score across tonight's steps and the held-out score across nights; the task
families with example requests and how each is judged; the accepted and rejected edits with
their deltas; calls, tokens and cost; the diff.

Requests, edits and paths are user- or model-written: the HTML escapes every one of them, and
the Markdown escapes inline text and fences blocks with a fence longer than any backtick run in
them, so ``<script>``, a stray ``` or a ``|`` cannot change the report's structure. Control and
bidi-format characters in them are shown as escapes (:mod:`skillopt_sleep._display`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from skillopt_sleep._display import displayable
from skillopt_sleep.stage import _html
from skillopt_sleep.stage import _text as t

if TYPE_CHECKING:
    from skillopt_sleep.engine.records import EditView, NightReport

__all__ = ["render_html", "render_markdown", "with_note"]

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|#~!])")


def render_html(report: NightReport, diff: str) -> str:
    """A self-contained HTML page: inline CSS and SVG, no scripts, no network assets."""
    return displayable(_html.render(report, diff))


def with_note(text: str, kind: str, note: str) -> str:
    """A staged Markdown or HTML report with ``note`` (one line, escaped) first: in HTML at the
    top of the page's main part, so the page stays one well-formed document."""
    if kind == "html":
        import html

        banner = f'<p class="note"><strong>{html.escape(displayable(note))}</strong></p>'
        head, found, rest = text.partition("<main>")
        return f"{head}<main>{banner}{rest}" if found else f"{banner}\n{text}"
    return f"{_md(displayable(note))}\n\n{text}"


def _md(text: object) -> str:
    """Inline Markdown text: one line, every character that could start markup escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _code(text: object) -> str:
    """An inline code span (one line) that no backtick inside ``text`` can end early."""
    flat = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def _fence(text: str, info: str = "") -> str:
    """A fenced block that no backtick run inside ``text`` can close early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{info}\n{body}{fence}"


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _summary(report: NightReport) -> list[str]:
    mode = " (dry run)" if report.dry_run else ""
    return [
        f"# SkillOpt-Sleep night {_md(report.night_id)}{mode}",
        "",
        f"Project: {_code(report.project)}  ",
        f"Ran: {_md(t.ran(report.started_at, report.finished_at))}  ",
        f"Read: {t.plural(report.sessions, 'session')}, {t.plural(report.requests, 'request')}, "
        f"{t.plural(report.tasks, 'task')} · outcome: **{_md(report.outcome)}**",
        "",
        "## What to decide",
        "",
        _md(t.decision(report)).replace("\\`", "`"),  # our own command names, kept as code
        "",
        *([_md(report.message), ""] if report.message else []),
    ]


def _held_out(report: NightReport) -> list[str]:
    held = report.held_out
    lines = ["## Held-out tasks", "", t.held_out_sentence(held), ""]
    if held is not None:
        lines += _table(
            ["before", "after", "change", "95% interval", "tasks", "verdict"],
            [
                [
                    t.pct(held.before),
                    t.pct(held.after),
                    t.pts(held.after - held.before),
                    t.interval(held.ci_low, held.ci_high),
                    str(held.n),
                    f"**{held.verdict}**",
                ]
            ],
        )
        lines.append("")
    points = t.night_points(report)
    lines += ["### Held-out score across nights", ""]
    if all(p.before is None and p.after is None for p in points):
        lines += ["No held-out tasks yet.", ""]
    else:
        rows = [
            [_md(p.night_id) + (" (tonight)" if p.tonight else ""), t.pct(p.before), t.pct(p.after)]
            for p in points
        ]
        lines += [*_table(["night", "before", "after"], rows), ""]
    return lines


def _validation(report: NightReport) -> list[str]:
    lines = ["## Validation (the gate)", ""]
    if not report.changes:
        return [*lines, "No file changes tonight, so there is no validation score to compare.", ""]
    lines += ["An edit is kept only if it strictly improves the score on these tasks.", ""]
    rows = []
    for c in report.changes:
        name = _md(t.skill_label(c.path)) + (" (new file)" if c.created else "")
        gate = f"**{t.gate_note(c)}**" if c.gate_split == "train" else t.gate_note(c)
        rows.append(
            [
                name,
                c.kind,
                t.pct(c.val_before),
                t.pct(c.val_after),
                t.pts(c.val_after - c.val_before),
                str(c.val_tasks),
                gate,
            ]
        )
    lines += [
        *_table(["file", "kind", "before", "after", "change", "tasks", "gate"], rows),
        "",
    ]
    for c in report.changes:
        lines += [f"### Score across tonight's steps: {_md(t.skill_label(c.path))}", ""]
        link = f", a link to {_code(c.target)} (adopt writes there)" if c.target else ""
        lines.append(f"File: {_code(c.path)}{link}")
        lines.append("")
        steps = t.step_rows(c.steps)
        if not steps:
            lines += ["No optimizer steps recorded.", ""]
            continue
        rows = [
            [
                str(r.step),
                t.pct(r.train),
                t.pct(r.current),
                t.pct(r.candidate),
                "accepted" if r.accepted else _md(r.decision or "rejected"),
            ]
            for r in steps
        ]
        lines += [
            *_table(["step", "training batch", "val current", "val candidate", "decision"], rows),
            "",
        ]
    return lines


def _families(report: NightReport) -> list[str]:
    lines = [f"## Families tonight ({len(report.families)})", ""]
    if not report.families:
        return [*lines, "No recurring task families tonight.", ""]
    for f in report.families:
        new = f", {f.new_tonight} new tonight" if f.new_tonight else ""
        lines += [f"### {_md(f.id)} — {t.plural(f.size, 'request')}{new}", ""]
        lines.append(f"- Routed to: {_md(t.skill_label(f.skill))}")
        lines.append(f"- Judged by: {_md(f.judged_by or 'unknown')}")
        if f.outcomes:
            outcomes = ", ".join(f"{_md(k)} {_md(v)}" for k, v in sorted(f.outcomes.items()))
            lines.append(f"- Outcomes: {outcomes}")
        if f.checks:
            lines.append("- Checks:")
            lines.extend(f"  - {_code(c)}" for c in f.checks)
        if f.examples:
            lines.append("- Example requests:")
            lines.extend(f"  - {_md(t.one_line(x))}" for x in f.examples)
        lines.append("")
    return lines


def _edit(number: int, edit: EditView) -> list[str]:
    flags = " · **harmful**" if edit.harmful else ""
    lines = [
        f"{number}. **{_md(edit.op)}** in {_md(t.skill_label(edit.skill))} · step {edit.step} · "
        f"{t.pts(edit.delta)}{flags}",
        "",
    ]
    for label, text in (("Anchor", edit.anchor), ("Content", edit.content)):
        if text:
            lines += [f"   {label}:", "", _indent(_fence(text, "text")), ""]
    if edit.rationale:
        lines += [f"   Why: {_md(edit.rationale)}", ""]
    return lines


def _indent(block: str) -> str:
    """Indent a fenced block under a numbered list item (so it stays inside the item)."""
    return "\n".join("   " + line if line else line for line in block.split("\n"))


def _edits(report: NightReport) -> list[str]:
    lines = ["## Edits", ""]
    for title, group in (("Accepted", report.accepted), ("Rejected", report.rejected)):
        lines += [f"### {title} ({len(group)})", ""]
        if not group:
            lines += [f"No edit was {title.lower()} tonight.", ""]
        for number, edit in enumerate(group, 1):
            lines += _edit(number, edit)
    lines += [
        "Deltas are the gate metric: candidate minus current skill on the gate's tasks. "
        "Rejected edits are remembered and not proposed again.",
        "",
    ]
    return lines


def _usage(report: NightReport) -> list[str]:
    u = report.usage
    lines = [
        "## Calls, tokens and cost",
        "",
        *_table(
            ["calls", "input tokens", "output tokens", "cost"],
            [
                [
                    t.count(u.calls),
                    t.count(u.input_tokens),
                    t.count(u.output_tokens),
                    t.usd(u.cost_usd),
                ]
            ],
        ),
        "",
    ]
    details = [f"- {_md(k)}: {float(v):.2f} s" for k, v in report.stage_seconds.items()]
    details += [f"- {_md(role)} backend: {_md(spec)}" for role, spec in report.backends.items()]
    if report.embedder:
        details.append(f"- embedder: {_md(report.embedder)}")
    return [*lines, *details, ""] if details else lines


def render_markdown(report: NightReport, diff: str) -> str:
    """The report as Markdown, for terminals (``skillopt-sleep report``) and code review."""
    lines = [
        *_summary(report),
        *_held_out(report),
        *_validation(report),
        *_families(report),
        *_edits(report),
        *_usage(report),
        "## Diff",
        "",
        _fence(diff, "diff") if diff.strip() else "No file changes were staged tonight.",
        "",
    ]
    return displayable("\n".join(lines))
