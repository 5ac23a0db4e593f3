"""The few MCP results the engine has no record for: a harvest preview, a mine preview, a report,
the refused edits.

Everything else a tool returns is an engine record (``Status``, ``Proposal``, ``AdoptResult``,
a job view with its night's counts, :class:`~skillopt_sleep.mcp.jobfile.NightOutcome`), so the
output schemas follow the engine and are never copied.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from skillopt_sleep._display import displayable
from skillopt_sleep.engine.records import Proposal, StagedReport
from skillopt_sleep.stage.refused import RefusedEdit

if TYPE_CHECKING:
    from skillopt_sleep.mine.config import FamilySummary

EXAMPLES = 3  # requests shown of a family
EXAMPLE_CHARS = 200  # of each (a kept request can be 8,000 characters)
REPORT_JSON_CHARS = 40_000
"""Most characters of a JSON report a tool result carries (a 500-family night's is 840,000; Claude
Code saves a result over 50,000 characters to a file and refuses one over 25,000 tokens)."""


@dataclass(frozen=True)
class HarvestView:
    """What a night would read now (the index is not advanced)."""

    project: str
    sessions: int
    per_harness: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class FamilyPreview:
    id: str
    size: int
    examples: tuple[str, ...]
    judged_by: str

    @classmethod
    def of(cls, family: FamilySummary) -> FamilyPreview:
        """Its first :data:`EXAMPLES` requests, each cut to :data:`EXAMPLE_CHARS` characters, with
        control and bidi characters shown as escapes: a request is the user's (or a pasted page's)
        text, and a harness shows a tool's result on its terminal (:func:`displayable`)."""
        examples = tuple(_shown(text, EXAMPLE_CHARS) for text in family.requests[:EXAMPLES])
        return cls(family.id, family.size, examples, family.judged_by)


def _shown(text: str, limit: int) -> str:
    """``text`` with controls and bidi characters as escapes, cut to ``limit`` characters."""
    text = displayable(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class MineView:
    """The recurring task families a night would replay: the largest ``families`` of
    ``family_count``, so the preview stays small however many the sessions hold."""

    project: str
    sessions: int
    embedder: str
    family_count: int
    families: tuple[FamilyPreview, ...]


@dataclass(frozen=True)
class ProposalsView:
    """The newest ``proposals`` of ``total`` staged: the list never shrinks by itself (adopted
    proposals stay for rollback), so a tool result lists only the newest."""

    project: str
    total: int
    proposals: tuple[Proposal, ...]


@dataclass(frozen=True)
class ReportView:
    """A staged report: ``text`` is the file as staged (as the report resource and the CLI's
    ``report`` give it); ``note`` says which proposal it is, its ``state`` now, and what the
    latest night did if it staged nothing (:func:`skillopt_sleep.engine.read_report`).

    The Markdown opens with the decision and is cut to size however many families the night
    mined (:mod:`skillopt_sleep.stage._bounds`: under 16 KB for 500), naming the staged files
    that hold what it cuts; ``format="json"`` is every record, up to :data:`REPORT_JSON_CHARS`."""

    proposal: str
    state: str  # pending, adopted, rejected, rolled back, superseded: now, not when staged
    note: str
    path: str
    format: str
    text: str

    @classmethod
    def of(cls, shown: StagedReport) -> ReportView:
        """``shown``, except that a JSON report over :data:`REPORT_JSON_CHARS` becomes a small
        JSON object whose note says how big it is and where to read it (``path``)."""
        if shown.format != "json" or len(shown.text) <= REPORT_JSON_CHARS:
            return cls(
                shown.proposal, shown.state, shown.note, shown.path, shown.format, shown.text
            )
        note = (
            f"{shown.note} Its JSON report is {len(shown.text)} characters, more than a tool "
            f"result carries: read {shown.path} (format md is bounded)."
        )
        text = json.dumps(
            {"proposal_state": shown.state, "note": note, "path": shown.path}, indent=2
        )
        return cls(shown.proposal, shown.state, note, shown.path, shown.format, text)


# the `refused` tool's arguments (beside its result: the SDK reads them at import, as
# skillopt_sleep.mcp.arguments's)
RefusedLimit = Annotated[
    int, Field(ge=1, le=50, description="Most refused edits listed, the newest.")
]
RefusedBy = Annotated[
    Literal["you", "gate"] | None,
    Field(description="Only the user's refusals (you) or only the gate's (gate); default both."),
]
REFUSED_NOTE = (
    "A night never proposes an edit listed here as blocking. Only the user can lift a refusal: "
    "ask them to run `skillopt-sleep refused forget ID` in a terminal (there is no tool for it). "
    "Texts are cut; `skillopt-sleep refused --json` has them whole."
)
REFUSED_TEXT_CHARS = 160  # of an edit's anchor, content and rationale each
REFUSED_BYTES = 6 * 1024  # the edits listed, as JSON: the reply carries them twice (text, data)


@dataclass(frozen=True)
class RefusedView:
    """The newest ``edits`` of the ``total`` the rejected-edit buffers keep from later nights
    (up to 500 of the gate's a skill file, and every one the user refused), their text with
    control and bidi characters shown as escapes; ``note`` says who may forget them."""

    project: str
    total: int
    edits: tuple[RefusedEdit, ...]
    note: str = REFUSED_NOTE

    @classmethod
    def of(cls, project: str, edits: Sequence[RefusedEdit], limit: int) -> RefusedView:
        """At most ``limit`` of ``edits`` (:func:`_chosen`), in their order, each text cut to
        ``REFUSED_TEXT_CHARS``, fewer when they would pass ``REFUSED_BYTES``: a harness passes
        on a small reply only."""
        shown = [
            replace(
                e,
                skill=displayable(e.skill),
                anchor=_shown(e.anchor, REFUSED_TEXT_CHARS),
                content=_shown(e.content, REFUSED_TEXT_CHARS),
                rationale=_shown(e.rationale, REFUSED_TEXT_CHARS),
            )
            for e in _chosen(edits, limit)
        ]
        sizes = [len(json.dumps(asdict(e), ensure_ascii=False).encode("utf-8")) for e in shown]
        while len(shown) > 1 and sum(sizes) > REFUSED_BYTES:
            drop = max(range(len(shown)), key=lambda i: (not shown[i].by_user, -i))
            del shown[drop], sizes[drop]  # the gate's first, the earliest listed first
        return cls(project, len(edits), tuple(shown))


def _chosen(edits: Sequence[RefusedEdit], limit: int) -> list[RefusedEdit]:
    """The user's refusals (the last ``limit`` of them), then the gate's newest of each skill
    file in turn, in the order ``refused_edits`` lists them (by skill file, then by refusal): a
    plain ``[-limit:]`` kept only the last files and dropped the user's own refusals."""
    users = [i for i, e in enumerate(edits) if e.by_user][-limit:]
    files: dict[str, list[int]] = {}
    for i, e in enumerate(edits):
        if not e.by_user:
            files.setdefault(e.skill, []).append(i)
    queues = [list(reversed(found)) for found in files.values()]
    picked, room = set(users), limit - len(users)
    while room > 0 and any(queues):
        for queue in queues:
            if queue and room > 0:
                picked.add(queue.pop(0))
                room -= 1
    return [edits[i] for i in sorted(picked)]
