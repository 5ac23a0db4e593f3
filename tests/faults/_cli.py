"""Run `skillopt-sleep` as a real process (start-up, streams and exit codes included)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def home_args(homes: Mapping[str, Path]) -> list[str]:
    """``--claude-home X --codex-home Y ...`` for the homes given."""
    return [arg for name, path in homes.items() for arg in (f"--{name}-home", str(path))]


def sleep_cli(
    args: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    merged = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", *args],
        capture_output=True,
        env=merged,
        timeout=timeout,
        check=False,
    )


def popen_cli(args: Sequence[str], **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "skillopt_sleep", *args], **kwargs)  # type: ignore[call-overload]
