"""Closing an epoch: the slow update (gated or force-accepted, always within the size budget)
and the refresh of the optimizer's meta notes (:mod:`skillopt_core.optim.slow`), then a commit."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from skillopt_core.optim.context import LoopContext
from skillopt_core.optim.gate import over_budget
from skillopt_core.optim.slow import meta_update, slow_update
from skillopt_core.rundir import atomic_write_json, atomic_write_text


def close_epoch(loop: LoopContext, epoch: int) -> None:
    cfg = loop.config
    if cfg.slow_update:
        _slow_update(loop, epoch)
    if cfg.meta_skill:
        notes = meta_update(
            loop.roles.optimizer,
            loop.state.meta_notes,
            loop.state.accepted,
            loop.rejected.for_prompt(30),
        )
        loop.state.meta_notes = notes
        atomic_write_text(loop.run.meta(epoch) / "meta_skill.md", notes + "\n")
    loop.state.epochs_closed = epoch + 1
    loop.state.epoch_start_skill = loop.state.current_skill
    loop.save()


def _slow_update(loop: LoopContext, epoch: int) -> None:
    cfg, state = loop.config, loop.state
    items = loop.env.items("train")[: max(cfg.batch_size, 1)]
    update = slow_update(
        loop.roles.optimizer,
        loop.evaluator,
        state.epoch_start_skill,
        state.current_skill,
        items,
        epoch,
    )
    log: dict[str, Any] = {
        "epoch": epoch,
        "guidance": update.guidance,
        "improved": list(update.improved),
        "regressed": list(update.regressed),
        "persistent": list(update.persistent),
        "mode": "gated" if cfg.slow_update_gated else "force-accept",
    }
    if update.refused:  # guidance lines the edit screen dropped, kept for whoever reviews the run
        log["refused"] = [
            {"line": line, "findings": [asdict(f) for f in findings]}
            for line, findings in update.refused
        ]
    log["accepted"] = False
    if update.candidate is not None and update.candidate != state.current_skill:
        too_big = over_budget(state.current_skill, update.candidate, cfg.gate)
        if too_big:  # forced or gated, the budget holds (the gate would say the same)
            log["reason"] = too_big
        elif cfg.slow_update_gated:
            decision, _ = loop.gate(update.candidate)
            log["decision"] = asdict(decision)
            log["accepted"] = decision.accepted
        else:
            log["accepted"] = True
        if log["accepted"]:
            log["skill_version"] = loop.accept(update.candidate)
    atomic_write_json(loop.run.slow_update(epoch) / "slow_update.json", log)
    if update.candidate is not None:
        atomic_write_text(loop.run.slow_update(epoch) / "candidate.md", update.candidate)
