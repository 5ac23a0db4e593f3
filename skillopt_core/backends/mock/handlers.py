"""How the simulated world answers each kind of request (dispatched on ``request.purpose``).

Other packages register handlers for their own purposes (e.g. the nightly engine's replays) with
:data:`HANDLERS`, so the one ``mock`` backend can simulate the whole pipeline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skillopt_core.backends._protocol import CompletionRequest
from skillopt_core.backends.mock.meaning import paraphrase
from skillopt_core.backends.mock.night import (
    interfering_line,
    misjudged_night_edit,
    overgeneralised,
    unaddressed_need,
)
from skillopt_core.backends.mock.world import (
    HARMFUL_GUIDANCE,
    QA_RULES,
    Rule,
    diagnose,
    harmful_in,
    needs_in,
    rule_by_name,
    stable_fraction,
)
from skillopt_core.registry import Registry
from skillopt_core.skill.document import strip_frontmatter

Handler = Callable[[CompletionRequest, "MockSettings"], str]

HANDLERS: Registry[Handler] = Registry("mock handler")

NOISE_RATE = 0.04
"""Share of (item, sample) pairs the simulated target gets wrong whatever the skill says."""


class MockSettings:
    """Knobs of the simulated world (seeded, so runs are reproducible).

    ``profile`` names a simulated target model with its own weaknesses ("" = weak at everything;
    see the replay world in ``skillopt_sleep.replay.mock``), so a skill's transfer is measurable.
    """

    def __init__(
        self,
        seed: int = 0,
        wrong_rate: float = 0.25,
        malformed_rate: float = 0.08,
        profile: str = "",
    ) -> None:
        self.seed = seed
        self.wrong_rate = wrong_rate
        self.malformed_rate = malformed_rate
        self.profile = profile


def _skill_of(request: CompletionRequest) -> str:
    return str(request.metadata.get("skill", request.system or ""))


def _guidance_of(request: CompletionRequest) -> str:
    """The skill as the simulated optimizer reads it: the body a replay shows the target. The
    frontmatter ``description`` says when to load the skill (each night it quotes the requests
    the managed skill learned from); it is not guidance, and must seed no choice either."""
    return strip_frontmatter(_skill_of(request)).strip()


@HANDLERS.register("rollout")
def answer_item(request: CompletionRequest, settings: MockSettings) -> str:
    """The simulated target: right when the skill covers the item's requirement, else the mistake."""
    item: Mapping[str, Any] = request.metadata.get("item", {})
    answers: Sequence[str] = item.get("answers") or [""]
    gold = str(answers[0])
    skill = _skill_of(request)
    sample = int(request.metadata.get("sample", 0))
    if stable_fraction(settings.seed, item.get("id"), sample, "noise") < NOISE_RATE:
        return "The passage does not say."
    harmful = harmful_in(skill)
    if any("round" in h for h in harmful) and re.search(r"\d", gold):
        return re.sub(r"\d+", lambda m: str(round(int(m.group()), -2)), gold)
    answer = gold
    rule = rule_by_name(str(item.get("requirement") or ""))
    if rule is not None and not rule.addressed_by(skill):
        answer = rule.mistake(gold)
    if any("explain" in h for h in harmful):
        answer = f"Reasoning from the passage, the answer is {answer}."
    return answer


def _misjudged_edit(skill: str, diagnosed: Rule | None, pick: float) -> dict[str, str]:
    """A plausible but wrong proposal: harmful guidance, an irrelevant rule, or deleting a good line."""
    guidance_lines = [
        line for line in skill.splitlines() if any(r.guidance in line for r in QA_RULES)
    ]
    if guidance_lines and pick < 0.2:
        line = guidance_lines[int(pick * 1000) % len(guidance_lines)]
        return {
            "op": "delete",
            "anchor": line.strip(),
            "content": "",
            "rationale": "looks redundant",
        }
    if pick < 0.6:
        content = HARMFUL_GUIDANCE[int(pick * 1000) % len(HARMFUL_GUIDANCE)]
        return {
            "op": "add",
            "anchor": "",
            "content": f"- {content}",
            "rationale": "answers seemed unclear",
        }
    others = [r for r in QA_RULES if r is not diagnosed]
    other = others[int(pick * 1000) % len(others)]
    return {
        "op": "add",
        "anchor": "",
        "content": f"- {other.guidance}",
        "rationale": "may be related",
    }


