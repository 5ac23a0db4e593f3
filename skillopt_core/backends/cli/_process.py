"""Subprocess plumbing shared by the harness-CLI backends, written once.

Finding the executable, running it with the prompt on stdin inside an empty scratch directory,
turning timeouts / non-zero exits / missing binaries / endless output into backend errors, and
recognising authentication failures so they surface as :class:`BackendUnavailable` with the fix.
Every text quoted in an error passes the redaction hook: a CLI may print its key.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from skillopt_core.backends._protocol import BackendError, BackendUnavailable
from skillopt_core.backends.options import seconds
from skillopt_core.backends.retry import TransientError
from skillopt_core.errors import UsageError
from skillopt_core.redaction import redact

DEFAULT_TIMEOUT_S = 600.0
MAX_OUTPUT_BYTES = 64 * 1024 * 1024
"""Per stream. A harness printing more is looping or misconfigured; it is stopped, not buffered."""
REAP_S = 5.0
"""How long, after the CLI exits or is killed, its output may stay open: a grandchild that left
its process group can hold the pipes for ever, and the call must not wait for it."""
_EXCERPT_CHARS = 600
_TRANSIENT = re.compile(
    r"rate.?limit|too many requests|overloaded|stream disconnected|connection (?:reset|closed)"
    r"|econnreset|socket hang up|temporarily unavailable"
    r"|\b(?:status|http|api error:?|error:?)\s*(?:code\s*)?(?:429|5\d\d)\b",
    re.IGNORECASE,
)


CLI_OPTIONS = ("executable", "timeout", "extra_args", "env", "health_prompt")


@dataclass(frozen=True)
class CliOptions:
    """The options every CLI backend understands (:data:`CLI_OPTIONS`; unknown keys are refused
    before a backend is built, by :mod:`skillopt_core.backends.options`).

    ``executable`` is an explicit path (or name) that wins over ``PATH``; ``extra_args`` are
    appended before the prompt marker; ``env`` adds or overrides environment variables;
    ``health_prompt`` makes the health check also send a tiny prompt (costs one call).
    """

    executable: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    extra_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    health_prompt: bool = False

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> CliOptions:
        extra = options.get("extra_args") or ()
        if isinstance(extra, str):
            extra = extra.split()
        return cls(
            executable=str(options.get("executable") or ""),
            timeout_s=seconds(options.get("timeout"), "timeout", DEFAULT_TIMEOUT_S),
            extra_args=tuple(str(a) for a in extra),
            env={str(k): str(v) for k, v in dict(options.get("env") or {}).items()},
            health_prompt=flag(options.get("health_prompt"), default=False),
        )


def flag(value: object, *, default: bool) -> bool:
    """A boolean option that may arrive as text from ``--option KEY=VALUE`` or a config file."""
    if value is None or value == "":
        return default
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise UsageError(f"expected a boolean (true/false), got {value!r}")
    return bool(value)


@dataclass(frozen=True)
class Harness:
    """Static facts about one harness CLI, used in messages and lookups."""

    label: str
    command: str
    install_hint: str
    login_hint: str
    auth_markers: tuple[str, ...]


@dataclass(frozen=True)
class ProcessResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    latency_s: float


def resolve_executable(harness: Harness, explicit: str = "") -> str:
    """Absolute path of the harness CLI; ``shutil.which`` also resolves Windows ``.cmd`` shims."""
    if explicit:
        found = shutil.which(explicit)
        if found:
            return found
        raise BackendUnavailable(
            f"{harness.label}: the configured executable {explicit!r} does not exist or is not executable",
            hint=f"point the backend option 'executable' at the {harness.command} binary, or {harness.install_hint}",
        )
    found = shutil.which(harness.command)
    if found:
        return found
    raise BackendUnavailable(
        f"{harness.label}: {harness.command!r} is not installed or not on PATH",
        hint=f"{harness.install_hint}, or set the backend option 'executable' to its full path",
    )


@contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    """An empty temporary directory: the harness sees no project, no CLAUDE.md / AGENTS.md."""
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        yield Path(name)


def child_env(overrides: Mapping[str, str], remove: Iterable[str] = ()) -> dict[str, str]:
    """The caller's environment (PATH, HOME, auth tokens) with ``overrides`` applied."""
    env = dict(os.environ)
    for name in remove:
        env.pop(name, None)
    env.update(overrides)
    return env


