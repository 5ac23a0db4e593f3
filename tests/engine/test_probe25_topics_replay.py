"""A replay is shown the skill's body, never its frontmatter: a harness lists the description to
decide when to load a skill, and the replay asks what the loaded skill makes the model do. The
simulated target must read what a real one is shown, or words the description quotes from the
requests count as guidance no model ever got, and rewriting the description (as each night does
for the managed skill) would move the gate's scores."""

from __future__ import annotations

from skillopt_core.backends.mock import MockBackend, MockSettings
from skillopt_sleep.records import Check, Task
from skillopt_sleep.replay import NightEnvironment, replay_request, task_item
from skillopt_sleep.skills.route import managed_skill_text, with_new_topics

YEAR = Check("contains", "publication year")
GUIDANCE = "- Always state each paper's publication year.\n"
QUOTED = "list the papers on sleep with their publication year"
REQUEST = "list the papers on memory consolidation"


def _pass_rate(skill: str) -> float:
    env = NightEnvironment({"test": ()})
    target = MockBackend(settings=MockSettings())
    passed = 0.0
    for n in range(20):
        task = Task(id=f"t{n}", family="f", intent=REQUEST, context="", checks=(YEAR,))
        item = task_item(task)
        passed += env.score(item, env.rollout(skill, item, target)).hard
    return passed / 20


def test_words_the_description_quotes_are_no_guidance() -> None:
    described = managed_skill_text([QUOTED])
    assert "publication year" in described
    assert _pass_rate(described) < 0.1
    assert _pass_rate(described + GUIDANCE) > 0.9


def test_a_new_description_does_not_change_a_replay() -> None:
    first = managed_skill_text(["summarise the paper as bullet points"]) + GUIDANCE
    later = with_new_topics(first, [QUOTED, "write the bibtex entry with the publication year"])
    assert later != first
    task = Task(id="t", family="f", intent=REQUEST, context="", checks=(YEAR,))
    assert replay_request(task, first, 0) == replay_request(task, later, 0)
