"""Generic question-answering environment over item files ``{id, question, context?, answers}``.

A split directory holds ``train/items.json``, ``val/items.json`` and ``test/items.json``
(validated by :mod:`skillopt_core.envs.items`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillopt_core.backends._protocol import Backend, CompletionRequest, Message
from skillopt_core.envs.base import ENVIRONMENTS, canonical_split
from skillopt_core.envs.items import SplitFormatError, load_items
from skillopt_core.envs.scoring import best_scores
from skillopt_core.errors import UsageError
from skillopt_core.prompts import load_prompt
from skillopt_core.records import Item, Rollout, Score

__all__ = ["QAEnvironment", "SplitFormatError", "load_items"]


class QAEnvironment:
    name = "qa"

    def __init__(self, split_dir: str | Path) -> None:
        self.split_dir = Path(split_dir)
        self._cache: dict[str, list[Item]] = {}

    def items(self, split: str) -> list[Item]:
        if split == "all":
            return [*self.items("train"), *self.items("val"), *self.items("test")]
        split = canonical_split(split)
        if split not in self._cache:
            self._cache[split] = load_items(self.split_dir / split / "items.json")
        return self._cache[split]

    def rollout(self, skill: str, item: Item, target: Backend, sample: int = 0) -> Rollout:
        context = item.get("context") or ""
        question = load_prompt("qa_question").format(
            question=item.get("question"),
            context=f"Context:\n{context}\n\n" if context else "",
        )
        request = CompletionRequest(
            messages=(Message("user", question),),
            system=load_prompt("qa_system").format(skill=skill.strip() or "(no skill yet)"),
            max_tokens=256,
            purpose="rollout",
            metadata={"item": dict(item.fields), "sample": sample, "skill": skill},
        )
        completion = target.complete(request)
        answer = completion.text.strip()
        return Rollout(
            item_id=item.id,
            response=answer,
            trajectory=(
                {"role": "user", "content": question},
                {"role": "assistant", "content": answer},
            ),
            usage=completion.usage,
            sample=sample,
        )

    def score(self, item: Item, rollout: Rollout) -> Score:
        answers = [str(a) for a in item.get("answers", [])]
        hard, soft = best_scores(rollout.response, answers)
        if hard:
            return Score(1.0, soft, "exact match")
        return Score(
            0.0,
            soft,
            f"expected one of {answers!r}, got {rollout.response[:160]!r} (F1 {soft:.2f})",
        )


@ENVIRONMENTS.register("qa")
def _create(options: Mapping[str, Any]) -> QAEnvironment:
    if "split_dir" not in options:
        raise UsageError("the qa environment needs a split dir (--split-dir)")
    return QAEnvironment(options["split_dir"])
