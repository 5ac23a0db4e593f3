"""``handoff``: let the agent session the user is already in answer the prompts.

Inside Claude Code / Codex / Copilot there may be no separate credentials to call a model with.
This backend writes each prompt it cannot answer yet to a hand-off directory and raises
:class:`HandoffPending`; the CLI then exits with :data:`HANDOFF_EXIT_CODE` (3). The agent reads
``PROMPTS.md`` (or ``pending.json``), writes each answer to ``answers/<id>.md`` and re-runs the
same command. The id is a stable hash of the request, so the resumed run asks the same questions
and finds the answers.

Layout of the directory::

    PROMPTS.md          what to do, and an index of the pending prompts
    pending.json        {"version", "exit_code", "pending": [{id, purpose, prompt_file, answer_file, ...}]}
    prompts/<id>.md     one prompt each (redacted)
    answers/<id>.md     written by the agent
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.backends import BACKENDS, BackendSpec
from skillopt_core.backends import options as backend_options
from skillopt_core.backends._protocol import (
    BackendUnavailable,
    Completion,
    CompletionRequest,
    HandoffPending,
)
from skillopt_core.backends.single_prompt import render_prompt
from skillopt_core.errors import EXIT_USAGE
from skillopt_core.redaction import redact

HANDOFF_EXIT_CODE = 3
"""Documented exit code of a run that stopped because prompts wait for hand-off answers."""

ENV_DIR = "SKILLOPT_HANDOFF_DIR"
_FORMAT_VERSION = 1
_ID_CHARS = 16


@dataclass(frozen=True)
class PendingPrompt:
    id: str
    purpose: str
    prompt_file: str
    answer_file: str
    wants_json: bool
    created: str


def request_id(request: CompletionRequest) -> str:
    """Stable id of a request: same system, messages, schema and purpose → same id, every run."""
    canonical = {
        "system": request.system,
        "messages": [[m.role, m.content] for m in request.messages],
        "json_schema": request.json_schema,
        "purpose": request.purpose,
    }
    blob = json.dumps(canonical, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:_ID_CHARS]


def resolve_dir(options: Mapping[str, Any]) -> Path | None:
    raw = options.get("dir") or os.environ.get(ENV_DIR)
    return Path(str(raw)).expanduser().resolve() if raw else None


def read_pending(directory: Path) -> list[PendingPrompt]:
    """The prompts still waiting for an answer (what ``pending.json`` lists)."""
    try:
        data = json.loads((directory / "pending.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = data.get("pending") if isinstance(data, dict) else None
    prompts: list[PendingPrompt] = []
    for entry in entries if isinstance(entries, list) else []:
        try:
            prompts.append(PendingPrompt(**entry))
        except TypeError:  # a damaged entry: its prompt is listed again when it is next asked
            continue
    return prompts


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _prompts_markdown(pending: list[PendingPrompt]) -> str:
    """The index an agent reads first: what to do, then one line per prompt (files, format)."""
    lines = [
        "# Prompts waiting for answers",
        "",
        f"SkillOpt stopped (exit code {HANDOFF_EXIT_CODE}) because {len(pending)} prompt(s) need an answer.",
        "For each prompt below, read its prompt file and write only the answer (as the model would",
        "reply, nothing else) to its answer file. Then run the same command again: it continues",
        "where it stopped. The same list is in pending.json.",
        "",
        "| id | purpose | reply format | prompt file | answer file |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {e.id} | {e.purpose} | {'JSON value only' if e.wants_json else 'plain text'} "
        f"| `{e.prompt_file}` | `{e.answer_file}` |"
        for e in pending
    ]
    return "\n".join(lines) + "\n"


class HandoffNotConfigured(BackendUnavailable):
    """No hand-off directory was given: a missing setting, so a configuration error (exit 2),
    not a runtime failure (exit 1). Still a :class:`BackendUnavailable`, so a run fails on it
    before any work, where every other unusable backend does."""

    exit_code = EXIT_USAGE


class HandoffBackend:
    """Answers come from files an outside agent writes; missing ones raise HandoffPending."""

    def __init__(self, name: str, model: str, directory: Path | None) -> None:
        self.name = name
        self.model = model
        self.directory = directory
        self._lock = threading.Lock()

    def _root(self) -> Path:
        if self.directory is None:
            raise HandoffNotConfigured(
                f"handoff: no hand-off directory: {ENV_DIR} is not set and no backend option "
                "'dir' was given",
                hint=f"set {ENV_DIR}=/path/to/a/writable/folder, or the option dir "
                f"({backend_options.where_to_set('dir=PATH')})",
            )
        return self.directory

    def complete(self, request: CompletionRequest) -> Completion:
        root = self._root()
        key = request_id(request)
        answer_file = root / "answers" / f"{key}.md"
        with self._lock:
            answer = answer_file.read_text(encoding="utf-8") if answer_file.is_file() else ""
            if answer.strip():
                self._refresh(root, new=None)
                return Completion(text=answer.strip(), model=self.model or "handoff")
            self._refresh(root, new=self._write_prompt(root, key, request))
        raise HandoffPending(
            # no count: parallel calls each stop here, and the first to say so saw only its own
            f"handoff: prompts wait for answers in {root} (PROMPTS.md lists every one)",
            hint=f"answer each prompt listed in {root / 'PROMPTS.md'} in its answer file, then run the same command again",
        )

    def _write_prompt(self, root: Path, key: str, request: CompletionRequest) -> PendingPrompt:
        for sub in ("prompts", "answers"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        prompt_file = root / "prompts" / f"{key}.md"
        _write_atomic(prompt_file, redact(render_prompt(request)))
        return PendingPrompt(
            id=key,
            purpose=request.purpose,
            prompt_file=str(prompt_file),
            answer_file=str(root / "answers" / f"{key}.md"),
            wants_json=request.json_schema is not None,
            created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )

    def _refresh(self, root: Path, new: PendingPrompt | None) -> list[PendingPrompt]:
        """Rewrite pending.json and PROMPTS.md: drop what is answered, add ``new`` once."""
        known = read_pending(root)
        if new is not None and all(entry.id != new.id for entry in known):
            known.append(new)
        pending = [
            entry
            for entry in known
            if Path(entry.prompt_file).is_file() and not _answered(Path(entry.answer_file))
        ]
        if not pending and not (root / "pending.json").exists():
            return pending
        root.mkdir(parents=True, exist_ok=True)
        document = {
            "version": _FORMAT_VERSION,
            "exit_code": HANDOFF_EXIT_CODE,
            "directory": str(root),
            "pending": [asdict(entry) for entry in pending],
        }
        _write_atomic(root / "pending.json", json.dumps(document, indent=2) + "\n")
        _write_atomic(root / "PROMPTS.md", _prompts_markdown(pending))
        return pending

    def health_check(self) -> None:
        root = self._root()
        try:
            (root / "answers").mkdir(parents=True, exist_ok=True)
            probe = root / ".write-probe"
            probe.write_text("ok", encoding="utf-8")
            probe.unlink()
        except OSError as exc:
            raise BackendUnavailable(
                f"handoff: cannot write to the hand-off directory {root}: {exc}",
                hint=f"point {ENV_DIR} or the backend option 'dir' at a writable directory",
            ) from exc


def _answered(path: Path) -> bool:
    try:
        return bool(path.read_text(encoding="utf-8").strip())
    except OSError:
        return False


@BACKENDS.register("handoff")
def create(spec: BackendSpec, options: Mapping[str, Any]) -> HandoffBackend:
    return HandoffBackend(spec.name, spec.model, resolve_dir(options))


backend_options.declare("handoff", ("dir",))
