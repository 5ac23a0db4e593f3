"""A secret split by a raw window's edge leaves no fragment behind.

Each text is kept as a raw window (its limit plus ``REDACT_MARGIN``) until ``seal`` redacts it. A
secret the window's edge cuts no longer matches its rule; and when the secrets before it are
redacted to shorter placeholders, the text ends below its limit, so the last cut no longer drops
the fragment. Found by the secrets-at-rest probe: 27 of a GitHub token's 36 characters (the last
six are a checksum) stayed in a tool result's excerpt, the harvest index and a night's report.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from skillopt_sleep.harvest._events import (
    _PROMPT_HEAD_CHARS,
    INPUT_CHARS,
    PROMPT_CHARS,
    PROMPT_TAIL_CHARS,
    REDACT_MARGIN,
    RESULT_CHARS,
    TEXT_CHARS,
    Event,
    FileState,
    assistant,
    call,
    result,
    seal,
)

GITHUB = "ghp_R7kQ2mZx9LbV4nWc8TfY1pHd6JsG3aXe5Uo0"  # 36 characters after the prefix
# redacted to placeholders far shorter than themselves: the text shrinks below its limit
SHRINKING = " ".join(
    "sk-ant-api03-" + (f"Q{i}x7Rb9Lm2Kd8Vn3Pf5Hw1Zt6Yc4Jg0" * 3)[:93] + "AA" for i in range(3)
)


def _head_cut(window: int, kept: int) -> str:
    """Text whose raw window of ``window`` characters ends ``kept`` characters into the token."""
    head = f"out: {SHRINKING} "
    filler = ("lorem " * 2000)[: window - kept - len(head) - 1] + " "
    return head + filler + GITHUB + " and then the rest of the output"


def _fragments(text: str, size: int = 10) -> list[str]:
    return [
        GITHUB[i : i + size] for i in range(len(GITHUB) - size + 1) if GITHUB[i : i + size] in text
    ]


def _sealed(event: Event, slot: int) -> str:
    events = [event]
    seal(events)
    return str(events[0][slot])


MAKERS: dict[str, tuple[Callable[[str], Event], int, int]] = {
    "assistant text": (lambda t: assistant(1.8e9, t), 3, TEXT_CHARS),
    "tool input": (lambda t: call(1.8e9, "c1", "Bash", t), 5, INPUT_CHARS),
    "tool result": (lambda t: result(1.8e9, "c1", t), 4, RESULT_CHARS),
}


@pytest.mark.parametrize("kind", sorted(MAKERS))
@pytest.mark.parametrize("kept", [8, 20, 31, 39])
def test_a_token_the_window_cuts_is_dropped_whole(kind: str, kept: int) -> None:
    make, slot, limit = MAKERS[kind]
    text = _head_cut(limit + REDACT_MARGIN, kept)
    assert GITHUB[:kept] in text[: limit + REDACT_MARGIN]  # the window does cut the token
    sealed = _sealed(make(text), slot)
    assert "[REDACTED:anthropic-key]" in sealed and len(sealed) < limit  # it shrank
    assert _fragments(sealed) == [], sealed[-80:]


def test_a_long_prompt_drops_the_tokens_its_two_windows_cut() -> None:
    """The head window's end and the tail window's start: the tail kept the last 25 characters
    of a 48-character key."""
    key = "sk-proj-" + "Zx8Kd4Jf6Gs0Ya2Ue8Io5Tr1Ew3BnQm7Lp9Vc2Hs6Dt0Wf"[:40]
    tail_window = PROMPT_TAIL_CHARS + REDACT_MARGIN
    question = " QUESTION: why?"
    filler = ("ipsum " * 1000)[: tail_window - 25 - len(SHRINKING) - 2 - len(question)]
    after_key = f" {SHRINKING} {filler}{question}"
    head = _head_cut(_PROMPT_HEAD_CHARS + REDACT_MARGIN, 20)
    prompt = head + " middle" * 2000 + " " + key + after_key
    assert prompt[-tail_window:].startswith(key[-25:])  # the tail window does cut the key
    state = FileState()
    state.add_user(1.8e9, prompt)
    seal(state.events)
    kept = str(state.events[0][3])
    assert "characters cut" in kept and kept.endswith(question) and len(kept) <= PROMPT_CHARS
    assert "[REDACTED:anthropic-key]" in kept
    assert _fragments(kept) == [] and key[-10:] not in kept  # neither window's cut token
    marker = kept[kept.index("\n[… ") : kept.index(" characters cut …]\n") + 19]
    _, shown_tail = kept.split(marker)
    assert shown_tail.startswith(" [REDACTED:anthropic-key] ")  # the cut key's rest, dropped
    assert shown_tail.endswith(f"{filler}{question}")
