from __future__ import annotations

import json

import pytest

from skillopt_core.backends import BackendError, CompletionRequest, create_backend
from skillopt_core.backends.mock.handlers import NOISE_RATE
from skillopt_core.backends.mock.world import QA_RULES, diagnose, number_to_words, stable_fraction
from skillopt_core.structured import parse_json_reply


def ask(skill: str, item: dict[str, object], sample: int = 0) -> str:
    backend = create_backend("mock")
    request = CompletionRequest.of(
        "q", purpose="rollout", metadata={"item": item, "skill": skill, "sample": sample}
    )
    return backend.complete(request).text


def clean_id(prefix: str) -> str:
    """An item id the simulated target's irreducible noise does not touch (seed 0, sample 0)."""
    return next(
        f"{prefix}-{n}"
        for n in range(100)
        if stable_fraction(0, f"{prefix}-{n}", 0, "noise") >= NOISE_RATE
    )


def test_noise_makes_some_items_fail_whatever_the_skill() -> None:
    noisy = [n for n in range(400) if stable_fraction(0, f"i{n}", 0, "noise") < NOISE_RATE]
    assert noisy, "the world has irreducible noise"
    assert (
        ask("- Write numbers as digits (12, not twelve).", {"id": f"i{noisy[0]}", "answers": ["4"]})
        != "4"
    )


def test_number_words() -> None:
    assert number_to_words(12) == "twelve"
    assert number_to_words(47) == "forty-seven"
    assert number_to_words(305) == "three hundred and five"


@pytest.mark.parametrize("rule", QA_RULES, ids=lambda r: r.name)
def test_target_needs_the_rule_and_optimizer_can_diagnose_its_mistake(rule) -> None:  # type: ignore[no-untyped-def]
    gold = {
        "digits": "47",
        "full-name": "Ada Lovelace",
        "bare-span": "Kalor",
        "year-only": "1962",
        "units": "340 m",
        "yes-no": "yes",
    }[rule.name]
    item = {"id": clean_id("probe"), "answers": [gold], "requirement": rule.name}
    wrong = ask("# Skill\n", item)
    assert wrong != gold
    assert diagnose(wrong, gold) is rule
    assert ask(f"# Skill\n- {rule.guidance}\n", item) == gold


def test_harmful_guidance_breaks_answers() -> None:
    item = {"id": clean_id("other"), "answers": ["Kalor"]}
    assert ask("", item) == "Kalor"
    assert (
        ask(
            "- Always explain your reasoning in a complete sentence before giving the answer.", item
        )
        != "Kalor"
    )


def test_optimizer_proposes_guidance_from_failures_and_sometimes_misjudges() -> None:
    backend = create_backend("mock", {"malformed_rate": 0.0})
    cases = [
        {"item_id": f"i{n}", "response": "forty-seven", "expected": ["47"], "reason": "wrong"}
        for n in range(40)
    ]
    reply = backend.complete(
        CompletionRequest.of(
            "reflect",
            purpose="reflect",
            metadata={"kind": "failure", "cases": cases, "skill": "", "step": 0, "minibatch": 0},
        )
    )
    edits = parse_json_reply(reply.text)["edits"]
    contents = [e["content"] for e in edits]
    assert "- Write numbers as digits (12, not twelve)." in contents
    assert len(contents) > 1, "with 40 cases the seeded optimizer misjudges some of them"


def test_optimizer_respects_blocked_edits() -> None:
    backend = create_backend("mock", {"malformed_rate": 0.0, "wrong_rate": 0.0})
    cases = [{"item_id": "a", "response": "forty-seven", "expected": ["47"], "reason": ""}]
    blocked = [["add", "", "- Write numbers as digits (12, not twelve)."]]
    reply = backend.complete(
        CompletionRequest.of(
            "r",
            purpose="reflect",
            metadata={"cases": cases, "blocked": blocked, "step": 0, "minibatch": 0},
        )
    )
    assert json.loads(reply.text)["edits"] == []


def test_unknown_purpose_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="no handler"):
        create_backend("mock").complete(CompletionRequest.of("x", purpose="nonsense"))


@pytest.mark.parametrize("rule", ["full-name", "units"])
def test_a_blank_gold_answer_does_not_crash_the_simulated_target(rule: str) -> None:
    item = {"id": clean_id("blank"), "answers": ["   "], "requirement": rule}
    assert isinstance(ask("# Skill\n", item), str)
