"""``ScriptedBackend``: an in-process backend that answers from a script and records what it saw.

For unit tests of anything that calls a backend (reflection, judge synthesis, structured replies)
without a server: like pydantic-ai's FunctionModel, the answers are data or a function.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from skillopt_core.backends._protocol import BackendError, Completion, CompletionRequest

Answer = str | BaseException | Callable[[CompletionRequest], str]


class ScriptedBackend:
    """Answers requests in order from ``answers``: a string, an exception to raise, or a function
    of the request. Every request is kept in ``requests``; running out of answers is an error."""

    def __init__(self, *answers: Answer, name: str = "scripted", model: str = "scripted-1") -> None:
        self.name = name
        self.model = model
        self._answers: deque[Answer] = deque(answers)
        self.requests: list[CompletionRequest] = []

    def health_check(self) -> None:
        return None

    def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        if not self._answers:
            raise BackendError(
                f"{self.name}: no scripted answer left for request #{len(self.requests)}"
            )
        answer = self._answers.popleft()
        if isinstance(answer, BaseException):
            raise answer
        text = answer(request) if callable(answer) else answer
        return Completion(text=text, model=self.model)
