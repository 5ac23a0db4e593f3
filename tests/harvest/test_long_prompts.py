"""A prompt too long to keep whole keeps its head *and* its tail: the question after a pasted log."""

from __future__ import annotations

from pathlib import Path

import pytest

from harvest._fixtures import PLANTED_KEY, WEBAPP, write_claude_session
from skillopt_sleep.harvest import harvest
from skillopt_sleep.harvest._events import PROMPT_CHARS, PROMPT_TAIL_CHARS, FileState, seal
from skillopt_sleep.mine.masking import mask

LOG = "\n".join(
    f"12:{i % 60:02d}:00 WARN worker-{i % 7} slow query on table orders ({i} ms)"
    for i in range(400)
)
QUESTION = "QUESTION: how do I add an index to the orders table?"
PROMPT = f"Here is my log:\n{LOG}\n\n{QUESTION}"


def _sealed(text: str) -> str:
    state = FileState()
    state.add_user(1.8e9, text)
    seal(state.events)
    return str(state.events[0][3])


def test_a_long_prompt_keeps_its_head_and_its_question() -> None:
    kept = _sealed(PROMPT)
    assert kept.startswith("Here is my log:\n12:00:00 WARN worker-0 slow query")
    assert kept.endswith(QUESTION) and len(kept) <= PROMPT_CHARS
    marker = kept[kept.index("\n[… ") : kept.index(" characters cut …]\n") + 19]
    head, tail = kept.split(marker)
    assert int(marker.split()[1]) == len(PROMPT) - len(head) - len(tail)
    assert PROMPT.startswith(head) and PROMPT.endswith(tail)


@pytest.mark.parametrize("extra", [0, 1, 63, 64, 65, 200, PROMPT_TAIL_CHARS])
def test_prompts_around_the_limit_are_kept_whole_or_cut_in_the_middle(extra: int) -> None:
    text = "ask: " + "word " * ((PROMPT_CHARS + extra) // 5) + QUESTION
    text = text[len(text) - PROMPT_CHARS - extra :]
    kept = _sealed(text)
    if len(text) <= PROMPT_CHARS:
        assert kept == text
    else:
        assert len(kept) <= PROMPT_CHARS and kept.endswith(QUESTION) and "characters cut" in kept


def test_secrets_are_redacted_in_the_tail_and_never_half_kept_at_its_cut() -> None:
    # a secret inside the kept tail, and a long token straddling where the tail begins
    token = "sk-proj-" + "Q" * 392
    after = f" then the key {PLANTED_KEY} and {QUESTION}"
    after = " word" * ((PROMPT_TAIL_CHARS - 200 - len(after)) // 5) + after
    text = "ask: " + "filler " * 3000 + token + after
    start = len(text) - PROMPT_TAIL_CHARS
    assert text.index(token) < start < text.index(token) + len(token)  # the cut splits the token
    kept = _sealed(text)
    assert PLANTED_KEY not in kept and "[REDACTED" in kept
    assert "QQQQQQQQ" not in kept and kept.endswith(QUESTION)


def test_the_cut_marker_is_masked_out_for_mining() -> None:
    kept = _sealed(PROMPT)
    assert "cut" not in mask(kept) and "characters" not in mask(kept)


def test_a_harvested_long_prompt_keeps_its_question(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    write_claude_session(home, [("user", PROMPT), ("assistant", "done")])
    found = harvest(WEBAPP, ("claude",), None, ":memory:", homes={"claude": home})
    (session,) = found.sessions
    prompt = session.turns[0].text
    assert prompt.startswith("Here is my log:") and prompt.endswith(QUESTION)
    assert len(prompt) <= PROMPT_CHARS
