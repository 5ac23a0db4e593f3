"""Shared by the installer fault tests: isolated homes and state, the suite's fake scheduler
(``doctor`` asks the crontab about the project's schedule) and a fake `claude` on PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillopt_sleep.install import Homes
from tests._guard import StandIns
from tests._isolation import isolate_home


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_scheduler: StandIns) -> Homes:
    home = isolate_home(tmp_path, monkeypatch)
    homes = Homes.from_env({}, home)
    homes.codex.mkdir(parents=True)
    homes.copilot.mkdir(parents=True)
    return homes


class FakeClaude:
    """A `claude` script first on PATH; ``script(install=..., uninstall=...)`` sets the shell run
    for `claude plugin install` / `uninstall` (anything else succeeds at once)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "claude"

    def script(self, *, install: str = "exit 0", uninstall: str = "exit 0") -> None:
        self.path.write_text(
            f'#!/bin/sh\ncase "$2" in\n  install) {install} ;;\n  uninstall) {uninstall} ;;\n'
            "esac\nexit 0\n"
        )
        self.path.chmod(0o755)


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeClaude:
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    fake = FakeClaude(folder)
    fake.script()
    return fake
