"""The report's wording and numbers, shared by the Markdown and the HTML renderers.

Both renderers must say the same thing in the same words (a user may read ``report.md`` in a
terminal and ``report.html`` in a browser), so every sentence that interprets a number lives
here once. Nothing in this module escapes: callers escape for their own format.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillopt_sleep.engine.records import FamilyView, HeldOut, NightReport, SkillChange

TRAIN_GATE_NOTE = (
    "gated on training tasks: too few validation tasks existed, so this score is optimistic"
)

VERDICT_MEANING = {
    "better": "the proposal did better on tasks it never trained on",
    "worse": "the proposal did worse on tasks it never trained on; think twice before adopting",
    "no measurable change": "the interval includes zero, so the difference may be noise",
    "too few tasks to tell": "fewer than 3 held-out tasks, so no verdict either way",
}


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def pct(value: Any) -> str:
    """A score in [0, 1] as a percentage ("62.5%"); "n/a" when missing or not a number."""
    number = _finite(value)
    if number is None:
        return "n/a"
    text = f"{number * 100:.1f}".rstrip("0").rstrip(".")
    return f"{'0' if text == '-0' else text}%"


def pts(value: Any) -> str:
    """A score difference in percentage points, always signed ("+12.5 pts", "−3 pts")."""
    number = _finite(value)
    if number is None:
        return "n/a"
    text = f"{abs(number) * 100:.1f}".rstrip("0").rstrip(".")
    if text == "0":
        return "±0 pts"
    return f"{'+' if number > 0 else '−'}{text} pts"


def interval(lo: Any, hi: Any) -> str:
    """A confidence interval of a difference, units once: "+5 to +35 pts"."""
    low = pts(lo)
    return f"{low.removesuffix(' pts')} to {pts(hi)}"


def count(value: int) -> str:
    return f"{value:,}"


def usd(value: float) -> str:
    """Dollars with enough digits to show the small per-night costs of cheap models."""
    number = _finite(value) or 0.0
    return f"${number:,.2f}" if number >= 1 or number == 0 else f"${number:.4f}"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{count(n)} {word if n == 1 else (many or word + 's')}"


def backend_spec(role: str, spec: str) -> str:
    """A role's backend as the reports show it: an unset judge is not a blank but a choice."""
    if spec:
        return spec
    return "none (rule checks only)" if role == "judge" else "none"


