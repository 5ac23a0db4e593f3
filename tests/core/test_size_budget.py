"""The skill's size budget (``[gate] max_chars``; a night's ``train.max_learned_chars``): a skill
is read into every session of the agent that loads it, and nothing stopped it from growing night
after night. Past the budget, an edit that makes the editable text longer is refused unweighed;
the optimizer hears of the budget as the text nears it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from skillopt_core.config import ConfigError, TrainConfig, load_config
from skillopt_core.optim.gate import GatePolicy, over_budget, room_note
from skillopt_core.skill.document import editable_chars
from tests.core.test_trainer import FAST, SEED_SKILL, train

FRONT = "---\nname: s\ndescription: d\n---\n"
USER = "<!-- skillopt:protected user -->\nmine, however long\n<!-- /skillopt:protected user -->\n"


def test_the_budget_counts_only_the_text_the_optimizer_may_edit() -> None:
    learned = "- check the cookie first\n"
    assert editable_chars(FRONT + USER + learned) == len(learned)
    assert editable_chars(learned) == len(learned)


def test_an_edit_that_grows_the_text_past_the_budget_is_refused_and_one_that_shrinks_passes() -> (
    None
):
    policy = GatePolicy(max_chars=40)
    small, big = "- a\n", "- a\n" + "- b line that is long enough\n" * 3
    assert over_budget(small, big, policy).startswith("the skill would grow to")
    assert over_budget(big, big[:-10], policy) == ""  # over, but shorter: weighed
    assert over_budget(big, big, policy) == ""  # same length: weighed
    assert over_budget(small, small + "- c\n", policy) == ""  # within the budget
    assert over_budget(small, big, GatePolicy()) == ""  # no budget


def test_the_optimizer_hears_of_the_budget_only_near_it() -> None:
    assert room_note("x" * 10, GatePolicy(max_chars=100)) == ""
    assert "holds 80 of at most 100 characters" in room_note("x" * 80, GatePolicy(max_chars=100))
    assert room_note("x" * 80, GatePolicy()) == ""


def test_training_under_a_tight_budget_never_grows_the_skill_past_it(tmp_path: Path) -> None:
    budget = editable_chars(SEED_SKILL) + 20
    trainer = train(tmp_path, replace(FAST, gate=GatePolicy(max_chars=budget)))
    best = (tmp_path / "best_skill.md").read_text()
    assert editable_chars(best) <= budget
    history = json.loads((tmp_path / "history.json").read_text())
    refused = [h for h in history if "over its budget" in str(h.get("decision", ""))]
    assert refused, [h.get("decision") for h in history]
    assert len(history) == trainer.total_steps  # refusals do not stop the run
    # refused for size, not for harm: never blamed, so never blocked on a later night
    refused_contents = {e["content"] for h in refused for e in h.get("rejected_edits", [])}
    assert not refused_contents
    assert not any(r["step"] in {h["step"] for h in refused} for r in trainer.rejected.to_json())


def test_without_a_budget_the_run_is_as_before(tmp_path: Path) -> None:
    unbounded = train(tmp_path / "a")
    bounded = train(tmp_path / "b", replace(FAST, gate=GatePolicy(max_chars=10**6)))
    assert (tmp_path / "a" / "best_skill.md").read_text() == (
        tmp_path / "b" / "best_skill.md"
    ).read_text()
    assert unbounded.history == bounded.history
    assert "max_chars" not in TrainConfig().training_identity()["gate"]  # old runs still resume


@pytest.mark.parametrize("value", ["-1", "2.5", "true", '"800"'])
def test_a_bad_budget_in_the_config_is_an_error(value: str, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"[gate]\nmax_chars = {value}\n")
    with pytest.raises(ConfigError, match="max_chars"):
        load_config(path)


def test_a_budget_in_the_config_reaches_the_gate(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[gate]\nmax_chars = 4000\n")
    assert load_config(path).gate.max_chars == 4000
