"""Run a real harness CLI (Claude Code, Codex, Copilot CLI) offline against a loopback fake model.

Each run gets a throw-away HOME (with its own ``~/.claude``, ``~/.codex``, ``~/.copilot`` and XDG
dirs), an environment built from scratch (no inherited credentials), and provider settings that
point only at the :class:`~skillopt_core.testing.FakeModelServer` on 127.0.0.1:

- ``claude``: ``ANTHROPIC_BASE_URL`` (Anthropic Messages) + a dummy key or bearer token,
- ``codex``: ``$CODEX_HOME/config.toml`` with a ``fake`` model provider (Responses API),
- ``copilot``: BYOK ``COPILOT_PROVIDER_BASE_URL`` + ``COPILOT_MODEL`` (Chat Completions),

plus the switches that stop auto-update, telemetry and other background traffic, and a proxy on
a closed loopback port as a second guard, so anything not aimed at the fake fails instead of
leaving the machine. Used by the backend integration tests and to make the CLIs write genuine
transcripts for the harvesters::

    with FakeModelServer(["Done."]) as fake, offline_harness("claude", fake, tmp_path) as h:
        h.run(["-p", "Fix the test"], cwd=h.project("webapp"))
        assert h.session_files()
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillopt_core.testing.fake_server import FakeModelServer

HarnessName = Literal["claude", "codex", "copilot"]
HARNESSES: tuple[HarnessName, ...] = ("claude", "codex", "copilot")

FAKE_MODEL = "fake-model"
DEAD_PROXY = "http://127.0.0.1:9"
"""Discard port on loopback: a request that ignores NO_PROXY and the fake fails fast, locally."""

_FAKE_KEY = "sk-fake-loopback-key"
_PASS_THROUGH = ("PATH", "SYSTEMROOT", "COMSPEC", "PATHEXT", "LANG", "TZ")


def find_cli(name: HarnessName) -> str | None:
    """The harness executable on PATH (``shutil.which`` resolves Windows ``.cmd`` shims)."""
    return shutil.which(name)


@dataclass(frozen=True)
class OfflineHarness:
    """One harness CLI wired to a fake model inside a temporary HOME."""

    name: HarnessName
    executable: str
    home: Path
    env: Mapping[str, str]

    @property
    def state_dir(self) -> Path:
        """Where this harness keeps its history: ``~/.claude``, ``~/.codex`` or ``~/.copilot``."""
        return self.home / f".{self.name}"

    def project(self, name: str) -> Path:
        """A project directory under the temp HOME (created empty), to run the CLI in."""
        path = self.home / "projects" / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path,
        stdin: str = "",
        timeout_s: float = 120.0,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``<cli> *args`` in ``cwd`` with the offline environment; never raises on exit code."""
        return subprocess.run(
            [self.executable, *args],
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            cwd=str(cwd),
            env=dict(self.env),
            timeout=timeout_s,
            check=False,
        )

    def ask(
        self, prompt: str, *, cwd: Path, extra_args: Sequence[str] = (), timeout_s: float = 120.0
    ) -> subprocess.CompletedProcess[str]:
        """One ordinary headless prompt, as a user would run it: it *does* write a transcript."""
        args = {
            "claude": ["-p", prompt],
            "codex": ["exec", "--skip-git-repo-check", prompt],
            "copilot": ["-p", prompt, "--allow-all-tools"],
        }[self.name]
        return self.run([*args, *extra_args], cwd=cwd, timeout_s=timeout_s)

    def session_files(self) -> list[Path]:
        """Transcripts this harness wrote under the temp HOME (what a harvester would read)."""
        patterns = {
            "claude": ("projects/**/*.jsonl",),
            "codex": ("sessions/**/*.jsonl", "archived_sessions/*.jsonl"),
            "copilot": ("session-state/*/events.jsonl",),
        }[self.name]
        found = {p for pattern in patterns for p in self.state_dir.glob(pattern) if p.is_file()}
        return sorted(found)

    def backend_options(self) -> dict[str, object]:
        """Options for the matching ``*-cli`` backend so its calls run in this offline home."""
        return {"executable": self.executable, "env": dict(self.env), "timeout": 120}


