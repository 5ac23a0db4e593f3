"""The prompt a replay sends the target: the skill as instructions, the task as the request.

The target is shown the skill's body, never its frontmatter, and the request's ``skill``
metadata (what the simulated target reads) is that same body. A harness lists a skill's
description to decide when to load it; a replay asks what the loaded skill makes the model do.
So the description is inert for replays: rewriting it (each night names its tasks in the managed
skill's) changes no replay, and words it quotes from the requests are not guidance.
"""

from __future__ import annotations

from skillopt_core.backends._protocol import CompletionRequest, Message
from skillopt_core.markers import ENGINE_MARKER
from skillopt_core.skill.document import strip_frontmatter
from skillopt_sleep.records import Task

SYSTEM = "You are a coding agent. Follow the skill below where it applies.\n\n## Skill\n{skill}"


def replay_request(
    task: Task, skill: str, sample: int, max_tokens: int = 1200
) -> CompletionRequest:
    shown = strip_frontmatter(skill).strip()
    context = f"\n\nContext from the original session:\n{task.context}" if task.context else ""
    return CompletionRequest(
        messages=(Message("user", f"{ENGINE_MARKER}\n{task.intent}{context}"),),
        system=SYSTEM.format(skill=shown or "(no skill yet)"),
        max_tokens=max_tokens,
        purpose="replay",
        metadata={
            "task": {
                "id": task.id,
                "family": task.family,
                "intent": task.intent,
                "checks": [
                    {"kind": c.kind, "value": c.value, "description": c.description}
                    for c in task.checks
                ],
                "rubric": task.rubric,
            },
            "skill": shown,
            "sample": sample,
        },
    )
