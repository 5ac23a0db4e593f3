"""A night's report for the user who decides whether to adopt it: Markdown and HTML.

    from skillopt_sleep.stage.report import render_markdown, render_html, render_families

Both take the :class:`~skillopt_sleep.engine.records.NightReport` (``report.json`` is that
record as JSON) and the proposal's unified diff, and say the same things in the same order,
the decision first: what to decide; the held-out verdict with its paired bootstrap interval;
the validation gate per changed file (saying plainly when it had to use training tasks); the
accepted edits with their deltas; the diff; the rejected edits; charts (HTML) or tables
(Markdown) of the score across tonight's steps and the held-out score across nights; the task
families with example requests and how each is judged; calls, tokens and cost.

A night can mine hundreds of families and run thousands of steps, and the Markdown is what an
agent is handed whole, so the family cards, the rejected edits, the diff and the steps are cut to
the sizes in :mod:`._bounds` and each cut names the staged file that has the whole;
``render_families`` writes ``families.md``.

Requests, edits and paths are user- or model-written: the HTML escapes every one of them, and
the Markdown escapes inline text and fences blocks with a fence longer than any backtick run in
them, so ``<script>``, a stray ``` or a ``|`` cannot change the report's structure (nor can a
"- x" or "---" that starts a line), and a URL or e-mail address in them is code, never a link.
Control and bidi-format characters and lone surrogates in them are shown as escapes
(:mod:`skillopt_sleep._display`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING

from skillopt_sleep._display import displayable
from skillopt_sleep.stage import _bounds as b
from skillopt_sleep.stage import _html
from skillopt_sleep.stage import _text as t
from skillopt_sleep.stage._markdown import code, fence, inline, table

if TYPE_CHECKING:
    from skillopt_sleep.engine.records import EditView, FamilyView, NightReport

__all__ = ["render_families", "render_html", "render_markdown", "with_note"]

_BLOCK_START = re.compile(r"^(?:([-+=])|(\d{1,9})([.)])(?=\s|$))")
# our own command names in the decision, shown as code again; no other backtick is (the message
# a decision can quote is untrusted: its backtick could pair with a code span's and end it)
_COMMAND = re.compile(r"\\`(skillopt-sleep (?:adopt|reject|rollback) [0-9A-Za-z.-]+)\\`")


def _lead(text: object) -> str:
    """:func:`inline` text that starts a line or a list item: a leading ``-``, ``+``, ``=`` or
    ``1.`` escaped too, so a request or a message such as "- x", "1. y" or "---" is shown as
    written rather than opening a list or drawing a rule."""
    return _BLOCK_START.sub(
        lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", inline(text), count=1
    )


def _indent(block: str, width: int) -> str:
    """Indent a block by ``width`` spaces, the content column of the list item it belongs to
    ("1. " needs 3, "10. " needs 4: a block indented less ends the list)."""
    pad = " " * width
    return "\n".join(pad + line if line else line for line in block.split("\n"))


def render_html(report: NightReport, diff: str) -> str:
    """A self-contained HTML page: inline CSS and SVG, no scripts, no network assets."""
    return displayable(_html.render(report, diff))


def with_note(text: str, kind: str, note: str) -> str:
    """A staged Markdown or HTML report with ``note`` (one line, escaped) first: in HTML at the
    top of the page's main part, so the page stays one well-formed document."""
    if kind == "html":
        import html

        banner = f'<p class="note"><strong>{html.escape(displayable(note))}</strong></p>'
        for mark in ("<main>", "<body>"):  # an older page may have no <main>
            head, found, rest = text.partition(mark)
            if found:
                return f"{head}{mark}{banner}{rest}"
        return f"{banner}\n{text}"
    return f"{_lead(displayable(note))}\n\n{text}"


def _summary(report: NightReport) -> list[str]:
    mode = " (dry run)" if report.dry_run else ""
    return [
        f"# SkillOpt-Sleep night {inline(report.night_id)}{mode}",
        "",
        f"Project: {code(report.project)}  ",
        f"Ran: {inline(t.ran(report.started_at, report.finished_at))}  ",
        f"Read: {t.plural(report.sessions, 'session')}, {t.plural(report.requests, 'request')}, "
        f"{t.plural(report.tasks, 'task')} · outcome: **{inline(report.outcome)}**",
        "",
        "## What to decide",
        "",
        _COMMAND.sub(r"`\1`", inline(t.decision(report))),
        "",
        *([_lead(report.message), ""] if report.message else []),
    ]


