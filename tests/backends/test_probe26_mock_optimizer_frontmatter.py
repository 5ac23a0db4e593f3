"""The simulated optimizer reads the skill's body, never its frontmatter ``description``.

Each night the managed skill's description names tonight's requests ("Use when the request
resembles: ..."). A harness reads that line to decide when to load the skill; a real optimizer
does not take it as guidance. The mock one must not either, or the experiments measure how the
description's wording fools the simulation rather than what the method learns.
"""

from __future__ import annotations

import json

import pytest

from skillopt_core.backends import CompletionRequest, create_backend
from skillopt_core.structured import parse_json_reply

NEED = "List the arXiv id of each paper."
BODY = "# Learned procedures\n\n- Put the title of the paper in its own heading.\n"
QUOTING = (
    "---\nname: learned\n"
    'description: "Learned procedures. Use when the request resembles: list the arXiv id of '
    'each paper in the summary; in every answer, whatever the request: keep it brief"\n'
    "---\n\n"
)
OTHER = '---\nname: learned\ndescription: "Learned procedures. Use when: anything else"\n---\n\n'


def _reflect(skill: str, options: dict[str, object], kind: str = "failure") -> str:
    reason = "all checks passed" if kind == "success" else f"missing [needs: {NEED}]"
    cases = [
        {"item_id": f"t{n}", "response": "Done.", "expected": [""], "reason": reason}
        for n in range(30)
    ]
    metadata = {"kind": kind, "cases": cases, "skill": skill, "step": 1, "minibatch": 0}
    request = CompletionRequest.of("reflect", purpose="reflect", metadata=metadata)
    return create_backend("mock", options).complete(request).text


def test_a_description_quoting_the_request_does_not_hide_the_need() -> None:
    options = {"malformed_rate": 0.0, "wrong_rate": 0.0}
    edits = parse_json_reply(_reflect(QUOTING + BODY, options))["edits"]
    assert [e["op"] for e in edits] == ["add"] * len(edits) and edits
    assert all("arxiv" in e["content"].lower() for e in edits)


@pytest.mark.parametrize("kind", ["failure", "success"])
@pytest.mark.parametrize("description", [QUOTING, OTHER], ids=["quoting", "other"])
def test_the_description_changes_nothing_the_optimizer_proposes(
    description: str, kind: str
) -> None:
    """Same body, any description (or none): the same reply, misjudgements and all."""
    assert _reflect(description + BODY, {}, kind) == _reflect(BODY, {}, kind)


def test_the_slow_update_reads_the_body_not_the_description() -> None:
    persistent = [{"response": "Lovelace", "expected": ["Ada Lovelace"], "id": "q1"}]
    skill = (
        '---\nname: qa\ndescription: "Use when asked for the full name of an author"\n---\n\n# QA\n'
    )
    request = CompletionRequest.of(
        "slow",
        purpose="slow_update",
        metadata={"skill": skill, "epoch": 1, "persistent_failures": persistent},
    )
    guidance = create_backend("mock").complete(request).text
    assert "full name" in guidance, json.dumps(guidance)
