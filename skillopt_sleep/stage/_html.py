"""The HTML report: one self-contained page (inline CSS and SVG, no scripts, no network).

Everything that came from a user, a model or the file system goes through :func:`_e` before it
reaches the page; a Content-Security-Policy that forbids scripts and remote loads is a second
line of defence should an escape ever be missed. The layout is a single column of sections that
reflows from a 1280px desktop down to a 390px phone: cards instead of wide tables for free text,
``pre-wrap`` for code and the diff, and charts scaled to the column width.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from skillopt_sleep.stage import _bounds as b
from skillopt_sleep.stage import _text as t
from skillopt_sleep.stage._figures import charts_section
from skillopt_sleep.stage._style import CSS

if TYPE_CHECKING:
    from skillopt_sleep.engine.records import EditView, FamilyView, NightReport, SkillChange


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _commands(text: str) -> str:
    """Escape our own sentence, then show its backticked command names as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _stat(label: str, value: str, css: str = "") -> str:
    return f'<div class="stat {css}"><span>{_e(label)}</span><b>{_e(value)}</b></div>'


def _badge(text: str, css: str) -> str:
    return f'<span class="badge {css}">{_e(text)}</span>'


def _verdict_css(verdict: str) -> str:
    return {"better": "good", "worse": "bad"}.get(verdict, "neutral")


def _header(report: NightReport) -> str:
    mode = " (dry run)" if report.dry_run else ""
    held = report.held_out
    stats = [
        _stat("Outcome", report.outcome),
        _stat("Accepted edits", str(len(report.accepted)), "good" if report.accepted else ""),
        _stat("Rejected edits", str(len(report.rejected))),
        _stat(
            "Held-out verdict",
            held.verdict if held else "no held-out tasks yet",
            _verdict_css(held.verdict) if held else "neutral",
        ),
        _stat("Cost", t.usd(report.usage.cost_usd)),
    ]
    return (
        f'<header><p class="kicker">SkillOpt-Sleep · nightly report{_e(mode)}</p>'
        f"<h1>Night {_e(report.night_id)}</h1>"
        f'<p class="meta"><span>Project <code>{_e(report.project)}</code></span> '
        f"<span>{_e(t.ran(report.started_at, report.finished_at))}</span> "
        f"<span>{_e(t.plural(report.sessions, 'session'))}, "
        f"{_e(t.plural(report.requests, 'request'))}, {_e(t.plural(report.tasks, 'task'))}</span>"
        f"</p></header>"
        f'<section id="decision" class="decision"><h2>What to decide</h2>'
        f"<p>{_commands(t.decision(report))}</p>"
        + (f'<p class="muted">{_e(report.message)}</p>' if report.message else "")
        + f'<div class="stats">{"".join(stats)}</div></section>'
    )


def _held_out(report: NightReport) -> str:
    held = report.held_out
    body = f"<p>{_e(t.held_out_sentence(held))}</p>"
    if held is not None:
        body += (
            '<div class="stats">'
            + _stat("Before", t.pct(held.before))
            + _stat("After", t.pct(held.after))
            + _stat("Change", t.pts(held.after - held.before), _verdict_css(held.verdict))
            + _stat("95% interval", t.interval(held.ci_low, held.ci_high))
            + _stat("Tasks", str(held.n))
            + "</div>"
        )
    return f'<section id="held-out"><h2>Held-out tasks</h2>{body}</section>'


def _validation(changes: Sequence[SkillChange]) -> str:
    if not changes:
        return (
            '<section id="validation"><h2>Validation (the gate)</h2>'
            "<p>No file changes tonight, so there is no validation score to compare.</p></section>"
        )
    rows = []
    for c in changes:
        note = f"{t.gate_note(c).capitalize()}."
        gate = f"<b>{_e(note)}</b>" if c.gate_split == "train" else _e(note)
        new = " " + _badge("new file", "neutral") if c.created else ""
        link = (
            f"<br><small>a link to {_e(c.target)} (adopt writes there)</small>" if c.target else ""
        )
        rows.append(
            f'<tr class="has-note"><td class="path" title="{_e(c.path)}">'
            f'{_e(t.skill_label(c.path))}{new}{link}<br><small class="muted">{_e(c.kind)} · '
            f"{_e(t.plural(c.accepted_edits, 'accepted edit'))}</small></td>"
            f'<td class="num">{_e(t.pct(c.val_before))}</td>'
            f'<td class="num">{_e(t.pct(c.val_after))}</td>'
            f'<td class="num">{_e(t.pts(c.val_after - c.val_before))}</td>'
            f'<td class="num">{c.val_tasks}</td></tr>'
            # the gate note gets the full width, so it stays readable on a phone
            f'<tr class="note {"warn" if c.gate_split == "train" else "muted"}">'
            f'<td colspan="5"><small>{gate}</small></td></tr>'
        )
    return (
        '<section id="validation"><h2>Validation (the gate)</h2>'
        "<p>An edit is kept only if it strictly improves the score on these tasks.</p>"
        '<div class="table-wrap"><table><thead><tr><th>File</th><th>Before</th><th>After</th>'
        f"<th>Change</th><th>Tasks</th></tr></thead><tbody>{''.join(rows)}"
        "</tbody></table></div></section>"
    )


