"""Every deliberate error derives from SkillOptError and carries its exit code and a readable text."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skillopt_core.backends import BackendSpec, create_backend
from skillopt_core.config import ConfigError, TrainConfig, validate
from skillopt_core.errors import EXIT_USAGE, SkillOptError, UsageError, exit_code_for
from skillopt_core.optim.evidence import dropped_warning, unusable
from skillopt_core.optim.schedule import LRSchedule
from skillopt_core.structured import StructuredReplyError, parse_json_reply


def test_structured_reply_errors_are_skillopt_errors_with_a_hint() -> None:
    with pytest.raises(StructuredReplyError) as caught:
        parse_json_reply("no json here", {"type": "object"})
    assert isinstance(caught.value, SkillOptError) and isinstance(caught.value, ValueError)
    assert caught.value.hint and exit_code_for(caught.value) == 1


def test_user_facing_value_errors_are_usage_errors() -> None:
    for bad in (
        lambda: BackendSpec.parse(" "),
        lambda: LRSchedule("sideways"),  # type: ignore[arg-type]
    ):
        with pytest.raises(UsageError) as caught:
            bad()
        assert exit_code_for(caught.value) == EXIT_USAGE


def test_unknown_names_read_cleanly_and_suggest() -> None:
    with pytest.raises(UsageError) as caught:
        create_backend("mokc")
    assert str(caught.value).startswith("unknown backend 'mokc' (did you mean 'mock'?)")


def test_validate_rejects_wrong_types_built_in_code() -> None:
    for bad in (
        replace(TrainConfig(), epochs=True),
        replace(TrainConfig(), epochs=2.5),  # type: ignore[arg-type]
        replace(TrainConfig(), slow_update="false"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigError):
            validate(bad)


def test_evidence_reads_the_history() -> None:
    dropped = {"proposed": 0, "minibatches": 2, "dropped_minibatches": ["dropped: x", "dropped: y"]}
    usable = {"proposed": 0, "minibatches": 2, "dropped_minibatches": ["dropped: x"]}
    assert unusable([dropped]) is not None
    assert unusable([dropped, usable]) is None, "one usable (if empty) reply is evidence"
    assert unusable([dropped, {**usable, "proposed": 3}]) is None
    assert (
        dropped_warning([dropped, usable]) == "3 of 4 reflections were dropped (first: dropped: x)"
    )
    assert dropped_warning([]) == ""