def json_lines(stdout: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL stream, skipping banners and partial lines a CLI may print."""
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            yield event


def excerpt(text: str, limit: int = _EXCERPT_CHARS) -> str:
    """The end of ``text``, redacted (the cut is made wide first, so a key is never half-kept)."""
    text = redact(text.strip()[-(limit + 400) :])
    return text if len(text) <= limit else "…" + text[-limit:]


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """Kill the CLI and everything it spawned (it runs in its own process group / session)."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
    else:
        proc.kill()


class _Drain(threading.Thread):
    """Reads one pipe to its end, keeping at most :data:`MAX_OUTPUT_BYTES` (``overflow`` is set
    past that). Closes the pipe itself, so an abandoned drain never races a close."""

    def __init__(self, pipe: IO[bytes], overflow: threading.Event) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.overflow = overflow
        self.data = bytearray()

    def run(self) -> None:
        try:
            while chunk := os.read(self.pipe.fileno(), 65536):
                if len(self.data) + len(chunk) > MAX_OUTPUT_BYTES:
                    self.overflow.set()
                    return
                self.data += chunk
        except (OSError, ValueError):
            pass
        finally:
            self.pipe.close()

    def text(self) -> str:
        return bytes(self.data).decode("utf-8", "replace")


def _feed(pipe: IO[bytes], data: bytes) -> None:
    """Write the prompt and close stdin; a CLI that never reads it must not block the call."""
    with suppress(OSError):
        pipe.write(data)
    with suppress(OSError):
        pipe.close()


def _wait(proc: subprocess.Popen[bytes], until: float, overflow: threading.Event) -> None:
    """Until the CLI exits, its output overflows, or ``until`` (a monotonic time) passes."""
    pause = 0.002
    while proc.poll() is None and not overflow.is_set():
        left = until - time.monotonic()
        if left <= 0:
            return
        overflow.wait(min(pause, left))
        pause = min(pause * 2, 0.05)


def run(
    harness: Harness,
    argv: Sequence[str],
    *,
    stdin: str,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
) -> ProcessResult:
    """Run one CLI call; on timeout the whole process tree is killed, nothing is left behind.

    Output is read by two threads, each capped at :data:`MAX_OUTPUT_BYTES`, and waited for at
    most :data:`REAP_S` after the CLI is gone: the call ends within about ``timeout_s`` whatever
    the CLI (or anything it spawned) does."""
    started = time.monotonic()
    isolation: dict[str, Any] = (
        {"start_new_session": True}
        if os.name == "posix"
        else {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    )
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd),
            env=dict(env),
            **isolation,
        )
    except FileNotFoundError as exc:
        raise BackendUnavailable(
            f"{harness.label}: cannot start {argv[0]!r}: {exc}", hint=harness.install_hint
        ) from exc
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    overflow = threading.Event()
    out, err = _Drain(proc.stdout, overflow), _Drain(proc.stderr, overflow)
    feeder = threading.Thread(target=_feed, args=(proc.stdin, stdin.encode("utf-8")), daemon=True)
    for thread in (out, err, feeder):
        thread.start()
    try:
        _wait(proc, started + timeout_s, overflow)
    except BaseException:
        _kill_tree(proc)
        raise
    finished = proc.poll() is not None and not overflow.is_set()
    if not finished:
        _kill_tree(proc)
        proc.wait()
    reap_until = time.monotonic() + REAP_S
    for thread in (out, err):
        thread.join(max(0.0, reap_until - time.monotonic()))
    if out.is_alive() or err.is_alive():
        _kill_tree(proc)  # whatever of its group still holds the pipes
    if overflow.is_set():
        raise BackendError(
            f"{harness.label}: printed more than {MAX_OUTPUT_BYTES / 2**20:.3g} MiB; stopped it",
            hint="a harness printing this much is looping or misconfigured (a debug flag in "
            "extra_args?); check its version and options",
        )
    if not finished:
        raise TransientError(
            f"{harness.label}: no answer within {timeout_s:g}s",
            hint="raise the backend option 'timeout' or use a faster model",
        )
    return ProcessResult(
        argv=tuple(argv),
        returncode=proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        latency_s=time.monotonic() - started,
    )


def auth_failure(harness: Harness, *texts: str) -> BackendUnavailable | None:
    """A BackendUnavailable when any text carries one of the harness's not-logged-in markers."""
    joined = "\n".join(texts)
    lowered = joined.lower()
    for marker in harness.auth_markers:
        if marker.lower() in lowered:
            return BackendUnavailable(
                f"{harness.label} is not authenticated ({marker!r}): {excerpt(joined, 300)}",
                hint=harness.login_hint,
            )
    return None


def call_failed(
    harness: Harness, what: str, returncode: int, detail: str, *evidence: str
) -> BackendError:
    """The error for a failed call, classified from its output (``detail`` + ``evidence``).

    Not logged in → :class:`BackendUnavailable` (fail the run with the fix); rate limits,
    overload, 5xx and dropped streams → :class:`TransientError` (the shared layer retries);
    anything else → :class:`BackendError`.
    """
    auth = auth_failure(harness, detail, *evidence)
    if auth is not None:
        return auth
    message = redact(f"{harness.label}: {what} (exit {returncode}): {detail or '(no output)'}")
    if _TRANSIENT.search("\n".join((detail, *evidence))):
        return TransientError(message)
    return BackendError(message)


def failure(harness: Harness, result: ProcessResult, what: str) -> BackendError:
    """:func:`call_failed` for a call whose output could not be read at all."""
    detail = excerpt(result.stderr) or excerpt(result.stdout)
    return call_failed(harness, what, result.returncode, detail, result.stdout, result.stderr)


def check_version(
    harness: Harness, executable: str, env: Mapping[str, str], timeout_s: float
) -> str:
    """Run ``<cli> --version``; raise BackendUnavailable unless it works. Returns the version text."""
    with scratch_dir("skillopt-health-") as cwd:
        try:
            result = run(
                harness, [executable, "--version"], stdin="", cwd=cwd, env=env, timeout_s=timeout_s
            )
        except BackendUnavailable:
            raise
        except BackendError as exc:
            raise BackendUnavailable(str(exc), hint=harness.install_hint) from exc
    version = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
    if result.returncode != 0 or not version:
        raise BackendUnavailable(
            f"{harness.label}: '{executable} --version' failed (exit {result.returncode}): "
            f"{excerpt(result.stderr) or '(no output)'}",
            hint=f"reinstall it: {harness.install_hint}",
        )
    return version