def _family(family: FamilyView) -> str:
    """A family's card, cut as the Markdown cuts it (:mod:`._bounds`)."""
    new = f", {family.new_tonight} new tonight" if family.new_tonight else ""
    examples = "".join(
        f"<li><q>{_e(t.one_line(x, b.CARD_CHARS))}</q></li>"
        for x in family.examples[: b.CARD_EXAMPLES]
    )
    checks = "".join(
        f"<li><code>{_e(t.one_line(c, b.CARD_CHARS))}</code></li>"
        for c in family.checks[: b.CARD_CHECKS]
    )
    outcomes = " · ".join(f"{_e(k)} {_e(v)}" for k, v in sorted(family.outcomes.items()))
    return (
        f'<article class="card family"><h3><code>{_e(family.id)}</code> '
        f'<small class="muted">{_e(t.plural(family.size, "request"))}{_e(new)}</small></h3>'
        f'<p class="facts"><span>Routed to <b title="{_e(family.skill)}">'
        f"{_e(t.skill_label(family.skill))}</b></span> "
        f"<span>Judged by {_badge(family.judged_by or 'unknown', 'neutral')}</span>"
        + (f' <span class="muted">Outcomes: {outcomes}</span>' if outcomes else "")
        + "</p>"
        + (f'<p class="label">Example requests</p><ul>{examples}</ul>' if examples else "")
        + (f'<p class="label">Checks</p><ul class="checks">{checks}</ul>' if checks else "")
        + "</article>"
    )


def _families(report: NightReport) -> str:
    head = f'<section id="families"><h2>Families tonight ({len(report.families)})</h2>'
    if not report.families:
        return f"{head}<p>No recurring task families tonight.</p></section>"
    families = b.split_families(report)
    cards = "".join(_family(f) for f in families.featured)
    rest = f"<p><b>{_e(t.more_families(families.rest))}</b></p>" if families.rest else ""
    where = f"{_e(t.ALL_FAMILIES)} <code>{_e(b.beside(report, b.FAMILIES_FILE))}</code>."
    return f'{head}{cards}{rest}<p class="muted">{where}</p></section>'


def _edit(edit: EditView) -> str:
    status = _badge("accepted", "good") if edit.accepted else _badge("rejected", "neutral")
    if edit.harmful:
        status += " " + _badge("harmful", "bad")
    if edit.refused:
        status += " " + _badge("refused by the edit screen", "bad")
    anchor = f'<p class="label">Anchor</p><pre>{_e(edit.anchor)}</pre>' if edit.anchor else ""
    content = f'<p class="label">Content</p><pre>{_e(edit.content)}</pre>' if edit.content else ""
    why = f'<p class="why"><b>Why:</b> {_e(edit.rationale)}</p>' if edit.rationale else ""
    delta_css = "good" if edit.delta > 0 else "bad" if edit.delta < 0 else "muted"
    css = (
        "accepted" if edit.accepted else ("harmful" if edit.harmful or edit.refused else "rejected")
    )
    return (
        f'<article class="card edit {css}"><p class="facts"><span>{status}</span>'
        f'<span><code>{_e(edit.op)}</code> in <b title="{_e(edit.skill)}">'
        f"{_e(t.skill_label(edit.skill))}</b></span><span>step {edit.step}</span>"
        f'<span class="{delta_css}">{_e(t.pts(edit.delta))}</span></p>{anchor}{content}{why}'
        "</article>"
    )


def _muted(text: str) -> str:
    return f'<p class="muted">{_e(text)}</p>'


