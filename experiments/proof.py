"""The proof: a persona's days through the whole nightly pipeline, scored on held-out requests.

    result = run(ExperimentSpec(persona="researcher", seed=0, nights=4))

Generate the persona's days; for each of N nights write the days reached so far as transcripts,
then, per project, ``run_night`` (harvest -> mine -> select -> replay -> consolidate -> stage) and
``adopt`` what it staged. Held-out requests (the days after training, never written anywhere) are
scored before night 1 and after every night with the same replay + judge, on the skill each
project's agent would load. Everything comes from the engine's own records: edits and their gate
deltas from the night reports, calls and tokens from their ledgers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from experiments.ablations import overrides_for
from experiments.harm import harm_kind
from experiments.heldout import HeldOutScore, score_held_out
from experiments.personas import PERSONAS, held_out, simulate
from experiments.personas.transcripts import EPOCH
from experiments.world import PersonaWorld, isolated_world
from skillopt_sleep.engine import NightReport, adopt, load_config, run_night
from skillopt_sleep.engine.night import open_night_roles
from skillopt_sleep.stage.stats import paired_bootstrap, verdict


@dataclass(frozen=True)
class ExperimentSpec:
    persona: str = "researcher"
    seed: int = 0
    nights: int = 4
    train_days: int = 12
    held_out_days: int = 4
    samples: int = 2  # replays per held-out request
    ablate: tuple[str, ...] = ()
    profile: str = ""  # the simulated target ("" | "a" | "b")
    eval_profile: str | None = None  # score held-out on another target (transfer); None = same
    extra: Mapping[str, Any] = field(default_factory=dict)  # further engine overrides


@dataclass(frozen=True)
class EditRecord:
    night: int
    project: str
    op: str
    content: str
    anchor: str
    accepted: bool
    delta: float
    harm: str  # "" when harmless (judged by the observer, see experiments.harm)
    own: bool = False  # rejected on its own evidence: alone in what the gate weighed, delta < 0


@dataclass(frozen=True)
class NightRecord:
    night: int
    days: int  # training days written so far
    sessions: int
    outcomes: Mapping[str, str]  # project -> night outcome
    held_out: float
    calls: int
    tokens: int


@dataclass(frozen=True)
class ExperimentResult:
    spec: ExperimentSpec
    baseline: float
    nights: tuple[NightRecord, ...]
    final: float
    delta: float
    ci_low: float
    ci_high: float
    verdict: str
    held_out_n: int
    edits: tuple[EditRecord, ...]
    skills: Mapping[str, str]  # project -> final live skill text
    held_out_calls: int

    @property
    def accepted(self) -> tuple[EditRecord, ...]:
        return tuple(e for e in self.edits if e.accepted)

    @property
    def rejected(self) -> tuple[EditRecord, ...]:
        return tuple(e for e in self.edits if not e.accepted)

    @property
    def harmful_rejected(self) -> tuple[EditRecord, ...]:
        """Harmful edits the gate turned down on their own evidence: the edit alone scored lower
        (the engine's ``EditView.harmful``). One rejected only with its bundle, whose other edits
        may have done the harm, shows nothing about this edit."""
        return tuple(e for e in self.rejected if e.harm and e.own and e.delta < 0)

    @property
    def harmful_accepted(self) -> tuple[EditRecord, ...]:
        return tuple(e for e in self.accepted if e.harm)

    @property
    def calls(self) -> int:
        return sum(n.calls for n in self.nights)

    @property
    def tokens(self) -> int:
        return sum(n.tokens for n in self.nights)

    @property
    def improves(self) -> bool:
        return self.ci_low > 0

    @property
    def proof_holds(self) -> bool:
        return self.improves and bool(self.harmful_rejected)


@dataclass(frozen=True)
class SoFar:
    """What a run has shown so far: the baseline alone, one more night each time, then the
    finished result."""

    spec: ExperimentSpec
    held_out_n: int
    baseline: float
    nights: tuple[NightRecord, ...]
    edits: tuple[EditRecord, ...]
    result: ExperimentResult | None = None


Progress = Callable[[SoFar], None]
"""Told after the baseline, after every night and at the end, so a command line can show each
as it lands."""


UNMETERED: Mapping[str, Any] = {"budget.max_calls": 0}
"""The held-out scorer's setting: it scores after every night, so a night's call budget (400)
would stop a run of 8 nights or more (24 requests x 2 replays x 9 scorings)."""


def _config(
    world: PersonaWorld,
    project: Path,
    spec: ExperimentSpec,
    profile: str,
    more: Mapping[str, Any] | None = None,
) -> Any:
    overrides = {
        **world.overrides(),
        "night.seed": spec.seed,
        "backends.options": f'{{profile = "{profile}"}}',
        **overrides_for(spec.ablate),
        **spec.extra,
        **(more or {}),
    }
    return load_config(project, overrides)


def _skills(world: PersonaWorld, live: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Project name -> the text of the skill files its agent loads (the adopted learned skills)."""
    out: dict[str, str] = {}
    for name in world.persona.projects:
        texts = [
            Path(p).read_text(encoding="utf-8") for p in live.get(name, ()) if Path(p).is_file()
        ]
        out[name] = "\n".join(texts)
    return out


def _edits(night: int, project: str, report: NightReport, persona: Any) -> list[EditRecord]:
    return [
        EditRecord(
            night,
            project,
            e.op,
            e.content,
            e.anchor,
            e.accepted,
            e.delta,
            harm_kind(e.op, e.anchor, e.content, persona),
            e.harmful,
        )
        for e in report.edits
    ]


def run(
    spec: ExperimentSpec, keep: Path | None = None, progress: Progress | None = None
) -> ExperimentResult:
    persona = PERSONAS[spec.persona]
    sessions = simulate(persona, spec.train_days, spec.seed)
    requests = held_out(persona, spec.train_days, spec.held_out_days, spec.seed, sessions)
    eval_profile = spec.profile if spec.eval_profile is None else spec.eval_profile
    with isolated_world(persona, sessions, keep) as world:
        first = world.projects[0]
        scorer = open_night_roles(_config(world, first, spec, eval_profile, UNMETERED))[0]

        def score(live: Mapping[str, Sequence[str]]) -> HeldOutScore:
            return score_held_out(
                persona, requests, _skills(world, live), scorer.target, spec.samples
            )

        live: dict[str, list[str]] = {}
        baseline = score(live)
        nights: list[NightRecord] = []
        edits: list[EditRecord] = []

        def tell(result: ExperimentResult | None = None) -> None:
            if progress is not None:
                n = len(baseline.per_request)
                progress(SoFar(spec, n, baseline.mean, tuple(nights), tuple(edits), result))

        tell()
        latest = baseline
        for night in range(1, spec.nights + 1):
            days = round(spec.train_days * night / spec.nights)
            written_days = round(spec.train_days * (night - 1) / spec.nights)
            world.write_days(written_days, days)
            outcomes: dict[str, str] = {}
            calls = tokens = 0
            for project in world.projects:
                config = _config(world, project, spec, spec.profile)
                report = run_night(
                    project, config, home=world.home, now=EPOCH + timedelta(days=days, hours=3)
                )
                outcomes[project.name] = report.outcome
                calls += report.usage.calls
                tokens += report.usage.input_tokens + report.usage.output_tokens
                edits += _edits(night, project.name, report, persona)
                if report.proposal:
                    adopted = adopt(project, report.proposal)
                    paths = live.setdefault(project.name, [])
                    paths += [f for f in adopted.files if f not in paths]
            latest = score(live)
            written = sum(1 for s in sessions if s.day < days)
            nights.append(NightRecord(night, days, written, outcomes, latest.mean, calls, tokens))
            tell()
        ids = sorted(baseline.per_request)
        before = [baseline.per_request[i] for i in ids]
        after = [latest.per_request[i] for i in ids]
        mean, lo, hi = paired_bootstrap(before, after, seed=spec.seed)
        result = ExperimentResult(
            spec=spec,
            baseline=baseline.mean,
            nights=tuple(nights),
            final=latest.mean,
            delta=round(mean, 4),
            ci_low=round(lo, 4),
            ci_high=round(hi, 4),
            verdict=verdict(len(ids), lo, hi),
            held_out_n=len(ids),
            edits=tuple(edits),
            skills=_skills(world, live),
            held_out_calls=scorer.ledger.totals.calls,
        )
        tell(result)
        return result
