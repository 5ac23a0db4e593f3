from __future__ import annotations

import pytest

from skillopt_core.optim.buffer import RejectedBuffer
from skillopt_core.optim.gate import GatePolicy, decide
from skillopt_core.records import Edit, EditOp, EvalResult


def result(hard: dict[str, float], soft: dict[str, float] | None = None) -> EvalResult:
    soft = soft or hard
    return EvalResult(
        "h",
        "val",
        sum(hard.values()) / len(hard),
        sum(soft.values()) / len(soft),
        hard,
        soft,
        len(hard),
    )


def test_strict_improvement_required_ties_rejected() -> None:
    current = result({"a": 1, "b": 0})
    tie = result({"a": 0, "b": 1})
    decision = decide(current, tie, GatePolicy())
    assert not decision.accepted
    assert "tie" in decision.reason
    assert decision.per_item_delta == {"a": -1, "b": 1}


def test_improvement_accepted_and_worse_rejected() -> None:
    current = result({"a": 1, "b": 0, "c": 0})
    assert decide(current, result({"a": 1, "b": 1, "c": 0}), GatePolicy()).accepted
    assert not decide(current, result({"a": 0, "b": 0, "c": 0}), GatePolicy()).accepted


@pytest.mark.parametrize("min_delta", [float("nan"), -1.0])
def test_a_nan_or_negative_min_delta_never_lets_a_regression_through(min_delta: float) -> None:
    current = result({"a": 1, "b": 0, "c": 0})
    worse = result({"a": 0, "b": 0, "c": 0})
    assert not decide(current, worse, GatePolicy(min_delta=min_delta)).accepted
    assert not decide(current, current, GatePolicy(min_delta=min_delta)).accepted


def test_no_regression_mode_rejects_a_net_gain_that_breaks_one_item() -> None:
    current = result({"a": 1, "b": 0, "c": 0})
    candidate = result({"a": 0, "b": 1, "c": 1})
    assert decide(current, candidate, GatePolicy()).accepted
    decision = decide(current, candidate, GatePolicy(no_regression=True))
    assert not decision.accepted
    assert "regresses 1 item" in decision.reason


def test_soft_and_mixed_metrics() -> None:
    current = result({"a": 0, "b": 0}, {"a": 0.2, "b": 0.2})
    candidate = result({"a": 0, "b": 0}, {"a": 0.6, "b": 0.2})
    assert not decide(current, candidate, GatePolicy(metric="hard")).accepted
    assert decide(current, candidate, GatePolicy(metric="soft")).accepted
    mixed = decide(current, candidate, GatePolicy(metric="mixed", mixed_weight=0.5))
    assert mixed.accepted
    assert abs(mixed.candidate - 0.2) < 1e-9


def edit(text: str) -> Edit:
    return Edit(EditOp.ADD, "", text)


def test_buffer_blocks_edits_rejected_alone_or_twice() -> None:
    buffer = RejectedBuffer()
    buffer.add([edit("good"), edit("harmful")], -0.1, step=0)
    assert buffer.blocked_keys() == set()
    buffer.add([edit("harmful")], -0.2, step=1)
    assert buffer.blocked_keys() == {edit("harmful").key()}
    buffer.add([edit("other"), edit("good")], 0.0, step=2)
    assert edit("good").key() in buffer.blocked_keys()


def test_buffer_round_trips_and_prompt_view_is_deduplicated() -> None:
    buffer = RejectedBuffer()
    buffer.add([edit("x")], -0.1, 0)
    buffer.add([edit("x"), edit("y")], -0.05, 3)
    restored = RejectedBuffer.from_json(buffer.to_json())
    assert restored.to_json() == buffer.to_json()
    view = restored.for_prompt()
    assert [v["content"] for v in view] == ["y", "x"]
    assert view[1]["step"] == 3
