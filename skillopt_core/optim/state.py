"""What a run keeps on disk to resume: the loop state, the history, and the checks that a resumed
run is the same run (same settings, same items) with undamaged files.

A step is committed by :func:`save`: the history first, then ``best_skill.md``, then
``runtime_state.json`` (the commit point). :func:`committed` drops any record past what the
state committed, so a kill between those writes costs the step, never duplicates it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

from skillopt_core.config import ConfigError
from skillopt_core.errors import StorageError
from skillopt_core.optim.buffer import RejectedBuffer
from skillopt_core.rundir import RunDir, atomic_write_json, atomic_write_text, read_json

STATE_VERSION = 1

RESTART = "the run's resume files are damaged: choose a new --out-root (or delete this one)"


@dataclass
class LoopState:
    """Everything needed to resume; serialised after each completed step."""

    next_step: int = 0
    epochs_closed: int = 0
    skill_version: int = 0
    current_skill: str = ""
    best_skill: str = ""
    epoch_start_skill: str = ""
    meta_notes: str = ""
    rejected: list[dict[str, Any]] = field(default_factory=list)
    accepted: list[dict[str, Any]] = field(default_factory=list)
    stopped_reason: str = ""

    @classmethod
    def from_json(cls, raw: Any) -> LoopState:
        """A saved state, checked field by field; ``ValueError`` names the first bad one (valid
        JSON of the wrong shape must not surface later as an ``AttributeError``)."""
        if not isinstance(raw, dict):
            raise ValueError("it is not a JSON object")
        hints = get_type_hints(cls)
        for name, value in raw.items():
            kind = hints.get(name)
            if kind is None:
                raise ValueError(f"unknown field {name!r}")
            if kind is int:
                ok = type(value) is int and value >= 0
            elif kind is str:
                ok = isinstance(value, str)
            else:  # list[dict[str, Any]]
                ok = isinstance(value, list) and all(isinstance(v, dict) for v in value)
            if not ok:
                raise ValueError(f"{name} is {json.dumps(value)[:40]}")
        return cls(**raw)


Shape = TypeVar("Shape", dict[str, Any], list[Any])


def read_shaped(path: Path, shape: type[Shape], *, hint: str) -> Shape:
    """The JSON ``shape`` (dict or list) in ``path``, empty when absent; another value is damage."""
    value = read_json(path, None, hint=hint)
    if value is None:
        return shape()
    if not isinstance(value, shape):
        raise StorageError(
            f"{path} is damaged: it does not hold a JSON {shape.__name__}", hint=hint
        )
    return value


def load_history(run: RunDir) -> list[dict[str, Any]]:
    """The step records in ``run`` (cut to the committed steps by :func:`committed`)."""
    history: list[Any] = read_shaped(run.history, list, hint=RESTART)
    if not all(isinstance(record, dict) for record in history):
        raise StorageError(f"{run.history} is damaged: a step is not a record", hint=RESTART)
    return history


def committed(history: list[dict[str, Any]], state: LoopState) -> list[dict[str, Any]]:
    """The records of the steps ``state`` committed: a later one was written just before a
    kill kept its state from being saved, and is a step the resumed run redoes."""
    return history[: state.next_step]


def load_rejected(run: RunDir, state: LoopState) -> RejectedBuffer:
    try:
        return RejectedBuffer.from_json(state.rejected)
    except (KeyError, TypeError, ValueError):
        raise StorageError(
            f"{run.state} is damaged: a rejected edit is not a record", hint=RESTART
        ) from None


def open_state(
    run: RunDir, identity: dict[str, Any], seed_skill: str, *, workers: int
) -> LoopState:
    """The saved state of the run in ``run``, or a fresh one (recording ``identity``, the
    settings and data a resume must share) when the run is new."""
    saved_config = read_json(run.config, hint=RESTART)
    if saved_config is not None:
        check_resume(run, saved_config, identity)
    raw = read_json(run.state, hint=RESTART)
    if raw is None:
        atomic_write_json(run.config, {**identity, "workers": workers})
        state = LoopState(
            current_skill=seed_skill, best_skill=seed_skill, epoch_start_skill=seed_skill
        )
        atomic_write_text(run.skill_version(0), seed_skill)
        return state
    try:
        return LoopState.from_json(raw)
    except ValueError as exc:
        raise StorageError(
            f"{run.state} is damaged: it does not hold a resume state ({exc})", hint=RESTART
        ) from None


def check_resume(run: RunDir, saved_config: Any, identity: dict[str, Any]) -> None:
    """Refuse to resume a run made with other settings or on other items."""
    if not isinstance(saved_config, dict):
        raise StorageError(f"{run.config} is damaged", hint=RESTART)
    saved = {k: v for k, v in saved_config.items() if k not in ("workers", "backends")}
    saved_data = saved.pop("data", None)
    settings = {k: v for k, v in identity.items() if k != "data"}
    if saved != settings:
        raise ConfigError(
            f"{run.root} holds a run with different settings; "
            "re-run with the same config to resume, or choose a new --out-root"
        )
    if saved_data is not None and "data" in identity and saved_data != identity["data"]:
        raise ConfigError(
            f"{run.root} holds a run trained on different items (another --split-dir, "
            "or its items.json files changed)",
            hint="resume with the original split dir, or choose a new --out-root",
        )


def save(
    run: RunDir, state: LoopState, history: list[dict[str, Any]], rejected: RejectedBuffer
) -> None:
    """Commit the loop: history, best skill, then the state (the commit point)."""
    state.rejected = rejected.to_json()
    atomic_write_json(run.history, history)
    atomic_write_text(run.best_skill, state.best_skill)
    atomic_write_json(run.state, asdict(state))