def _held_out(report: NightReport) -> list[str]:
    held = report.held_out
    lines = ["## Held-out tasks", "", inline(t.held_out_sentence(held)), ""]
    if held is not None:
        lines += table(
            ["before", "after", "change", "95% interval", "tasks", "verdict"],
            [
                [
                    t.pct(held.before),
                    t.pct(held.after),
                    t.pts(held.after - held.before),
                    t.interval(held.ci_low, held.ci_high),
                    str(held.n),
                    f"**{inline(held.verdict)}**",
                ]
            ],
        )
        lines.append("")
    return lines


def _validation(report: NightReport) -> list[str]:
    lines = ["## Validation (the gate)", ""]
    if not report.changes:
        return [*lines, "No file changes tonight, so there is no validation score to compare.", ""]
    lines += ["An edit is kept only if it strictly improves the score on these tasks.", ""]
    rows = []
    for c in report.changes:
        name = inline(t.skill_label(c.path)) + (" (new file)" if c.created else "")
        gate = f"**{t.gate_note(c)}**" if c.gate_split == "train" else t.gate_note(c)
        rows.append(
            [
                name,
                inline(c.kind),
                t.pct(c.val_before),
                t.pct(c.val_after),
                t.pts(c.val_after - c.val_before),
                str(c.val_tasks),
                gate,
            ]
        )
    return [
        *lines,
        *table(["file", "kind", "before", "after", "change", "tasks", "gate"], rows),
        "",
    ]


def _trends(report: NightReport) -> list[str]:
    """The score across tonight's steps per changed file, and the held-out score across nights."""
    lines = ["## Scores across steps and nights", ""]
    for c in report.changes:
        lines += [f"### Score across tonight's steps: {inline(t.skill_label(c.path))}", ""]
        link = f", a link to {code(c.target)} (adopt writes there)" if c.target else ""
        lines.append(f"File: {code(c.path)}{link}")
        lines.append("")
        steps = t.step_rows(c.steps)
        if not steps:
            lines += ["No optimizer steps recorded.", ""]
            continue
        shown = b.first_steps(steps)
        rows = [
            [
                str(r.step),
                t.pct(r.train),
                t.pct(r.current),
                t.pct(r.candidate),
                "accepted" if r.accepted else inline(r.decision or "rejected"),
            ]
            for r in shown
        ]
        lines += [
            *table(["step", "training batch", "val current", "val candidate", "decision"], rows),
            "",
        ]
        if len(steps) > len(shown):
            where = code(b.beside(report, b.JSON_FILE))
            lines += [f"{inline(t.steps_cut(len(steps) - len(shown)))} {where}.", ""]
    points = t.night_points(report)
    lines += ["### Held-out score across nights", ""]
    if all(p.before is None and p.after is None for p in points):
        return [*lines, "No held-out tasks yet.", ""]
    rows = [
        [inline(p.night_id) + (" (tonight)" if p.tonight else ""), t.pct(p.before), t.pct(p.after)]
        for p in points
    ]
    return [*lines, *table(["night", "before", "after"], rows), ""]


def _family(f: FamilyView, *, full: bool, whole: str = b.FAMILIES_FILE) -> list[str]:
    """A family's card: in ``families.md`` every example and check, in the report the first few,
    each cut to :data:`._bounds.CARD_CHARS` characters (a card's size does not grow); ``whole``
    names the file with the rest."""
    examples = f.examples if full else f.examples[: b.CARD_EXAMPLES]
    checks = f.checks if full else f.checks[: b.CARD_CHECKS]
    new = f", {f.new_tonight} new tonight" if f.new_tonight else ""
    lines = [f"### {inline(f.id)} — {t.plural(f.size, 'request')}{new}", ""]
    lines.append(f"- Routed to: {inline(t.skill_label(f.skill))}")
    lines.append(f"- Judged by: {inline(f.judged_by or 'unknown')}")
    if f.outcomes:
        outcomes = ", ".join(f"{inline(k)} {inline(v)}" for k, v in sorted(f.outcomes.items()))
        lines.append(f"- Outcomes: {outcomes}")
    if checks:
        lines.append(f"- Checks{_more(checks, f.checks, whole)}:")
        lines.extend(f"  - {code(c if full else t.one_line(c, b.CARD_CHARS))}" for c in checks)
    if examples:
        lines.append(f"- Example requests{_more(examples, f.examples, whole)}:")
        shown = (t.one_line(x) if full else t.one_line(x, b.CARD_CHARS) for x in examples)
        lines.extend(f"  - {_lead(x)}" for x in shown)
    lines.append("")
    return lines


