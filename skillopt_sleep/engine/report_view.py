"""The engine's read side for reports: a staged proposal's, or a night's that staged none.

``report <id>`` names a night: the one that staged proposal ``<id>``, or one that staged nothing
("no change", "nothing new", "stopped"), or whose proposal retention has removed since. A night's
folder keeps its ``report.json`` whatever it did (only the newest nights' folders are kept; the
history keeps a line for every night), so such a night is shown from it, rendered as a staged
report would be, after a first line that says what the night did. A dry run keeps no report.
Never prints; raises :mod:`skillopt_core.errors` classes that carry their exit codes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from skillopt_core.errors import StorageError, UsageError
from skillopt_sleep.engine.records import NightSummary, Proposal, ProposalState, StagedReport
from skillopt_sleep.engine.state import ProjectState, read_json, read_lines
from skillopt_sleep.engine.views import night_summary, proposal_of

PathLike = str | os.PathLike[str]
NO_PROPOSAL = cast(ProposalState, "")  # the state of a night's report: it staged nothing kept


@dataclass(frozen=True)
class _Night:
    """A past night without a staged proposal to show: its history line and its report."""

    summary: NightSummary
    message: str
    report_file: Path | None  # None: its folder is no longer kept
    problem: str = ""  # why its report.json cannot be read


def _staged_or_night(state: ProjectState, proposal: str | None) -> Path | _Night:
    """The staged proposal ``proposal`` (None: the latest), else the night of that id (None: the
    latest night, when nothing is staged at all); a UsageError when there is neither."""
    if proposal is None:
        proposals = state.proposals()
        if proposals:
            return proposals[-1]
        latest = read_lines(state.history_path)
        if latest:
            return _night(state, night_summary(latest[-1]))
        raise UsageError("no staged proposal yet", hint="run a night first: `skillopt-sleep run`")
    if not proposal:
        return state.staged_proposal(proposal)  # an empty id: an error of its own
    state.proposal_dir(proposal)  # an id that names a path says so, and is not looked up
    try:
        return state.staged_proposal(proposal)
    except UsageError as missing:
        night = _past_night(state, proposal)
        if night is None:
            raise UsageError(
                f"{missing.message}, nor a night of that id",
                hint="`skillopt-sleep status` lists the last nights and `skillopt-sleep "
                "proposals` the staged proposals (a dry run keeps no report)",
            ) from None
        return night


def _past_night(state: ProjectState, night_id: str) -> _Night | None:
    """The night ``night_id`` from its history line, else from its folder's report alone (a
    night whose line was not written yet); None when neither knows it. The id is compared
    with what is there, never opened as a path."""
    records = [r for r in read_lines(state.history_path) if r.get("night_id") == night_id]
    if records:
        return _night(state, night_summary(records[-1]))
    folders = state.root / "nights"
    if folders.is_dir() and night_id in os.listdir(folders):
        night = _night(state, night_summary({"night_id": night_id}))
        if night.report_file is not None and not night.problem:
            data = read_json(night.report_file, {}) or {}
            return replace(night, summary=night_summary({"night_id": night_id, **data}))
    return None


def _night(state: ProjectState, summary: NightSummary) -> _Night:
    path = state.night_dir(summary.night_id) / "report.json"
    if not path.is_file():
        return _Night(summary, "", None)
    try:
        data = read_json(path, {}) or {}
    except StorageError as exc:
        return _Night(summary, "", path, exc.message)
    return _Night(summary, str(data.get("message", "")), path)


def _night_note(night: _Night) -> str:
    summary = night.summary
    when = f" ({_when(summary.started_at)})" if summary.started_at else ""
    if summary.proposal:
        did = (
            f"staged proposal {summary.proposal} ({summary.outcome}), which is no longer kept: "
            "the newest settled proposals and each file's latest adopt are kept"
        )
    else:
        did = "staged nothing: " + (night.message.rstrip(".") or summary.outcome or "unknown")
    note = f"Night {summary.night_id}{when} {did}."
    if night.report_file is None:
        return f"{note} Its report is no longer kept (only the newest nights' folders are)."
    if night.problem:
        return f"{note} Its report cannot be shown: {night.problem}."
    return note


def _night_text(night: _Night, kind: str, note: str) -> tuple[str, str]:
    """The night's report.json rendered as ``kind``, ``note`` first (json: the file's object
    with ``proposal_state`` "" and ``note``; only the note when the report is not there), and
    the note as shown (it says so when the report cannot be rendered)."""
    from skillopt_sleep.stage.report import render_html, render_markdown, with_note
    from skillopt_sleep.stage.report_json import night_report

    data: dict[str, Any] = {}
    if night.report_file is not None and not night.problem:
        data = read_json(night.report_file, {}) or {}
    if kind == "json":
        known = {"night_id": night.summary.night_id, "outcome": night.summary.outcome}
        extra = {"proposal_state": "", "note": note, **known}
        return json.dumps({**extra, **data}, indent=2, ensure_ascii=True), note
    try:
        report = night_report(data) if data else None
    except ValueError as exc:
        note, report = f"{note} Its report cannot be shown: {exc}.", None
    if report is None:
        blank = _BLANK_PAGE if kind == "html" else ""
        return with_note(blank, kind, note).rstrip() + "\n", note
    folder = str(night.report_file.parent) if night.report_file is not None else ""
    report = replace(report, proposal="", proposal_dir=folder)  # what is kept is report.json
    rendered = render_html(report, "") if kind == "html" else render_markdown(report, "")
    return with_note(rendered, kind, note), note


_BLANK_PAGE = '<!doctype html>\n<html lang="en"><meta charset="utf-8"><main></main></html>\n'


def report_path(project: PathLike, proposal: str | None = None, kind: str = "md") -> Path:
    """The staged report of ``proposal`` (None: the latest proposal; "" is a UsageError); for a
    night that staged nothing kept, its report.json (kind "json"), as nothing else was written."""
    found = _staged_or_night(ProjectState(project), proposal)
    if isinstance(found, _Night):
        return _night_report_path(found, kind)
    path = found / f"report.{kind}"
    if not path.is_file():
        raise UsageError(f"no report.{kind} in {found}")
    return path


def _night_report_path(night: _Night, kind: str) -> Path:
    name = night.summary.night_id
    if night.report_file is None:
        raise UsageError(
            f"night {name} has no report: {_night_note(night)}",
            hint=f"`skillopt-sleep report {name}` says what it did",
        )
    if kind != "json":
        raise UsageError(
            f"night {name} has no report.{kind}: {_night_note(night)} Only its report.json is "
            f"kept: {night.report_file}",
            hint=f"`skillopt-sleep report {name}` shows it (made from its report.json; add "
            "`--format html` for a page), `--format json --path` gives that file's path",
        )
    return night.report_file


def read_report(project: PathLike, proposal: str | None = None, kind: str = "md") -> StagedReport:
    """The staged report of ``proposal`` (None: the latest proposal) with a first line saying
    which proposal it is and its state now; asked for the latest, that line first says what the
    latest night did when it staged nothing, so last week's adopted proposal is not taken for
    tonight's. JSON gains the keys ``proposal_state``, ``note`` and ``latest_night`` (the file
    is not changed). A damaged report is a StorageError.

    A night that staged nothing kept (named, or the latest when no proposal was ever staged) is
    shown from its report.json: state "" and ``latest_night`` that night."""
    state = ProjectState(project)
    found = _staged_or_night(state, proposal)
    if isinstance(found, _Night):
        note = _night_note(found)
        path = found.report_file or state.night_dir(found.summary.night_id)
        text, note = _night_text(found, kind, note)
        shown = found.summary.proposal
        return StagedReport(
            shown, NO_PROPOSAL, note, str(path), kind, text, found.summary, found.message
        )
    path = found / f"report.{kind}"
    if not path.is_file():
        raise UsageError(f"no report.{kind} in {found}")
    return _staged_report(state, path, kind, named=proposal is not None)


def _staged_report(state: ProjectState, path: Path, kind: str, *, named: bool) -> StagedReport:
    shown = proposal_of(path.parent)
    latest, message = (None, "") if named else _latest_night(state)
    if latest is not None and latest.proposal == shown.id:
        latest = None  # the latest night staged what is shown
    note = _report_note(shown, latest, message, named=named)
    if kind == "json":
        extra: dict[str, Any] = {"proposal_state": shown.state, "note": note}
        if latest is not None:
            keys = ("night_id", "started_at", "outcome")
            extra["latest_night"] = {**{k: getattr(latest, k) for k in keys}, "message": message}
        # ASCII-only: a bidi override or C1 control from a request prints as an escape
        text = json.dumps({**extra, **read_json(path)}, indent=2, ensure_ascii=True)
    else:
        from skillopt_sleep.stage.report import with_note

        try:
            staged = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise StorageError(
                f"{path} is damaged and cannot be read ({exc})",
                hint=f"move {path} aside, or stage the proposal again with `skillopt-sleep run`",
            ) from exc
        text = with_note(staged, kind, note)
    return StagedReport(shown.id, shown.state, note, str(path), kind, text, latest, message)


def report_body(shown: StagedReport) -> str:
    """The Markdown report of ``shown`` after the note it begins with ("" when there is only the
    note), for a front end that shows ``shown.note`` its own way: ``text`` escapes the note for
    Markdown (an agent reads it as Markdown), while a terminal prints it as written, escaped for
    Rich. A page or a JSON object keeps its note inside it, so is returned whole."""
    if shown.format != "md":
        return shown.text
    _, _, rest = shown.text.partition("\n")  # the note is one line (``with_note``)
    return rest.removeprefix("\n")


def _latest_night(state: ProjectState) -> tuple[NightSummary | None, str]:
    """The last night in the history and its message ("" when its report is gone or damaged)."""
    records = read_lines(state.history_path)
    if not records:
        return None, ""
    latest = _night(state, night_summary(records[-1]))
    return latest.summary, latest.message


def _report_note(shown: Proposal, latest: NightSummary | None, message: str, *, named: bool) -> str:
    which = f"proposal {shown.id}" if named else f"the latest proposal, {shown.id}"
    note = f"Showing {which} (staged {_when(shown.created_at or shown.id)}), which is {shown.state}"
    stale = (
        ": the report below is from when it was staged, so its advice to adopt or reject it "
        "no longer applies."
    )
    note += "." if shown.state == "pending" else stale
    if latest is None:
        return note
    if latest.proposal:
        did = f"staged {latest.proposal}, which is no longer staged"
    else:
        did = "staged nothing: " + (message.rstrip(".") or latest.outcome)
    return f"The latest night ({latest.night_id}, {_when(latest.started_at)}) {did}. {note}"


def _when(moment: str) -> str:
    """An ISO time as "2026-11-23 03:17 UTC" (anything else as it is)."""
    from datetime import datetime, timezone

    try:
        parsed = datetime.fromisoformat(moment)
    except ValueError:
        return moment
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(timezone.utc)
    return parsed.strftime("%Y-%m-%d %H:%M UTC")
