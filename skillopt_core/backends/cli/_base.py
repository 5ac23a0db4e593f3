"""The template every harness-CLI backend follows: render → redact → run in scratch → parse.

A subclass supplies the harness facts, the argv/env for one call and the parser of its output;
this class does the rest the same way for all of them (the health check included).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from skillopt_core.backends._protocol import (
    BackendError,
    BackendUnavailable,
    Completion,
    CompletionRequest,
)
from skillopt_core.backends.cli import _process
from skillopt_core.backends.cli._process import CliOptions, Harness, ProcessResult
from skillopt_core.backends.single_prompt import render_prompt
from skillopt_core.redaction import redact

_HEALTH_PROMPT = "Reply with the single word OK."


@dataclass(frozen=True)
class Invocation:
    """One call's command line. The prompt always travels on stdin, never on argv."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    stdin: str


@dataclass(frozen=True)
class Scratch:
    """Per-call temporary space: ``cwd`` stays empty; ``aux`` holds output files, homes, etc."""

    cwd: Path
    aux: Path


class CliBackend(ABC):
    """Base for ``claude-cli``, ``codex-cli`` and ``copilot-cli``."""

    harness: ClassVar[Harness]
    name: str
    model: str

    def __init__(self, name: str, model: str, options: Mapping[str, Any]) -> None:
        self.name = name
        self.model = model
        self.options = CliOptions.from_mapping(options)
        self.raw_options = dict(options)

    def executable(self) -> str:
        return _process.resolve_executable(self.harness, self.options.executable)

    @abstractmethod
    def invocation(self, executable: str, prompt: str, scratch: Scratch) -> Invocation:
        """argv / env / stdin for one call in ``scratch``."""

    @abstractmethod
    def parse(self, result: ProcessResult, scratch: Scratch) -> Completion:
        """The completion from a finished call, or a BackendError explaining the failure."""

    def base_env(self) -> dict[str, str]:
        """Environment for every child of this backend (health check included)."""
        return _process.child_env(self.options.env)

    def complete(self, request: CompletionRequest) -> Completion:
        prompt = redact(render_prompt(request))
        executable = self.executable()
        with _process.scratch_dir(f"skillopt-{self.harness.command}-") as root:
            scratch = Scratch(cwd=root / "work", aux=root / "aux")
            scratch.cwd.mkdir()
            scratch.aux.mkdir()
            call = self.invocation(executable, prompt, scratch)
            result = _process.run(
                self.harness,
                (*call.argv,),
                stdin=call.stdin,
                cwd=scratch.cwd,
                env=call.env,
                timeout_s=self.options.timeout_s,
            )
            return self.parse(result, scratch)

    def health_check(self) -> None:
        """Executable present and ``--version`` works; optionally one tiny real prompt."""
        executable = self.executable()
        _process.check_version(
            self.harness, executable, self.base_env(), min(self.options.timeout_s, 60.0)
        )
        if not self.options.health_prompt:
            return
        try:
            self.complete(CompletionRequest.of(_HEALTH_PROMPT, max_tokens=16, purpose="health"))
        except BackendUnavailable:
            raise
        except BackendError as exc:
            raise BackendUnavailable(
                f"{self.harness.label}: the health-check prompt failed: {exc}",
                hint=self.harness.login_hint,
            ) from exc
