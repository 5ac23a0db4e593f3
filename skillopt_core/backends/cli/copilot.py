"""``copilot-cli``: the GitHub Copilot CLI in prompt mode, using the user's Copilot login.

Each call runs with its own throw-away ``COPILOT_HOME``, so it writes nothing into the user's
session history and starts none of the user's MCP servers. Login still works: token variables
(``COPILOT_GITHUB_TOKEN`` / ``GH_TOKEN`` / ``GITHUB_TOKEN``) pass through, the system keychain lives
outside ``COPILOT_HOME``, and the plaintext fallback (``config.json``) is copied in. The prompt
goes on stdin (prompt mode starts when stdin is piped), tools are withheld, output is JSONL.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillopt_core.backends import BACKENDS, BackendSpec
from skillopt_core.backends import options as backend_options
from skillopt_core.backends._protocol import Completion, Usage
from skillopt_core.backends.cli import _process
from skillopt_core.backends.cli._base import CliBackend, Invocation, Scratch
from skillopt_core.backends.cli._process import Harness, ProcessResult

COPILOT = Harness(
    label="copilot-cli",
    command="copilot",
    install_hint="install the Copilot CLI: npm install -g @github/copilot",
    login_hint="run `copilot login` (or set COPILOT_GITHUB_TOKEN to a token with Copilot access)",
    auth_markers=(
        "No authentication information found",
        "Authentication failed",
        "Not logged in",
        "not authorized to use Copilot",
        "Copilot is not enabled",
        "Bad credentials",
    ),
)

NO_TOOLS = "skillopt-no-tools"
"""``--available-tools`` keeps only the named tools; a name no tool has leaves the model none."""

_LOGIN_FILES = ("config.json",)
_USAGE_FILE = "usage.json"


def user_copilot_home(env: Mapping[str, str]) -> Path:
    explicit = env.get("COPILOT_HOME")
    return Path(explicit) if explicit else Path(env.get("HOME") or Path.home()) / ".copilot"


class CopilotCliBackend(CliBackend):
    harness = COPILOT

    def __init__(self, name: str, model: str, options: Mapping[str, Any]) -> None:
        super().__init__(name, model, options)
        self.copy_login = _process.flag(options.get("copy_login"), default=True)

    def isolated_home(self, scratch: Scratch, env: Mapping[str, str]) -> Path:
        """A fresh COPILOT_HOME holding only the login file(s) of the user's real one."""
        home = scratch.aux / "copilot-home"
        home.mkdir()
        if self.copy_login:
            source = user_copilot_home(env)
            for name in _LOGIN_FILES:
                if (source / name).is_file():
                    shutil.copyfile(source / name, home / name)
        return home

    def invocation(self, executable: str, prompt: str, scratch: Scratch) -> Invocation:
        env = self.base_env()
        home = self.isolated_home(scratch, env)
        env["COPILOT_HOME"] = str(home)
        env["COPILOT_AUTO_UPDATE"] = "false"
        argv = [
            executable,
            "--output-format",
            "json",
            "--stream",
            "off",
            "--no-color",
            "--log-level",
            "none",
            "--no-custom-instructions",
            "--disable-builtin-mcps",
            "--no-auto-update",
            "--no-ask-user",
            f"--available-tools={NO_TOOLS}",
            "--usage-output-file",
            str(scratch.aux / _USAGE_FILE),
        ]
        if self.model:
            argv += ["--model", self.model]
        argv += self.options.extra_args
        return Invocation(argv=tuple(argv), env=env, stdin=prompt)

    def parse(self, result: ProcessResult, scratch: Scratch) -> Completion:
        events = list(_process.json_lines(result.stdout))
        errors = [_error_text(e) for e in events if _is_error(e)]
        errors = [e for e in errors if e]
        messages = [
            e["data"]
            for e in events
            if e.get("type") == "assistant.message" and isinstance(e.get("data"), dict)
        ]
        texts = [
            str(m.get("content") or "") for m in messages if str(m.get("content") or "").strip()
        ]
        if result.returncode != 0 or not texts:
            detail = (
                "; ".join(errors)
                or _process.excerpt(result.stderr)
                or _process.excerpt(result.stdout)
            )
            what = "the call failed" if result.returncode != 0 else "no assistant message"
            raise _process.call_failed(self.harness, what, result.returncode, detail, result.stderr)
        models = [str(m.get("model")) for m in messages if m.get("model")]
        return Completion(
            text=texts[-1].strip(),
            usage=_usage(scratch.aux / _USAGE_FILE),
            model=models[-1] if models else self.model,
            latency_s=result.latency_s,
        )


def _is_error(event: Mapping[str, Any]) -> bool:
    kind = str(event.get("type") or "")
    return kind.endswith(".error") or kind == "error"


def _error_text(event: Mapping[str, Any]) -> str:
    data = event.get("data")
    if isinstance(data, dict):
        return str(data.get("message") or data.get("error") or "")
    return str(event.get("message") or "")


def _usage(path: Path) -> Usage:
    """Token counts from the ``--usage-output-file`` summary (per-model metrics)."""
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Usage()
    total = Usage()
    metrics = summary.get("modelMetrics") if isinstance(summary, dict) else None
    for entry in (metrics or {}).values():
        usage = entry.get("usage") if isinstance(entry, dict) else None
        if isinstance(usage, dict):
            figures = Usage(usage.get("inputTokens") or 0, usage.get("outputTokens") or 0)
            checked = figures.checked()
            if checked is None:  # not token counts: unknown, the caller estimates
                return Usage()
            total = total + checked
    return total


@BACKENDS.register("copilot-cli")
def create(spec: BackendSpec, options: Mapping[str, Any]) -> CopilotCliBackend:
    return CopilotCliBackend(spec.name, spec.model, options)


backend_options.declare("copilot-cli", (*_process.CLI_OPTIONS, "copy_login"))
