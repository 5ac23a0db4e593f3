from __future__ import annotations

import pytest

from skillopt_core.backends import BackendError, BackendUnavailable, CompletionRequest
from skillopt_core.testing import ScriptedBackend


def test_answers_in_order_from_text_functions_and_exceptions() -> None:
    backend = ScriptedBackend("one", lambda r: r.purpose.upper(), BackendUnavailable("down"))
    assert backend.complete(CompletionRequest.of("a")).text == "one"
    assert backend.complete(CompletionRequest.of("b", purpose="reflect")).text == "REFLECT"
    with pytest.raises(BackendUnavailable, match="down"):
        backend.complete(CompletionRequest.of("c"))
    with pytest.raises(BackendError, match="no scripted answer left for request #4"):
        backend.complete(CompletionRequest.of("d"))
    assert [r.messages[0].content for r in backend.requests] == ["a", "b", "c", "d"]
