"""The shape of a training run as groups of model calls, for the dry-run preflight estimate.

Upper bounds: every reflection may be re-asked once, every gate evaluates a fresh candidate, and
the skill is assumed to grow to ``SKILL_GROWTH_CHARS`` beyond the seed.
"""

from __future__ import annotations

import math
from statistics import fmean

from skillopt_core.backends.preflight import CallGroup
from skillopt_core.config import TrainConfig
from skillopt_core.envs.base import Environment
from skillopt_core.prompts import load_prompt

SKILL_GROWTH_CHARS = 2000
CASE_CHARS = 700
ROLLOUT_OUTPUT_TOKENS = 256
OPTIMIZER_OUTPUT_TOKENS = 2048


def _item_chars(env: Environment, split: str) -> int:
    items = env.items(split)
    if not items:
        return 0
    return int(
        fmean(len(str(i.get("question", ""))) + len(str(i.get("context", ""))) for i in items)
    )


def training_plan(config: TrainConfig, env: Environment, seed_skill: str) -> list[CallGroup]:
    train, val, test = (len(env.items(s)) for s in ("train", "val", "test"))
    steps_per_epoch = max(1, math.ceil(train / config.batch_size))
    steps = steps_per_epoch * config.epochs
    batch = min(config.batch_size, train)
    skill_chars = len(seed_skill) + SKILL_GROWTH_CHARS
    rollout_chars = skill_chars + len(load_prompt("qa_system")) + _item_chars(env, "train")
    reflect_chars = skill_chars + len(load_prompt("reflect")) + config.minibatch_size * CASE_CHARS
    minibatches = math.ceil(batch / config.minibatch_size) + 1
    samples = config.eval_samples
    groups = [
        CallGroup("target", "rollout", steps * batch, rollout_chars, ROLLOUT_OUTPUT_TOKENS),
        CallGroup(
            "optimizer", "reflect", steps * minibatches * 2, reflect_chars, OPTIMIZER_OUTPUT_TOKENS
        ),
        CallGroup(
            "target", "gate", (steps + 1) * val * samples, rollout_chars, ROLLOUT_OUTPUT_TOKENS
        ),
        CallGroup("target", "final eval", 2 * test * samples, rollout_chars, ROLLOUT_OUTPUT_TOKENS),
    ]
    if config.slow_update:
        groups += [
            CallGroup(
                "target",
                "slow update",
                config.epochs * 2 * batch,
                rollout_chars,
                ROLLOUT_OUTPUT_TOKENS,
            ),
            CallGroup(
                "optimizer", "slow update", config.epochs, 2 * skill_chars + 10 * CASE_CHARS, 800
            ),
        ]
        if config.slow_update_gated:
            groups.append(
                CallGroup(
                    "target",
                    "slow gate",
                    config.epochs * val * samples,
                    rollout_chars,
                    ROLLOUT_OUTPUT_TOKENS,
                )
            )
    if config.meta_skill:
        groups.append(
            CallGroup("optimizer", "meta", config.epochs, len(load_prompt("meta")) + 60 * 200, 800)
        )
    return groups
