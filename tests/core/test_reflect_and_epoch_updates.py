from __future__ import annotations

import threading
from pathlib import Path

import pytest

from skillopt_core.backends import HandoffPending, create_backend
from skillopt_core.backends.mock.world import QA_RULES
from skillopt_core.config import ConfigError, config_from_mapping
from skillopt_core.envs.qa import QAEnvironment
from skillopt_core.optim.buffer import RejectedBuffer
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.reflect import make_minibatches, reflect_one
from skillopt_core.optim.slow import SLOW_UPDATE_BLOCK, meta_update, slow_update
from skillopt_core.parallel import parallel_map
from skillopt_core.records import EditOp, Item, Rollout, Score, ScoredRollout
from skillopt_core.skill import get_protected
from skillopt_core.testing import ScriptedBackend

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"


def scored(item_id: str, hard: float) -> ScoredRollout:
    return ScoredRollout(
        Item(item_id, {"answers": ["47"]}),
        Rollout(item_id, "forty-seven", ({"role": "user", "content": "How many?"},)),
        Score(hard, hard, "wrong" if not hard else "exact match"),
    )


def test_minibatches_split_failures_and_successes() -> None:
    batches = make_minibatches(
        [scored(f"f{i}", 0.0) for i in range(10)] + [scored("s", 1.0)], size=4
    )
    assert [(b.kind, len(b.cases)) for b in batches] == [
        ("failure", 4),
        ("failure", 4),
        ("failure", 2),
        ("success", 1),
    ]
    assert [b.index for b in batches] == [0, 1, 2, 3]


def test_reflect_parses_edits_and_tells_the_optimizer_its_budget() -> None:
    backend = ScriptedBackend(
        '{"edits": [{"op": "replace", "anchor": "a", "content": "b", "rationale": "r"}]}'
    )
    batch = make_minibatches([scored("f", 0.0)], 8)[0]
    outcome = reflect_one(
        backend, "skill a", batch, budget=3, rejected=RejectedBuffer(), meta_notes="", step=0
    )
    assert outcome.edits[0].op is EditOp.REPLACE and outcome.edits[0].source == "failure"
    prompt = backend.requests[0].messages[0].content
    assert "at most 3 edits" in prompt and "forty-seven" in prompt


def test_malformed_reply_twice_drops_the_minibatch_with_a_reason() -> None:
    backend = ScriptedBackend("no idea", "still prose")
    batch = make_minibatches([scored("f", 0.0)], 8)[0]
    outcome = reflect_one(
        backend, "s", batch, budget=2, rejected=RejectedBuffer(), meta_notes="", step=0
    )
    assert outcome.edits == () and outcome.dropped_reason.startswith("dropped:")
    assert len(backend.requests) == 2


def test_unknown_edit_op_drops_the_minibatch() -> None:
    backend = ScriptedBackend(
        '{"edits": [{"op": "rewrite-everything"}]}', '{"edits": [{"op": "rewrite-everything"}]}'
    )
    batch = make_minibatches([scored("f", 0.0)], 8)[0]
    outcome = reflect_one(
        backend, "s", batch, budget=2, rejected=RejectedBuffer(), meta_notes="", step=0
    )
    assert outcome.dropped_reason


def test_slow_update_writes_guidance_into_a_protected_block() -> None:
    env = QAEnvironment(TOY)
    evaluator = Evaluator(env, create_backend("mock"), workers=2)
    items = env.items("train")[:21]
    update = slow_update(
        create_backend("mock"),
        evaluator,
        "# QA\n",
        "# QA\n- Write numbers as digits (12, not twelve).\n",
        items,
        0,
    )
    assert update.candidate is not None and update.persistent
    block = get_protected(update.candidate, SLOW_UPDATE_BLOCK)
    assert block is not None and "full name" in block
    assert update.improved, "the digits rule fixed items during the epoch"


def test_meta_notes_summarise_the_edit_history() -> None:
    notes = meta_update(
        create_backend("mock"),
        "",
        [{"op": "add", "content": "A"}],
        [{"op": "add", "content": "B", "delta": -0.1}],
    )
    assert "Avoid" in notes and "Helped" in notes


def test_eval_samples_average_over_rollouts() -> None:
    env = QAEnvironment(TOY)
    skill = "\n".join(f"- {rule.guidance}" for rule in QA_RULES)
    one = Evaluator(env, create_backend("mock"), samples=1).evaluate(skill, "val")
    many = Evaluator(env, create_backend("mock"), samples=5).evaluate(skill, "val")
    assert one.n == many.n == 35
    assert any(v not in (0.0, 1.0) for v in many.per_item_hard.values()), (
        "per-item means over 5 samples"
    )


def test_parallel_map_keeps_order_and_stops_on_errors() -> None:
    assert parallel_map(lambda x: x * 2, list(range(50)), 8) == [x * 2 for x in range(50)]

    def boom(x: int) -> int:
        if x == 3:
            raise RuntimeError("dead backend")
        return x

    with pytest.raises(RuntimeError, match="dead backend"):
        parallel_map(boom, list(range(20)), 4)


def test_parallel_map_lets_every_handoff_prompt_be_written() -> None:
    seen: list[int] = []
    lock = threading.Lock()

    def handoff(x: int) -> int:
        with lock:
            seen.append(x)
        raise HandoffPending(f"prompt {x} written")

    with pytest.raises(HandoffPending):
        parallel_map(handoff, list(range(12)), 3)
    assert sorted(seen) == list(range(12))


def test_config_validation_messages() -> None:
    with pytest.raises(ConfigError, match="min_edits <= max_edits"):
        config_from_mapping({"lr": {"min": 5, "max": 2}})
    with pytest.raises(ConfigError, match=r"\[gate\] metric must be one of"):
        config_from_mapping({"gate": {"metric": "vibes"}})
    with pytest.raises(ConfigError, match="must be a table"):
        config_from_mapping({"gate": 3})
    config = config_from_mapping({"slow_update": {"gated": False}, "train": {"epochs": 2}})
    assert config.epochs == 2 and not config.slow_update_gated