def _accepted(report: NightReport) -> str:
    accepted = report.accepted
    cards = "".join(_edit(e) for e in accepted)
    return (
        f'<section id="edits"><h2>Accepted edits ({len(accepted)})</h2>'
        f"{cards or _muted('No edit was accepted tonight.')}"
        '<p class="muted">Deltas are the gate metric: candidate minus current skill on the '
        "gate's tasks.</p></section>"
    )


def _rejected(report: NightReport) -> str:
    shown, total = b.rejected_edits(report), len(report.rejected)
    cards = "".join(_edit(e) for e in shown)
    cut = ""
    if total > len(shown):
        where = _e(b.beside(report, b.JSON_FILE))
        cut = f"<p>{_e(t.rejected_cut(total - len(shown)))} <code>{where}</code>.</p>"
    return (
        f'<section id="rejected"><h2>Rejected edits ({total})</h2>'
        f"{cards or _muted('No edit was rejected tonight.')}{cut}"
        '<p class="muted">Rejected edits are remembered and not proposed again.</p></section>'
    )


def _usage(report: NightReport) -> str:
    u = report.usage
    stats = (
        _stat("Model calls", t.count(u.calls))
        + _stat("Input tokens", t.count(u.input_tokens))
        + _stat("Output tokens", t.count(u.output_tokens))
        + _stat("Cost", t.usd(u.cost_usd))
    )
    rows = "".join(
        f'<tr><td>{_e(k)}</td><td class="num">{float(v):.2f} s</td></tr>'
        for k, v in report.stage_seconds.items()
    )
    rows += "".join(
        f"<tr><td>{_e(role)} backend</td><td>{_e(t.backend_spec(role, spec))}</td></tr>"
        for role, spec in report.backends.items()
    )
    if report.embedder:
        rows += f"<tr><td>embedder</td><td>{_e(report.embedder)}</td></tr>"
    details = (
        '<details><summary>Stage times and backends</summary><div class="table-wrap"><table>'
        f"<tbody>{rows}</tbody></table></div></details>"
        if rows
        else ""
    )
    return f'<section id="usage"><h2>Calls, tokens and cost</h2><div class="stats">{stats}</div>{details}</section>'


def _diff_line(line: str) -> str:
    if line.startswith(("+++", "---", "# ")):  # "# ": where a linked file leads (proposal.py)
        css = "file"
    elif line.startswith("@@"):
        css = "hunk"
    elif line.startswith("+"):
        css = "add"
    elif line.startswith("-"):
        css = "del"
    else:
        css = "ctx"
    return f'<span class="{css}">{_e(line) or " "}</span>'


def _diff(diff: str, whole: str = b.DIFF_FILE) -> str:
    """The diff's head (:func:`._bounds.diff_head`) and, when cut, where the ``whole`` is."""
    if not diff.strip():
        return (
            '<section id="diff"><h2>Diff</h2><p>No file changes were staged tonight.</p></section>'
        )
    head = b.diff_head(diff)
    lines = "".join(_diff_line(line) for line in head.text.rstrip("\n").split("\n"))
    cut = ""
    if head.omitted:
        cut = f"<p>{_e(t.diff_cut(head.omitted))} <code>{_e(whole)}</code>.</p>"
    return (
        f'<section id="diff"><h2>Diff</h2><pre class="diff"><code>{lines}</code></pre>'
        f"{cut}</section>"
    )


_NAV = (
    ("decision", "Decision"),
    ("held-out", "Held-out"),
    ("validation", "Validation"),
    ("edits", "Accepted"),
    ("diff", "Diff"),
    ("rejected", "Rejected"),
    ("charts", "Charts"),
    ("families", "Families"),
    ("usage", "Cost"),
)


def render(report: NightReport, diff: str) -> str:
    nav = "".join(f'<a href="#{anchor}">{label}</a>' for anchor, label in _NAV)
    body = "".join(
        [
            _header(report),
            _held_out(report),
            _validation(report.changes),
            _accepted(report),
            _diff(diff, b.beside(report, b.DIFF_FILE)),
            _rejected(report),
            charts_section(report),
            _families(report),
            _usage(report),
        ]
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>SkillOpt-Sleep · night {_e(report.night_id)}</title>"
        f"<style>{CSS}</style></head>\n"
        f'<body><nav class="toc">{nav}</nav><main>{body}</main></body></html>\n'
    )
