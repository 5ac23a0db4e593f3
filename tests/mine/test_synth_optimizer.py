"""Judge synthesis through an optimizer backend, and its fallback to the heuristic."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from skillopt_core.backends import BackendUnavailable
from skillopt_core.testing import ScriptedBackend
from skillopt_sleep.mine.candidates import Candidate
from skillopt_sleep.mine.synth import synthesize
from skillopt_sleep.records import Signal, SignalKind

WHEN = datetime(2026, 11, 21, tzinfo=timezone.utc)


def members() -> list[Candidate]:
    correction = Signal(
        SignalKind.CORRECTION, 0, "no, the arXiv id must be on its own line like arXiv:2605.23904"
    )
    return [
        Candidate(
            "summarize arXiv 2605.23904", "s1", "claude", "/p", WHEN, 0, (correction,), "failed"
        ),
        Candidate(
            "summary of arXiv 2510.04618 please",
            "s2",
            "codex",
            "/p",
            WHEN,
            0,
            (),
            "succeeded",
            reply="Summary...\narXiv:2510.04618",
        ),
    ]


def test_optimizer_designs_the_judge_and_invalid_checks_are_dropped() -> None:
    reply = {
        "intent": "Summarise the arXiv paper and give its id",
        "checks": [
            {
                "kind": "regex",
                "value": r"(?m)^arXiv:\d{4}\.\d{4,5}$",
                "description": "id on its own line",
            },
            {"kind": "regex", "value": "([unclosed", "description": "broken regex is dropped"},
            {"kind": "max_chars", "value": "lots", "description": "not a number, dropped"},
        ],
        "rubric": "A faithful five-sentence summary.",
    }
    backend = ScriptedBackend(json.dumps(reply))
    spec = synthesize("summarize arXiv 2605.23904", members(), backend)
    assert spec.source == "optimizer"
    assert [c.value for c in spec.checks] == [r"(?m)^arXiv:\d{4}\.\d{4,5}$"]
    assert spec.reference.endswith("arXiv:2510.04618"), "the accepted answer becomes the reference"
    request = backend.requests[0]
    assert request.json_schema is not None and request.purpose == "mine_synthesize"
    assert "own line" in request.messages[0].content, "the corrections are shown to the optimizer"


def test_unusable_replies_fall_back_to_the_heuristic() -> None:
    spec = synthesize(
        "summarize arXiv 2605.23904", members(), ScriptedBackend("no json", "still none")
    )
    assert spec.source == "heuristic"
    assert any(c.kind == "regex" and "arXiv" in c.value for c in spec.checks)


def test_a_failing_backend_falls_back_to_the_heuristic() -> None:
    assert (
        synthesize(
            "summarize arXiv 2605.23904",
            members(),
            ScriptedBackend(BackendUnavailable("connection refused")),
        ).source
        == "heuristic"
    )
