"""Roll out and score a skill on items, with an evaluation cache keyed by skill hash."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import asdict
from statistics import fmean
from typing import Any

from skillopt_core.backends._protocol import Backend
from skillopt_core.envs.base import Environment
from skillopt_core.parallel import parallel_map
from skillopt_core.records import EvalResult, Item, ScoredRollout
from skillopt_core.skill import skill_hash


class Evaluator:
    """Scores skills on splits. ``cache`` maps ``hash|split|samples|target`` to EvalResult JSON
    and may be persisted by the caller, so a resumed run never pays twice for the same
    evaluation; a run resumed with another target model evaluates afresh (its scores are not the
    other model's)."""

    def __init__(
        self,
        env: Environment,
        target: Backend,
        *,
        samples: int = 1,
        workers: int = 8,
        cache: MutableMapping[str, dict[str, Any]] | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.env = env
        self.target = target
        self.samples = max(1, samples)
        self.workers = workers
        self.cache: MutableMapping[str, dict[str, Any]] = cache if cache is not None else {}
        self._on_change = on_change
        self._target_id = f"{getattr(target, 'name', '')}:{getattr(target, 'model', '')}"

    def run(self, skill: str, items: Sequence[Item], samples: int = 1) -> list[ScoredRollout]:
        """Every (item, sample) rolled out and scored, in input order."""
        jobs = [(item, sample) for item in items for sample in range(samples)]

        def one(job: tuple[Item, int]) -> ScoredRollout:
            item, sample = job
            rollout = self.env.rollout(skill, item, self.target, sample)
            return ScoredRollout(item, rollout, self.env.score(item, rollout))

        return parallel_map(one, jobs, self.workers)

    def cache_key(self, skill: str, split: str) -> str:
        """Where the evaluation of ``skill`` on ``split`` is cached."""
        return f"{skill_hash(skill)}|{split}|{self.samples}|{self._target_id}"

    def evaluate(self, skill: str, split: str) -> EvalResult:
        key = self.cache_key(skill, split)
        cached = self._cached(key)
        if cached is not None:
            return cached
        items = self.env.items(split)
        scored = self.run(skill, items, self.samples)
        result = summarise(skill_hash(skill), split, scored)
        self.cache[key] = asdict(result)
        if self._on_change is not None:
            self._on_change()
        return result

    def _cached(self, key: str) -> EvalResult | None:
        """The cached result under ``key``; an entry of the wrong shape is evaluated again."""
        entry = self.cache.get(key)
        if not isinstance(entry, dict):
            return None
        try:
            return EvalResult(**entry)
        except TypeError:
            return None


def summarise(skill_id: str, split: str, scored: Sequence[ScoredRollout]) -> EvalResult:
    hard: dict[str, list[float]] = {}
    soft: dict[str, list[float]] = {}
    for entry in scored:
        hard.setdefault(entry.item.id, []).append(entry.score.hard)
        soft.setdefault(entry.item.id, []).append(entry.score.soft)
    per_hard = {k: fmean(v) for k, v in hard.items()}
    per_soft = {k: fmean(v) for k, v in soft.items()}
    return EvalResult(
        skill_hash=skill_id,
        split=split,
        hard=fmean(per_hard.values()) if per_hard else 0.0,
        soft=fmean(per_soft.values()) if per_soft else 0.0,
        per_item_hard=per_hard,
        per_item_soft=per_soft,
        n=len(per_hard),
    )