def _base_env(home: Path) -> dict[str, str]:
    env = {name: os.environ[name] for name in _PASS_THROUGH if name in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        HOME=str(home),
        USERPROFILE=str(home),
        TMPDIR=str(home / "tmp"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        NO_COLOR="1",
        CI="1",
        HTTP_PROXY=DEAD_PROXY,
        HTTPS_PROXY=DEAD_PROXY,
        http_proxy=DEAD_PROXY,
        https_proxy=DEAD_PROXY,
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    return env


def claude_env(home: Path, fake: FakeModelServer, *, use_api_key: bool = True) -> dict[str, str]:
    """Claude Code → the fake's Anthropic Messages API.

    ``use_api_key=False`` authenticates with a bearer token instead, which is what a subscription
    user looks like to the ``claude-cli`` backend (no ``ANTHROPIC_API_KEY``, so no ``--bare``).
    """
    env = _base_env(home)
    env.update(
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        ANTHROPIC_BASE_URL=fake.base_url,
        ANTHROPIC_MODEL=FAKE_MODEL,
        ANTHROPIC_SMALL_FAST_MODEL=FAKE_MODEL,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY="1",
    )
    env["ANTHROPIC_API_KEY" if use_api_key else "ANTHROPIC_AUTH_TOKEN"] = _FAKE_KEY
    return env


def codex_env(home: Path, fake: FakeModelServer) -> dict[str, str]:
    """Codex → a ``fake`` model provider (Responses API) declared in ``$CODEX_HOME/config.toml``."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        f'model = "{FAKE_MODEL}"\n'
        'model_provider = "fake"\n'
        "check_for_update_on_startup = false\n"
        "\n"
        "[model_providers.fake]\n"
        'name = "Loopback fake"\n'
        f'base_url = "{fake.openai_base_url}"\n'
        'wire_api = "responses"\n'
        'env_key = "FAKE_MODEL_API_KEY"\n'
        "\n"
        "[analytics]\n"
        "enabled = false\n",
        encoding="utf-8",
    )
    env = _base_env(home)
    env.update(CODEX_HOME=str(codex_home), FAKE_MODEL_API_KEY=_FAKE_KEY)
    return env


def copilot_env(home: Path, fake: FakeModelServer) -> dict[str, str]:
    """Copilot CLI → BYOK provider at the fake's Chat Completions API, offline mode."""
    env = _base_env(home)
    env.update(
        COPILOT_HOME=str(home / ".copilot"),
        COPILOT_PROVIDER_BASE_URL=fake.openai_base_url,
        COPILOT_PROVIDER_TYPE="openai",
        COPILOT_PROVIDER_API_KEY=_FAKE_KEY,
        COPILOT_MODEL=FAKE_MODEL,
        COPILOT_OFFLINE="true",
        COPILOT_AUTO_UPDATE="false",
    )
    return env


def offline_env(name: HarnessName, home: Path, fake: FakeModelServer) -> dict[str, str]:
    if name == "claude":
        return claude_env(home, fake)
    if name == "codex":
        return codex_env(home, fake)
    return copilot_env(home, fake)


@contextmanager
def offline_harness(
    name: HarnessName,
    fake: FakeModelServer,
    root: Path | None = None,
    *,
    env_overrides: Mapping[str, str] | None = None,
) -> Iterator[OfflineHarness]:
    """A temp HOME wired to ``fake``: kept under ``root`` when given, else removed afterwards.

    Raises ``FileNotFoundError`` when the CLI is not on PATH; tests check :func:`find_cli` first.
    """
    executable = find_cli(name)
    if executable is None:
        raise FileNotFoundError(f"the {name} CLI is not on PATH")
    with contextlib.ExitStack() as stack:
        if root is None:
            base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"offline-{name}-")))
        else:
            base = Path(tempfile.mkdtemp(prefix=f"offline-{name}-", dir=root))
        home = base / "home"
        home.mkdir()
        env = offline_env(name, home, fake)
        env.update(env_overrides or {})
        yield OfflineHarness(name=name, executable=executable, home=home, env=env)
