"""``claude-cli``: Claude Code in print mode (``claude -p``), so a subscription needs no API key.

The call leaves no transcript (``--no-session-persistence``), has no tools, skills or MCP
servers, and runs in an empty directory. ``--bare`` is only used when an API key is configured,
because it turns off the subscription (OAuth / keychain) login.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from skillopt_core.backends import BACKENDS, BackendSpec
from skillopt_core.backends import options as backend_options
from skillopt_core.backends._protocol import Completion, Usage, token_total
from skillopt_core.backends.cli import _process
from skillopt_core.backends.cli._base import CliBackend, Invocation, Scratch
from skillopt_core.backends.cli._process import Harness, ProcessResult

CLAUDE = Harness(
    label="claude-cli",
    command="claude",
    install_hint="install Claude Code: npm install -g @anthropic-ai/claude-code",
    login_hint="run `claude` once and log in (or `claude setup-token`), or set ANTHROPIC_API_KEY",
    auth_markers=(
        "Not logged in",
        "Invalid API key",
        "Failed to authenticate",
        "Please run /login",
        "authentication_error",
        "OAuth token has expired",
        "OAuth token revoked",
        "Credit balance is too low",
    ),
)


class ClaudeCliBackend(CliBackend):
    harness = CLAUDE

    def __init__(self, name: str, model: str, options: Mapping[str, Any]) -> None:
        super().__init__(name, model, options)
        self.api_key = str(options.get("api_key") or "")
        bare = options.get("bare")
        self.bare_option = None if bare in (None, "") else _process.flag(bare, default=True)

    def base_env(self) -> dict[str, str]:
        overrides = dict(self.options.env)
        if self.api_key:
            overrides["ANTHROPIC_API_KEY"] = self.api_key
        return _process.child_env(overrides)

    def uses_bare(self, env: Mapping[str, str]) -> bool:
        """``--bare`` only with an API key: it disables subscription login."""
        has_key = bool(env.get("ANTHROPIC_API_KEY"))
        return has_key and self.bare_option is not False

    def invocation(self, executable: str, prompt: str, scratch: Scratch) -> Invocation:
        env = self.base_env()
        argv = [
            executable,
            "-p",
            "--output-format",
            "json",
            "--no-session-persistence",
            "--tools",
            "",
            "--disable-slash-commands",
            "--strict-mcp-config",
        ]
        if self.uses_bare(env):
            argv.append("--bare")
        if self.model:
            argv += ["--model", self.model]
        argv += self.options.extra_args
        return Invocation(argv=tuple(argv), env=env, stdin=prompt)

    def parse(self, result: ProcessResult, scratch: Scratch) -> Completion:
        record = _result_record(result.stdout)
        if record is None:
            raise _process.failure(self.harness, result, "no JSON result on stdout")
        text = str(record.get("result") or "")
        if record.get("is_error") or result.returncode != 0:
            detail = text or _process.excerpt(result.stderr) or str(record.get("subtype", ""))
            raise _process.call_failed(
                self.harness, "the call failed", result.returncode, detail, result.stderr
            )
        if not text.strip():
            raise _process.failure(self.harness, result, "empty result")
        return Completion(
            text=text,
            usage=_usage(record.get("usage")),
            cost_usd=float(record.get("total_cost_usd") or 0.0),
            model=_model(record) or self.model,
            latency_s=result.latency_s,
        )


def _result_record(stdout: str) -> dict[str, Any] | None:
    """The ``type: result`` object; tolerate a JSON array of messages (``--verbose``) too."""
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict):
        return data
    if isinstance(data, list):
        results = [d for d in data if isinstance(d, dict) and d.get("type") == "result"]
        return results[-1] if results else None
    return None


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    prompt = token_total(*(raw.get(key) for key in keys))
    output = token_total(raw.get("output_tokens"))
    if prompt is None or output is None:  # not token counts: unknown, the caller estimates
        return Usage()
    return Usage(input_tokens=prompt, output_tokens=output)


def _model(record: Mapping[str, Any]) -> str:
    models = record.get("modelUsage")
    if isinstance(models, dict) and models:
        return str(next(iter(models)))
    return ""


@BACKENDS.register("claude-cli")
def create(spec: BackendSpec, options: Mapping[str, Any]) -> ClaudeCliBackend:
    return ClaudeCliBackend(spec.name, spec.model, options)


backend_options.declare("claude-cli", (*_process.CLI_OPTIONS, "api_key", "bare"))
