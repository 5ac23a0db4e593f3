"""What a report shows of a large night: the families worth a card, a long diff's head, the
first rejected edits; and where the whole of each is on disk.

A night over hundreds of families must still open with its decision and fit an agent's context
(the MCP ``report`` tool hands the staged Markdown over whole), so both renderers take their cuts
from here. Nothing a decision needs is cut: every accepted edit is shown, the validation and
held-out scores are always there, and a cut ends by naming the file that has the whole
(``diff.patch`` and ``families.md`` in the proposal directory; ``report.json`` has every record,
every optimizer step included).

With these caps a staged night's Markdown does not grow with its families (a night of 500
families and a realistic proposal is under 16 KB, see ``tests/stage/test_report_bounds.py``);
it grows only with its accepted edits and its diff, up to :data:`DIFF_LINES` lines, and with
its changed files, up to :data:`STEPS` steps each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from skillopt_sleep.engine.records import EditView, FamilyView, NightReport

FAMILY_CARDS = 20  # families shown as a card; the others are one line
CARD_EXAMPLES = 1  # example requests on a card (families.md has every one)
CARD_CHARS = 160  # an example request or check on a card is cut to this many characters
CARD_CHECKS = 3  # checks on a card
REJECTED_EDITS = 10  # rejected edits shown in full (harmful ones first)
DIFF_LINES = 200  # lines of the diff shown
STEPS = 50  # optimizer steps shown per changed file, in its table and its chart

_Step = TypeVar("_Step")

FAMILIES_FILE = "families.md"
DIFF_FILE = "diff.patch"
JSON_FILE = "report.json"


@dataclass(frozen=True)
class Families:
    """The night's families in the order a reader needs them, split at the card cap."""

    featured: tuple[FamilyView, ...]
    rest: tuple[FamilyView, ...]


@dataclass(frozen=True)
class DiffHead:
    text: str  # the first lines of the diff, each ending in a newline
    omitted: int  # lines cut off after them


def ranked_families(report: NightReport) -> tuple[FamilyView, ...]:
    """Families routed to a file an accepted edit changed first, then those with failed
    sessions, those new tonight, and the larger ones (as the night chose what to replay)."""
    edited = {e.skill for e in report.accepted}
    return tuple(
        sorted(
            report.families,
            key=lambda f: (
                f.skill not in edited,
                -f.outcomes.get("failed", 0),
                f.new_tonight <= 0,
                -f.size,
                f.id,
            ),
        )
    )


def split_families(report: NightReport, cards: int = FAMILY_CARDS) -> Families:
    ranked = ranked_families(report)
    return Families(ranked[:cards], ranked[cards:])


def rejected_edits(report: NightReport, limit: int = REJECTED_EDITS) -> tuple[EditView, ...]:
    """The rejected edits worth reading in full: those the edit screen refused first (they may
    carry an injected instruction the user should see), then the harmful ones, then in step
    order."""
    ranked = sorted(report.rejected, key=lambda e: (not e.refused, not e.harmful))  # stable
    return tuple(ranked[:limit])


def first_steps(steps: Sequence[_Step], limit: int = STEPS) -> Sequence[_Step]:
    """The steps a report shows of a changed file: the first ``limit`` (a very large
    ``night.max_tasks`` runs thousands); ``report.json`` has every one."""
    return steps[:limit]


def diff_head(diff: str, limit: int = DIFF_LINES) -> DiffHead:
    """The first ``limit`` lines of ``diff``, split at ``\\n`` only (as ``patch`` reads it)."""
    lines = diff.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    if len(lines) <= limit:
        return DiffHead(diff, 0)
    return DiffHead("".join(f"{line}\n" for line in lines[:limit]), len(lines) - limit)


def beside(report: NightReport, name: str) -> str:
    """Where a file staged next to the report is: its full path once staged, else its name. A
    night that staged nothing, shown from its own folder (``proposal_dir`` is that folder), has
    only its report.json there, which holds every record."""
    if not report.proposal_dir:
        return name
    return str(PurePath(report.proposal_dir, name if report.proposal else JSON_FILE))
