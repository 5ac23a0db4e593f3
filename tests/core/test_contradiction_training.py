"""In a training loop: tonight's tasks reward an edit that contradicts a learned line, so the
gate alone would take it and the agent would read both lines for good. An ``add`` becomes a
``replace`` of the line it contradicts, which the gate weighs. Any other edit that writes the
opposite of a line it keeps is refused before any evaluation, remembered blocked with a reason
naming the learned line, and the optimizer, which reads that reason in its next reflection,
proposes a ``replace`` of that line, which lands.

The optimizer is scripted; the target is the deterministic ``mock`` backend (the toy environment
scores the skill text itself)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from skillopt_core.backends import create_backend
from skillopt_core.backends._protocol import CompletionRequest
from skillopt_core.backends.runtime import Roles
from skillopt_core.config import TrainConfig, validate
from skillopt_core.optim.buffer import RejectedBuffer, RejectedEdit
from skillopt_core.optim.schedule import LRSchedule
from skillopt_core.optim.trainer import Trainer
from skillopt_core.records import Edit, EditOp, Item, Rollout, Score
from skillopt_core.rundir import RunDir
from skillopt_core.testing.scripted import ScriptedBackend

ALWAYS = "- Always include a 'Testing' section in the PR description."
NEVER = "- Never include a 'Testing' section in the PR description."
LINK = "- Link the issue the PR closes."
SEED = f"# PR skill\n\n{ALWAYS}\n{LINK}\n"


class ToyEnv:
    """Tonight's items pass when the skill says not to write a Testing section."""

    name = "toy"

    def __init__(self) -> None:
        self._items = {
            split: [Item(f"{split}{i}", {"question": f"PR description ({i})"}) for i in range(3)]
            for split in ("train", "val", "test")
        }

    def items(self, split: str) -> list[Item]:
        return self._items[split]

    def rollout(self, skill: str, item: Item, target: object, sample: int = 0) -> Rollout:
        return Rollout(item.id, skill, ({"role": "user", "content": item.get("question")},))

    def score(self, item: Item, rollout: Rollout) -> Score:
        hit = "Never include a 'Testing' section" in rollout.response
        return Score(float(hit), float(hit), "ok" if hit else "has a Testing section")


def reflect_replacing_another_line(request: CompletionRequest) -> str:
    """Writes the opposite line over another one, until a refusal in the prompt says which line
    to replace."""
    if "replace that line instead" in request.prompt_text:
        edit = {"op": "replace", "anchor": ALWAYS, "content": NEVER, "rationale": "as told"}
    else:
        edit = {"op": "replace", "anchor": LINK, "content": NEVER, "rationale": "reviewers object"}
    return json.dumps({"edits": [edit]})


def reflect_adding(request: CompletionRequest) -> str:
    """Adds the opposite line."""
    edit = {"op": "add", "anchor": "", "content": NEVER, "rationale": "reviewers object"}
    return json.dumps({"edits": [edit]})


def fit(
    tmp_path: Path,
    reflect: Callable[[CompletionRequest], str],
    refused: tuple[Edit, ...] = (),
) -> tuple[Trainer, ScriptedBackend]:
    config = validate(
        TrainConfig(
            env="toy",
            epochs=2,
            batch_size=3,
            minibatch_size=3,
            workers=1,
            lr=LRSchedule("constant", 2, 2),
            slow_update=False,
            meta_skill=False,
        )
    )
    optimizer = ScriptedBackend(reflect, reflect)
    roles = Roles(optimizer=optimizer, target=create_backend("mock"))
    trainer = Trainer(config, ToyEnv(), roles, RunDir(tmp_path), SEED)
    trainer.rejected = RejectedBuffer(RejectedEdit(e, 0.0, -1, True) for e in refused)
    trainer.fit()
    return trainer, optimizer


def _never_both(tmp_path: Path) -> None:
    for version in (tmp_path / "skills").glob("*.md"):  # no version ever held both lines
        text = version.read_text()
        assert not (NEVER in text and ALWAYS in text), version.name


def test_a_contradicting_add_replaces_the_line_and_the_gate_weighs_it(tmp_path: Path) -> None:
    trainer, _ = fit(tmp_path, reflect_adding)
    first = trainer.history[0]
    assert first["accepted"] and first["val_candidate"] > first["val_current"]
    [taken] = trainer.state.accepted
    assert (taken["op"], taken["anchor"].strip(), taken["content"]) == ("replace", ALWAYS, NEVER)
    assert "replaces the learned line it contradicts" in taken["rationale"]
    best = trainer.state.best_skill
    assert NEVER in best and ALWAYS not in best and LINK in best
    _never_both(tmp_path)


def test_another_edit_writing_the_opposite_is_refused_with_the_line_to_replace(
    tmp_path: Path,
) -> None:
    trainer, optimizer = fit(tmp_path, reflect_replacing_another_line)
    first, second = trainer.history
    # night's tasks reward it, but it never reached the gate
    assert not first["accepted"] and "val_candidate" not in first
    [refused] = first["refused_edits"]
    assert refused["op"] == "replace" and refused["content"] == NEVER
    assert refused["reason"].startswith("refused as a contradiction: ")
    assert repr(ALWAYS) in refused["reason"] and "replace that line instead" in refused["reason"]
    [entry] = trainer.rejected.entries
    assert entry.alone and entry.edit.rationale.startswith(refused["reason"])
    assert Edit(EditOp.REPLACE, LINK, NEVER).key() in trainer.rejected.blocked_keys()
    # the next reflection read the reason, and the replace it proposed passed the gate
    assert "replace that line instead" in optimizer.requests[1].prompt_text
    assert second["accepted"] and second["val_candidate"] > second["val_current"]
    best = trainer.state.best_skill
    assert NEVER in best and ALWAYS not in best
    _never_both(tmp_path)


def test_an_add_refused_before_is_not_proposed_again_as_a_replace(tmp_path: Path) -> None:
    """Blocking is by (op, anchor, content): the refused add, turned into a replace of the line
    it contradicts, had a new key and came back."""
    trainer, _ = fit(tmp_path, reflect_adding, refused=(Edit(EditOp.ADD, "", NEVER),))
    assert all(step["refused_before"] == step["proposed"] == 1 for step in trainer.history)
    assert not any(step["accepted"] for step in trainer.history)
    assert ALWAYS in trainer.state.best_skill and NEVER not in trainer.state.best_skill
