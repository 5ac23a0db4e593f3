"""The deterministic ``mock`` backend: a small simulated world, not canned strings.

Used by the demo, the experiments and the tests. See :mod:`.world` for the simulation and
:mod:`.handlers` for how each request purpose is answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillopt_core.backends import BACKENDS, BackendSpec
from skillopt_core.backends._protocol import BackendError, Completion, CompletionRequest, Usage
from skillopt_core.backends.mock.handlers import HANDLERS, MockSettings


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class MockBackend:
    """Answers by request purpose through :data:`HANDLERS`; usage is estimated from text length."""

    name = "mock"

    def __init__(self, model: str = "mock-1", settings: MockSettings | None = None) -> None:
        self.model = model or "mock-1"
        self.settings = settings or MockSettings()

    def health_check(self) -> None:
        return None

    def complete(self, request: CompletionRequest) -> Completion:
        if request.purpose not in HANDLERS:
            raise BackendError(
                f"the mock world has no handler for purpose {request.purpose!r}",
                hint=f"register one in skillopt_core.backends.mock.HANDLERS (known: {', '.join(HANDLERS.names())})",
            )
        text = HANDLERS.get(request.purpose)(request, self.settings)
        usage = Usage(_tokens(request.prompt_text), _tokens(text))
        return Completion(text=text, usage=usage, cost_usd=0.0, model=self.model)


@BACKENDS.register("mock")
def _create(spec: BackendSpec, options: Mapping[str, Any]) -> MockBackend:
    settings = MockSettings(
        seed=int(options.get("seed", 0)),
        wrong_rate=float(options.get("wrong_rate", 0.25)),
        malformed_rate=float(options.get("malformed_rate", 0.08)),
        profile=str(options.get("profile", "")),
    )
    return MockBackend(spec.model, settings)


__all__ = ["HANDLERS", "MockBackend", "MockSettings"]
