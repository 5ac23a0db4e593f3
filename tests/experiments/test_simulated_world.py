"""The simulated world judges guidance on meaning, sees harm, and has two targets."""

from __future__ import annotations

from skillopt_core.backends.mock import MockBackend, MockSettings
from skillopt_core.backends.mock.meaning import concepts, paraphrase, read_line
from skillopt_core.backends.mock.night import opposite
from skillopt_sleep.records import Check, Task
from skillopt_sleep.replay import NightEnvironment, task_item
from skillopt_sleep.replay.mock import addressed, contradicted, crowded_out, need

YEAR = Check("contains", "publication year")
ARXIV = Check("regex", r"(?m)^\s*arXiv:\d+\.\d+\s*$", "like arXiv:2510.04618")
MISC = Check("not_contains", "misc entries")
GUIDANCE = "- Include 'publication year' in the answer: mention the publication year of each paper"


def test_a_paraphrase_means_the_same() -> None:
    for salt in range(20):
        reworded = paraphrase(GUIDANCE, salt)
        assert concepts(reworded) == concepts(GUIDANCE)
        assert addressed(YEAR, reworded)
    assert any(paraphrase(GUIDANCE, salt) != GUIDANCE for salt in range(20))


def test_guidance_is_matched_on_meaning_not_verbatim() -> None:
    assert addressed(YEAR, "- Always state each paper's publication years.")
    assert addressed(ARXIV, "- Put the arXiv identifier on a separate line.")
    assert not addressed(ARXIV, "- Mention the arXiv identifier.")  # the own-line part is missing
    assert addressed(MISC, "- Avoid misc entries in bibtex.")
    assert not addressed(MISC, "- Use misc entries.")  # the wrong polarity


def test_harm_is_seen() -> None:
    contradiction = [read_line("- " + opposite(GUIDANCE))]
    assert contradicted(YEAR, contradiction)
    broad = [read_line("- In every answer, whatever the request: keep it under 40 words.")]
    assert crowded_out(YEAR, broad) and not crowded_out(Check("max_chars", "280"), broad)
    assert need(Check("max_chars", "280")) == (frozenset({"brief"}), False)


def _pass_rate(profile: str, check: Check, skill: str = "") -> float:
    env = NightEnvironment({"test": ()})
    target = MockBackend(settings=MockSettings(profile=profile))
    passed = 0.0
    for n in range(40):
        task = Task(
            id=f"t{n}", family="f", intent="summarize arXiv 2510.04618", context="", checks=(check,)
        )
        item = task_item(task)
        passed += env.score(item, env.rollout(skill, item, target)).hard
    return passed / 40


def test_two_targets_with_different_weaknesses() -> None:
    assert _pass_rate("", YEAR) < 0.1 and _pass_rate("", MISC) < 0.1
    assert _pass_rate("a", MISC) > 0.9 and _pass_rate("a", YEAR) < 0.1
    assert _pass_rate("b", YEAR) > 0.9 and _pass_rate("b", MISC) < 0.1
    assert _pass_rate("", YEAR, GUIDANCE) > 0.9