def one_line(text: str, limit: int = 400) -> str:
    """Collapse whitespace so a request fits a list item; cut long ones with an ellipsis."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def skill_label(path: str) -> str:
    """A short name for a skill or memory file: ``name/SKILL.md`` or the file name."""
    if not path:
        return "not routed"
    parts = PurePath(path).parts
    return "/".join(parts[-2:]) if parts and parts[-1] == "SKILL.md" else parts[-1]


def _moment(text: str) -> datetime | None:
    try:  # Python 3.10's fromisoformat does not take a "Z" suffix
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def ran(started: str, finished: str) -> str:
    """When the night ran, in UTC to the second, and how long it took ("… UTC, took 4 min 2 s")."""
    start, end = _moment(started), _moment(finished)
    if start is None:
        return f"{started} → {finished}" if finished else started
    text = start.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    if end is None:
        return text
    seconds = max(0, round((end - start).total_seconds()))
    minutes, rest = divmod(seconds, 60)
    took = f"{minutes} min {rest} s" if minutes else f"{rest} s"
    return f"{text}, took {took}"


def size_counts(sizes: Sequence[int], groups: int = 8) -> str:
    """Family sizes, largest first, equal ones counted: "13, 12 ×40, 2 ×300"; past ``groups``
    distinct sizes the middle is cut ("…") so the line stays short whatever the night."""
    counted = sorted(Counter(sizes).items(), reverse=True)
    parts = [f"{size} ×{n}" if n > 1 else str(size) for size, n in counted]
    return ", ".join([*parts[: groups - 2], "…", parts[-1]] if len(parts) > groups else parts)


def more_families(rest: Sequence[FamilyView]) -> str:
    """The families a report shows no card for, in one line."""
    requests = sum(f.size for f in rest)
    return (
        f"{plural(len(rest), 'more family', 'more families')} with "
        f"{plural(requests, 'request')} (sizes {size_counts([f.size for f in rest])})."
    )


ALL_FAMILIES = "Every family, with all its example requests and checks, is in"


def diff_cut(omitted: int) -> str:
    return f"… {plural(omitted, 'more line')} not shown; the whole diff is in"


def rejected_cut(omitted: int) -> str:
    return f"{plural(omitted, 'more rejected edit')} not shown; every edit is in"


def steps_cut(omitted: int) -> str:
    return f"… {plural(omitted, 'more step')} not shown; every step is in"


def gate_note(change: SkillChange) -> str:
    return TRAIN_GATE_NOTE if change.gate_split == "train" else "gated on validation tasks"


def held_out_sentence(held: HeldOut | None) -> str:
    if held is None:
        return (
            "No held-out tasks yet: tonight's change is judged only by the validation gate. "
            "Held-out tasks accumulate as more sessions are mined."
        )
    return (
        f"Held-out score {pct(held.before)} → {pct(held.after)} "
        f"({pts(held.after - held.before)}; 95% interval {interval(held.ci_low, held.ci_high)}) "
        f"on {plural(held.n, 'task')}. Verdict: {held.verdict} — "
        f"{VERDICT_MEANING.get(held.verdict, '')}."
    )


def decision(report: NightReport) -> str:
    """The first thing a user reads: what, if anything, they have to decide tonight."""
    accepted, files = len(report.accepted), len(report.changes)
    name = report.proposal or report.night_id
    if report.outcome == "staged":
        return (
            f"Proposal {name} is staged: {plural(accepted, 'accepted edit')} to "
            f"{plural(files, 'file')}. Review the evidence and the diff below, then run "
            f"`skillopt-sleep adopt {name}` or `skillopt-sleep reject {name}`."
        )
    if report.outcome == "adopted":
        return (
            f"Proposal {name} was adopted automatically (auto_adopt is on). "
            f"`skillopt-sleep rollback {name}` restores the previous files byte for byte."
        )
    if report.outcome == "dry run":
        return "Dry run: nothing was staged and no live file changed. Nothing to decide."
    if report.outcome == "nothing new":
        return "Nothing to decide: there were no new sessions since the last night."
    why = report.message or "no edit improved the validation score"
    return f"Nothing to decide: {why}, so nothing was staged."


@dataclass(frozen=True)
class StepRow:
    """One optimizer step, read by name from the trainer's loosely typed history record."""

    step: int
    train: float | None
    current: float | None
    candidate: float | None
    accepted: bool
    decision: str


def step_rows(steps: Sequence[Mapping[str, Any]]) -> list[StepRow]:
    rows = []
    for index, record in enumerate(steps):
        raw_step = _finite(record.get("step"))
        rows.append(
            StepRow(
                step=int(raw_step) if raw_step is not None else index,
                train=_finite(record.get("train_hard")),
                current=_finite(record.get("val_current")),
                candidate=_finite(record.get("val_candidate")),
                accepted=bool(record.get("accepted")),
                decision=str(record.get("decision", "")),
            )
        )
    return rows


@dataclass(frozen=True)
class NightPoint:
    night_id: str
    before: float | None
    after: float | None
    tonight: bool


def night_points(report: NightReport) -> list[NightPoint]:
    """Earlier nights' held-out scores and tonight's, oldest first, one point per night."""
    points: dict[str, NightPoint] = {}
    for entry in report.history:
        night = str(entry.get("night_id", ""))
        points[night] = NightPoint(
            night,
            _finite(entry.get("held_out_before")),
            _finite(entry.get("held_out_after")),
            tonight=False,
        )
    held = report.held_out
    points.pop(report.night_id, None)  # tonight's own line may already be in the history
    points[report.night_id] = NightPoint(
        report.night_id,
        held.before if held else None,
        held.after if held else None,
        tonight=True,
    )
    return list(points.values())


_NIGHT_ID = re.compile(r"^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(?:\d{2})?(?:-(\d+))?$")


def night_label(night_id: str) -> str:
    """A short axis label: ``11-23 03:17`` for ``20261123-031700``; a second night started in
    the same second (``20261123-031700-2``) is ``11-23 03:17 #2``; other ids as they are."""
    match = _NIGHT_ID.match(night_id)
    if not match:
        return one_line(night_id, 14)
    _, month, day, hour, minute, again = match.groups()
    return f"{month}-{day} {hour}:{minute}" + (f" #{again}" if again else "")
