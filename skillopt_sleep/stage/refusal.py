"""Refusing a proposal's edits: the rejected-edit buffer of each file they were for
(``optimizer.json``), which the next nights read so they never propose them again."""

from __future__ import annotations

from skillopt_core.errors import StorageError
from skillopt_sleep.engine.state import ProjectState, read_json, write_json

ROLLED_BACK = "rolled back by the user"  # how a rolled-back proposal's edits are refused


REJECTED = "rejected by the user"


def refuse_edits(state: ProjectState, name: str, why: str) -> None:
    """Put proposal ``name``'s accepted edits into the rejected-edit buffer of each file they
    were for (``why`` prefixes their rationale), so no later night proposes them again. An edit
    already refused for the same reason is not added twice: a rollback that :func:`recover`
    finishes refuses its edits whether or not the interrupted command got that far."""

    report = read_json(state.proposal_dir(name) / "report.json", {}) or {}
    carry = read_json(state.optimizer_path, {}) or {}
    for edit in report.get("edits", []):
        if not edit.get("accepted"):
            continue
        entry = carry.setdefault(edit["skill"], {"rejected": [], "meta_notes": "", "nights": 0})
        refused = {
            "op": edit["op"],
            "anchor": edit["anchor"],
            "content": edit["content"],
            "rationale": f"{why}: {edit.get('rationale', '')}",
            "support": 1,
            "source": "failure",
        }
        rejected = entry.setdefault("rejected", [])
        if any(r.get("edit") == refused for r in rejected):
            continue
        rejected.append({"edit": refused, "delta": 0.0, "step": -1, "alone": True})
    write_json(state.optimizer_path, carry, also="")


def refuse_rolled_back(state: ProjectState, name: str) -> None:
    """Refuse the edits of ``name``, just rolled back (its manifest says so: the commit). A
    write that fails leaves its journal "begin" without "done", so the next command's
    :func:`recover` refuses them; the error says the rollback itself happened."""
    try:
        refuse_edits(state, name, ROLLED_BACK)
    except StorageError as exc:
        raise StorageError(
            f"rolled back {name} (its live files are restored), but its edits could not be "
            f"added to the rejected-edit buffer yet, so a night could propose them again: "
            f"{exc.message}",
            hint=f"{exc.hint}; then `skillopt-sleep rollback {name}` adds them (any adopt, "
            "rollback or night does it first)",
        ) from None
