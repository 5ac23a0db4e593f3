"""What the engine's library API returns: a night's report, a proposal, the project's status.

Plain frozen dataclasses, JSON-ready through :func:`skillopt_sleep.jsonable.to_jsonable`; every
front end (CLI, MCP server, scheduler, experiments) renders these and adds no logic of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Verdict = Literal["better", "worse", "no measurable change", "too few tasks to tell"]
# "damaged": its manifest cannot be read, so nothing can be done with it but move it aside
ProposalState = Literal["pending", "adopted", "rejected", "rolled back", "superseded", "damaged"]


@dataclass(frozen=True)
class FamilyView:
    """One recurring task family as the report shows it."""

    id: str
    size: int
    examples: tuple[str, ...]
    judged_by: str
    checks: tuple[str, ...]  # "kind: value" lines
    skill: str  # the skill file this family was routed to
    new_tonight: int = 0
    outcomes: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class EditView:
    """One edit the optimizer proposed tonight and what the gate made of it."""

    skill: str
    op: str
    anchor: str
    content: str
    rationale: str
    step: int
    accepted: bool
    delta: float  # gate metric: candidate minus current on the validation tasks
    harmful: bool = False  # rejected with a negative delta on its own evidence
    refused: str = ""  # why the edit screen refused it, unweighed ("": it reached the gate)


@dataclass(frozen=True)
class HeldOut:
    """The skill before and after tonight on held-out tasks, with a paired bootstrap interval."""

    before: float
    after: float
    n: int
    ci_low: float
    ci_high: float
    verdict: Verdict


@dataclass(frozen=True)
class SkillChange:
    """One live file the proposal would change."""

    path: str  # absolute path of the live file
    kind: Literal["skill", "memory"]
    created: bool  # the file does not exist yet (a managed learned skill)
    live_sha256: str  # "" when created
    proposed_sha256: str
    staged_file: str  # path inside the proposal directory
    accepted_edits: int
    val_before: float
    val_after: float
    val_tasks: int
    gate_split: Literal["val", "train"]  # "train" when too few validation tasks existed
    steps: tuple[Mapping[str, Any], ...] = ()  # per-step records (score across tonight's steps)
    target: str = ""  # the file ``path`` links to, where adopt writes ("" when it is no link)


@dataclass(frozen=True)
class Usage:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True)
class NightReport:
    """Everything one night did. ``proposal`` is the staged proposal's id, or "" when nothing was
    staged (dry run, nothing new, or no edit passed the gate)."""

    night_id: str
    project: str
    started_at: str
    finished_at: str
    dry_run: bool
    outcome: Literal["staged", "adopted", "no change", "nothing new", "dry run", "stopped"]
    message: str
    sessions: int
    requests: int
    tasks: int
    families: tuple[FamilyView, ...]
    changes: tuple[SkillChange, ...]
    edits: tuple[EditView, ...]
    held_out: HeldOut | None
    usage: Usage
    proposal: str = ""
    proposal_dir: str = ""
    stage_seconds: Mapping[str, float] = field(default_factory=dict)
    embedder: str = ""
    backends: Mapping[str, str] = field(default_factory=dict)
    history: tuple[Mapping[str, Any], ...] = ()  # earlier nights' held-out scores, for the chart

    @property
    def accepted(self) -> tuple[EditView, ...]:
        return tuple(e for e in self.edits if e.accepted)

    @property
    def rejected(self) -> tuple[EditView, ...]:
        return tuple(e for e in self.edits if not e.accepted)


@dataclass(frozen=True)
class Proposal:
    id: str  # the night id that staged it
    state: ProposalState
    directory: str
    created_at: str
    files: tuple[str, ...]  # live paths it changes
    accepted_edits: int
    verdict: str = ""


@dataclass(frozen=True)
class NightSummary:
    """One line of ``status``: what a past night did."""

    night_id: str
    started_at: str
    outcome: str
    sessions: int
    tasks: int
    accepted_edits: int
    held_out_before: float | None
    held_out_after: float | None
    cost_usd: float
    proposal: str = ""


@dataclass(frozen=True)
class StagedReport:
    """A staged proposal's report as ``report`` shows it (:func:`engine.read_report`). The report
    was written when the proposal was staged (it says "adopt or reject it"); ``note`` says which
    proposal this is and its state now, and, asked for the latest, what the latest night did
    when that was not staging this proposal."""

    proposal: str
    state: ProposalState  # now, not when the report was written
    note: str  # one line; ``text`` begins with it
    path: str  # the staged file, unchanged
    format: str  # md | html | json
    text: str  # the report with the note first (json: "proposal_state", "note", "latest_night")
    latest_night: NightSummary | None = None  # the latest night, when it did not stage this one
    latest_message: str = ""  # what that night said (why it staged nothing)


NIGHT_COMMAND = "skillopt-sleep night"  # how a night names itself in the project's lock


@dataclass(frozen=True)
class Status:
    project: str
    state_dir: str
    nights: tuple[NightSummary, ...]
    pending: tuple[Proposal, ...]
    schedule: Mapping[str, Any]
    backends: Mapping[str, str]
    archive: Mapping[str, int]
    # what holds the project's lock now, if anything: {"pid", "command"} (a night, an adopt...)
    running: Mapping[str, Any] | None = None
    health: Mapping[str, str] = field(default_factory=dict)
    ended_since_last_night: int = 0  # sessions the Claude Code SessionEnd hook recorded
    interrupted: tuple[str, ...] = ()  # an adopt or rollback cut short, and what recovers it
    warnings: tuple[
        str, ...
    ] = ()  # state that could not be read (a damaged archive), and the way out


@dataclass(frozen=True)
class AdoptResult:
    proposal: str
    action: Literal["adopted", "rejected", "rolled back"]
    files: tuple[str, ...]
    backup_dir: str = ""
    message: str = ""