def _more(shown: Sequence[str], every: Sequence[str], whole: str) -> str:
    cut = len(every) - len(shown)
    return f" ({cut} more in {code(whole)})" if cut else ""


def _families(report: NightReport) -> list[str]:
    lines = [f"## Families tonight ({len(report.families)})", ""]
    if not report.families:
        return [*lines, "No recurring task families tonight.", ""]
    families = b.split_families(report)
    whole = b.beside(report, b.FAMILIES_FILE)
    for f in families.featured:
        lines += _family(f, full=False, whole=PurePath(whole).name)
    if families.rest:
        lines += [f"**{inline(t.more_families(families.rest))}**", ""]
    where = code(whole)
    return [*lines, f"{inline(t.ALL_FAMILIES)} {where}.", ""]


def _edit(number: int, edit: EditView) -> list[str]:
    flags = " · **harmful**" if edit.harmful else ""
    flags += " · **refused by the edit screen**" if edit.refused else ""
    marker = f"{number}. "
    pad = " " * len(marker)
    lines = [
        f"{marker}**{inline(edit.op)}** in {inline(t.skill_label(edit.skill))} · "
        f"step {edit.step} · {t.pts(edit.delta)}{flags}",
        "",
    ]
    for label, text in (("Anchor", edit.anchor), ("Content", edit.content)):
        if text:
            lines += [f"{pad}{label}:", "", _indent(fence(text, "text"), len(pad)), ""]
    if edit.rationale:
        lines += [f"{pad}Why: {inline(edit.rationale)}", ""]
    return lines


def _edit_list(title: str, edits: Sequence[EditView], total: int) -> list[str]:
    lines = [f"## {title} edits ({total})", ""]
    if not total:
        lines += [f"No edit was {title.lower()} tonight.", ""]
    for number, edit in enumerate(edits, 1):
        lines += _edit(number, edit)
    return lines


def _accepted(report: NightReport) -> list[str]:
    accepted = report.accepted
    return [
        *_edit_list("Accepted", accepted, len(accepted)),
        "Deltas are the gate metric: candidate minus current skill on the gate's tasks.",
        "",
    ]


def _rejected(report: NightReport) -> list[str]:
    shown, total = b.rejected_edits(report), len(report.rejected)
    lines = [
        *_edit_list("Rejected", shown, total),
        "Rejected edits are remembered and not proposed again.",
        "",
    ]
    if total > len(shown):
        where = code(b.beside(report, b.JSON_FILE))
        lines += [f"{inline(t.rejected_cut(total - len(shown)))} {where}.", ""]
    return lines


def _diff(diff: str, whole: str) -> list[str]:
    if not diff.strip():
        return ["## Diff", "", "No file changes were staged tonight.", ""]
    head = b.diff_head(diff)
    lines = ["## Diff", "", fence(head.text, "diff"), ""]
    if head.omitted:
        lines += [f"{inline(t.diff_cut(head.omitted))} {code(whole)}.", ""]
    return lines


def _usage(report: NightReport) -> list[str]:
    u = report.usage
    lines = [
        "## Calls, tokens and cost",
        "",
        *table(
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
    details = [f"- {_lead(k)}: {float(v):.2f} s" for k, v in report.stage_seconds.items()]
    details += [
        f"- {_lead(role)} backend: {inline(t.backend_spec(role, spec))}"
        for role, spec in report.backends.items()
    ]
    if report.embedder:
        details.append(f"- embedder: {inline(report.embedder)}")
    return [*lines, *details, ""] if details else lines


def render_markdown(report: NightReport, diff: str) -> str:
    """The report as Markdown, for terminals (``skillopt-sleep report``), agents (the MCP
    ``report`` tool) and code review: the decision and its evidence first, then what was
    rejected, then the night's detail, cut to the sizes in :mod:`._bounds`."""
    lines = [
        *_summary(report),
        *_held_out(report),
        *_validation(report),
        *_accepted(report),
        *_diff(diff, b.beside(report, b.DIFF_FILE)),
        *_rejected(report),
        *_trends(report),
        *_families(report),
        *_usage(report),
    ]
    return displayable("\n".join(lines))


def render_families(report: NightReport) -> str:
    """Every family of the night with all its examples and checks (``families.md``): the detail
    the report cuts, in the report's order."""
    lines = [
        f"# Families of night {inline(report.night_id)} ({len(report.families)})",
        "",
        f"Project: {code(report.project)}",
        "",
    ]
    if not report.families:
        lines += ["No recurring task families tonight.", ""]
    for f in b.ranked_families(report):
        lines += _family(f, full=True)
    return displayable("\n".join(lines))
