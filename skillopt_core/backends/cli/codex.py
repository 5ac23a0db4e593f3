"""``codex-cli``: the Codex CLI in exec mode (``codex exec``), using the user's Codex login.

``--ephemeral`` writes no rollout file, ``--sandbox read-only`` in an empty directory keeps the
agent from touching anything, the final message comes from ``-o FILE`` and token usage from the
``--json`` event stream (``turn.completed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillopt_core.backends import BACKENDS, BackendSpec
from skillopt_core.backends import options as backend_options
from skillopt_core.backends._protocol import Completion, Usage
from skillopt_core.backends.cli import _process
from skillopt_core.backends.cli._base import CliBackend, Invocation, Scratch
from skillopt_core.backends.cli._process import Harness, ProcessResult

CODEX = Harness(
    label="codex-cli",
    command="codex",
    install_hint="install the Codex CLI: npm install -g @openai/codex",
    login_hint="run `codex login` (ChatGPT account or API key), or set OPENAI_API_KEY",
    auth_markers=(
        "Not logged in",
        "401 Unauthorized",
        "invalid_api_key",
        "Incorrect API key",
        "token_expired",
        "refresh_token_reused",
        "Missing environment variable",
    ),
)

_LAST_MESSAGE = "last-message.md"


class CodexCliBackend(CliBackend):
    harness = CODEX

    def invocation(self, executable: str, prompt: str, scratch: Scratch) -> Invocation:
        argv = [
            executable,
            "exec",
            "--ephemeral",
            "--sandbox",
            "read-only",
            "--skip-git-repo-check",
            "--color",
            "never",
            "--json",
            "-o",
            str(scratch.aux / _LAST_MESSAGE),
        ]
        if self.model:
            argv += ["-m", self.model]
        argv += [*self.options.extra_args, "-"]
        return Invocation(argv=tuple(argv), env=self.base_env(), stdin=prompt)

    def parse(self, result: ProcessResult, scratch: Scratch) -> Completion:
        events = list(_process.json_lines(result.stdout))
        errors = [_error_text(e) for e in events if e.get("type") in ("turn.failed", "error")]
        errors = [e for e in errors if e]
        path = scratch.aux / _LAST_MESSAGE
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if not text.strip():
            text = _last_agent_message(events)
        if result.returncode != 0 or not text.strip():
            detail = "; ".join(errors) or _process.excerpt(result.stderr) or "(no output)"
            what = "the call failed" if result.returncode != 0 else "empty final message"
            raise _process.call_failed(self.harness, what, result.returncode, detail, result.stderr)
        return Completion(
            text=text.strip(),
            usage=_usage(events),
            model=self.model,
            latency_s=result.latency_s,
        )


def _error_text(event: Mapping[str, Any]) -> str:
    error = event.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or "")
    return str(event.get("message") or error or "")


def _last_agent_message(events: list[dict[str, Any]]) -> str:
    texts = [
        str(item.get("text") or "")
        for event in events
        if event.get("type") == "item.completed"
        for item in [event.get("item") or {}]
        if isinstance(item, dict) and item.get("type") == "agent_message"
    ]
    return texts[-1] if texts else ""


def _usage(events: list[dict[str, Any]]) -> Usage:
    total = Usage()
    for event in events:
        usage = event.get("usage") if event.get("type") == "turn.completed" else None
        if isinstance(usage, dict):
            figures = Usage(usage.get("input_tokens") or 0, usage.get("output_tokens") or 0)
            checked = figures.checked()
            if checked is None:  # not token counts: unknown, the caller estimates
                return Usage()
            total = total + checked
    return total


@BACKENDS.register("codex-cli")
def create(spec: BackendSpec, options: Mapping[str, Any]) -> CodexCliBackend:
    return CodexCliBackend(spec.name, spec.model, options)


backend_options.declare("codex-cli", _process.CLI_OPTIONS)