def _render_json(payload: Mapping[str, Any], malformed: bool) -> str:
    text = json.dumps(payload, indent=2)
    if malformed:  # near-JSON a real model also produces: fenced, with a trailing comma
        text = "Here are my edits:\n```json\n" + text[:-1].rstrip() + ",\n}\n```"
    return text


@HANDLERS.register("reflect")
def propose_edits(request: CompletionRequest, settings: MockSettings) -> str:
    """The simulated optimizer: diagnose failures into rule guidance; sometimes misjudge (seeded)."""
    meta = request.metadata
    skill = _guidance_of(request)
    blocked = {tuple(k) for k in meta.get("blocked", [])}
    salt = (settings.seed, meta.get("step"), meta.get("minibatch"), meta.get("reask", 0))
    edits: list[dict[str, str]] = []
    if meta.get("kind", "failure") == "failure":
        cases = meta.get("cases", [])
        named = [n for case in cases for n in needs_in(str(case.get("reason", "")))]
        for case in cases:
            expected = str((case.get("expected") or [""])[0])
            rule = diagnose(str(case.get("response", "")), expected)
            hint = "" if rule is not None else unaddressed_need(case.get("reason", ""), skill)
            night = bool(needs_in(str(case.get("reason", ""))))  # a replayed task, not a QA item
            case_salt = (*salt, case.get("item_id"), skill if night else "")
            roll = stable_fraction(*case_salt, "judgement")
            if roll < settings.wrong_rate and hint:
                proposal = misjudged_night_edit(
                    skill, hint, named, stable_fraction(*case_salt, "pick")
                )
            elif roll < settings.wrong_rate and not night:
                proposal = _misjudged_edit(
                    skill, rule, stable_fraction(*salt, case.get("item_id"), "pick")
                )
            elif hint:
                proposal = {
                    "op": "add",
                    "anchor": "",
                    "content": paraphrase(f"- {hint}", *case_salt, "wording"),
                    "rationale": f"the judge says what was missing: {case.get('reason', '')}"[:200],
                }
            elif night and (culprit := interfering_line(skill, case.get("reason", ""))):
                proposal = {
                    "op": "delete",
                    "anchor": culprit,
                    "content": "",
                    "rationale": "the skill already says what was missing, but this line overrides it",
                }
            elif rule is None or rule.addressed_by(skill):
                continue
            else:
                proposal = {
                    "op": "add",
                    "anchor": "",
                    "content": f"- {rule.guidance}",
                    "rationale": f"failure shows the '{rule.name}' mistake: {case.get('reason', '')}"[
                        :200
                    ],
                }
            key = (
                proposal["op"],
                " ".join(proposal["anchor"].split()),
                " ".join(proposal["content"].split()),
            )
            if key not in blocked and proposal not in edits:
                edits.append(proposal)
    else:
        proposal = overgeneralised(
            skill, meta.get("cases", []), (*salt, skill), settings.wrong_rate
        )
        key = ("add", "", " ".join(proposal.get("content", "").split()))
        if proposal and key not in blocked:
            edits.append(proposal)
    malformed = stable_fraction(*salt, "format") < settings.malformed_rate
    return _render_json({"edits": edits}, malformed)


@HANDLERS.register("slow_update")
def longitudinal_guidance(request: CompletionRequest, settings: MockSettings) -> str:
    """Epoch-boundary guidance: rules behind failures that persisted across both epochs' skills."""
    skill = _guidance_of(request)
    lines: list[str] = []
    for case in request.metadata.get("persistent_failures", []):
        rule = diagnose(str(case.get("response", "")), str((case.get("expected") or [""])[0]))
        if rule is not None and not rule.addressed_by(skill):
            line = f"- {rule.guidance}"
            if line not in lines:
                lines.append(line)
    return "\n".join(lines)


@HANDLERS.register("meta")
def meta_notes(request: CompletionRequest, settings: MockSettings) -> str:
    """Optimizer-side notes on which kinds of edits helped (never shipped in the skill)."""
    accepted = request.metadata.get("accepted", [])
    rejected = request.metadata.get("rejected", [])
    notes = [f"- Accepted edits so far: {len(accepted)}; rejected: {len(rejected)}."]
    for edit in rejected[:5]:
        notes.append(
            f"- Avoid: {edit.get('op')} {edit.get('content') or edit.get('anchor')!r} (hurt or did not help)."
        )
    for edit in accepted[:5]:
        notes.append(f"- Helped: {edit.get('op')} {edit.get('content') or edit.get('anchor')!r}.")
    return "\n".join(notes)


@HANDLERS.register("ping")
def pong(request: CompletionRequest, settings: MockSettings) -> str:
    return "pong"
