"""The size budget (``[gate] max_chars``; a night's ``train.max_learned_chars``) holds for the
slow update too. Its guidance is written into a protected block, which the budget did not count,
and with ``[slow_update] gated = false`` it was accepted without any check: a skill at its
budget grew by the whole block at every epoch's end, into every session that loads it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from skillopt_core.optim.gate import GatePolicy, learned_chars, over_budget
from skillopt_core.optim.slow import SLOW_UPDATE_BLOCK
from skillopt_core.skill import get_protected, set_protected
from skillopt_core.skill.document import editable_chars
from tests.core.test_trainer import FAST, SEED_SKILL, train

GUIDANCE = "## Long-term guidance\n- always write the full name of a person\n"


def test_the_budget_counts_the_slow_update_block_but_not_the_users_text() -> None:
    skill = "- a\n"
    with_block = set_protected(skill, SLOW_UPDATE_BLOCK, GUIDANCE)
    assert learned_chars(skill) == editable_chars(skill)
    assert learned_chars(with_block) > editable_chars(with_block) + len(GUIDANCE) - 1
    user = set_protected(skill, "user", "mine, however long " * 20)
    assert learned_chars(user) == editable_chars(user)
    policy = GatePolicy(max_chars=len(skill) + 10)
    assert over_budget(skill, with_block, policy).startswith("the skill would grow to")


@pytest.mark.parametrize("gated", [False, True])
def test_a_slow_update_never_pushes_the_learned_text_past_the_budget(
    tmp_path: Path, gated: bool
) -> None:
    budget = editable_chars(SEED_SKILL) + 20
    config = replace(FAST, gate=GatePolicy(max_chars=budget), slow_update_gated=gated)
    train(tmp_path, config)
    logs = sorted((tmp_path / "slow_update").glob("epoch_*/slow_update.json"))
    assert logs
    for path in logs:
        log = json.loads(path.read_text())
        assert log["guidance"] and not log["accepted"], log
        assert "over its budget" in log["reason"]
    best = (tmp_path / "best_skill.md").read_text()
    assert get_protected(best, SLOW_UPDATE_BLOCK) is None
    assert learned_chars(best) <= budget


def test_with_room_a_forced_slow_update_is_still_accepted(tmp_path: Path) -> None:
    config = replace(FAST, gate=GatePolicy(max_chars=10**6), slow_update_gated=False)
    train(tmp_path, config)
    log = json.loads((tmp_path / "slow_update" / "epoch_00" / "slow_update.json").read_text())
    assert log["accepted"] and log["mode"] == "force-accept"
    assert get_protected((tmp_path / "best_skill.md").read_text(), SLOW_UPDATE_BLOCK)


def test_the_budget_counts_the_block_the_slow_update_writes() -> None:
    from skillopt_core.optim.gate import LEARNED_REGIONS

    assert SLOW_UPDATE_BLOCK in LEARNED_REGIONS
