"""The few MCP results the engine has no record for: a harvest preview, a mine preview, a report.

Everything else a tool returns is an engine record (``Status``, ``Proposal``, ``AdoptResult``,
a job view with its night's counts, :class:`~skillopt_sleep.mcp.jobfile.NightOutcome`), so the
output schemas follow the engine and are never copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from skillopt_sleep.engine.records import Proposal

if TYPE_CHECKING:
    from skillopt_sleep.mine.config import FamilySummary

EXAMPLES = 3  # requests shown of a family
EXAMPLE_CHARS = 200  # of each (a kept request can be 8,000 characters)


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
        """Its first :data:`EXAMPLES` requests, each cut to :data:`EXAMPLE_CHARS` characters."""
        examples = tuple(
            text if len(text) <= EXAMPLE_CHARS else text[: EXAMPLE_CHARS - 1] + "…"
            for text in family.requests[:EXAMPLES]
        )
        return cls(family.id, family.size, examples, family.judged_by)


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
    that hold what it cuts; ``format="json"`` is every record, unbounded."""

    proposal: str
    state: str  # pending, adopted, rejected, rolled back, superseded: now, not when staged
    note: str
    path: str
    format: str
    text: str
