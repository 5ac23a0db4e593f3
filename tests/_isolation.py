"""Keep a test's engine state and user config inside its temp dir (shared by the conftests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

KEPT = ("SKILLOPT_SLEEP_HOME", "SKILLOPT_SLEEP_CONFIG")


def isolate_sleep_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """State under ``tmp_path/state``, a user config file that does not exist, and no other
    ``SKILLOPT_SLEEP_*`` setting of the developer's leaking into the test."""
    for name in list(os.environ):
        if name.startswith("SKILLOPT_SLEEP_") and name not in KEPT:
            monkeypatch.delenv(name)
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(tmp_path / "no-user-config.toml"))


def isolate_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """:func:`isolate_sleep_state`, plus ``HOME`` (and the XDG config dir) at ``tmp_path/home``
    with no harness home variable of the developer's set: the home an installer test writes to."""
    isolate_sleep_state(tmp_path, monkeypatch)
    home = tmp_path / "home"
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home
