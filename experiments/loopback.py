"""The proof through a real SDK: the target is ``openai:fake-model`` behind a loopback server.

Everything a night does is unchanged — the engine's OpenAI backend, the official ``openai`` SDK,
HTTP — except that the server on the other end is :class:`~skillopt_core.testing.FakeModelServer`
answering with the simulated world. The wire carries no metadata, so the responder reads the
replay prompt back (the skill from the system prompt, the request after the engine marker) and
looks the request's hidden requirement up in the persona's own days, as the world would know it.
The optimizer stays ``mock`` (it is the simulated developer's judgement, not a model under test).
A user's ``HTTP(S)_PROXY`` is bypassed for the loopback address (no proxy can reach it), and the
result names the target but not the server's port, so the same seed writes the same JSON.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from experiments.personas import PERSONAS, held_out, simulate
from experiments.proof import ExperimentResult, ExperimentSpec, Progress, run
from skillopt_core.backends._protocol import CompletionRequest
from skillopt_core.backends.mock import HANDLERS, MockSettings
from skillopt_core.markers import ENGINE_MARKER
from skillopt_core.testing import FakeModelServer
from skillopt_core.testing._wire import request_text
from skillopt_sleep.records import Check

TARGET = "openai:fake-model"
_SKILL = "## Skill\n"
_NO_PROXY = ("NO_PROXY", "no_proxy")
_CONTEXT = "\n\nContext from the original session:"


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def requirements(spec: ExperimentSpec) -> dict[str, Check]:
    """Every request the persona makes (training and held-out) -> its family's requirement."""
    persona = PERSONAS[spec.persona]
    sessions = simulate(persona, spec.train_days, spec.seed)
    table = {
        _key(s.turns[0].text): persona.family(s.family).requirement for s in sessions if s.family
    }
    for request in held_out(persona, spec.train_days, spec.held_out_days, spec.seed, sessions):
        table[_key(request.text)] = request.requirement
    return table


def responder(table: Mapping[str, Check], settings: MockSettings) -> Any:
    def answer(body: Mapping[str, Any]) -> str:
        api = "responses" if "input" in body else "chat"
        text = request_text(api, body)
        if _SKILL not in text or ENGINE_MARKER not in text:
            return "OK"  # health pings and anything that is not a replay
        skill = text.split(_SKILL, 1)[1].split(ENGINE_MARKER, 1)[0].strip()
        intent = text.split(ENGINE_MARKER, 1)[1].split(_CONTEXT, 1)[0].strip()
        check = table.get(_key(intent))
        checks = (
            []
            if check is None
            else [{"kind": check.kind, "value": check.value, "description": check.description}]
        )
        task = {
            "id": "w-" + hashlib.sha256(intent.encode()).hexdigest()[:12],
            "intent": intent,
            "checks": checks,
        }
        request = CompletionRequest.of(
            intent,
            purpose="replay",
            metadata={
                "task": task,
                "skill": "" if skill == "(no skill yet)" else skill,
                "sample": 0,
            },
        )
        return HANDLERS.get("replay")(request, settings)

    return answer


@contextmanager
def _loopback_unproxied() -> Iterator[None]:
    """Requests to 127.0.0.1 go straight to it for the block, whatever proxy the user set."""
    saved = {name: os.environ.get(name) for name in _NO_PROXY}
    for name, value in saved.items():
        os.environ[name] = ",".join(filter(None, (value, "127.0.0.1", "localhost")))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_loopback(
    spec: ExperimentSpec, keep: Path | None = None, progress: Progress | None = None
) -> ExperimentResult:
    import skillopt_sleep.replay  # noqa: F401  (registers the replay world with the mock handlers)

    settings = MockSettings(seed=spec.seed, profile=spec.profile)
    server = FakeModelServer(responder=responder(requirements(spec), settings))
    with _loopback_unproxied(), server as fake:
        options = f'{{profile = "{spec.profile}", base_url = "{fake.openai_base_url}", api_key = "loopback"}}'
        extra = {**spec.extra, "backends.target": TARGET, "backends.options": options}
        result = run(replace(spec, extra=extra), keep=keep, progress=progress)
    return replace(result, spec=replace(spec, extra={**spec.extra, "backends.target": TARGET}))
