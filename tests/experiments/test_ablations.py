"""Every ablation is an ordinary engine setting, and the mining ablation keeps only own evidence."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from experiments.ablations import ABLATIONS, overrides_for
from skillopt_sleep.engine import load_config
from skillopt_sleep.engine.select import Selection, without_families
from skillopt_sleep.records import Check, Evidence, Signal, SignalKind, Task


@pytest.mark.parametrize("name", sorted(ABLATIONS))
def test_each_ablation_is_a_valid_engine_setting(name: str) -> None:
    flat = load_config(None, overrides_for([name])).flat()
    for key, value in ABLATIONS[name].items():
        assert flat[key] == value


def test_the_defaults_keep_the_method_whole() -> None:
    flat = load_config(None).flat()
    assert flat["train.gate"] and flat["train.buffer"] and flat["train.credit"]
    assert flat["mine.families"]


def test_an_unknown_ablation_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown ablation"):
        overrides_for(["gates"])


def _task(name: str, request: str, corrections: tuple[str, ...]) -> Task:
    signals = tuple(Signal(SignalKind.CORRECTION, 0, c) for c in corrections)
    when = datetime(2026, 9, 1, tzinfo=timezone.utc)
    evidence = (Evidence("s", "claude", when, request, "failed", signals),)
    return Task(
        id=name,
        family="f-shared",
        intent=request,
        context="",
        checks=(Check("contains", "session cookie"),),  # the family's pooled judge
        evidence=evidence,
    )


def test_without_families_each_request_is_judged_by_its_own_feedback() -> None:
    corrected = _task("t1", "fix the login test", ("still failing - look at the session cookie",))
    silent = _task("t2", "login test broken again", ())
    selection = Selection((corrected, silent), (), (), ("f-shared",), "val")
    alone = without_families(selection)
    (task,) = alone.train
    assert task.family == "t1" and [c.value for c in task.checks] == ["session cookie"]
    assert alone.gate_split == "train" and alone.val == alone.train
