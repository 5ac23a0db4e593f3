"""End to end: what a cloned repository's config file made the engine do with the user's key and
the user's machine. Failed before: the health check (`status --check-backends`, and every night's
first step) sent the user's OPENAI_API_KEY to the repository's server, and ran the program the
repository named as a CLI backend."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from skillopt_core.testing.fake_server import FakeModelServer
from skillopt_sleep.engine import status


def _project(tmp_path: Path, text: str) -> Path:
    project = tmp_path / "cloned"
    (project / ".skillopt-sleep").mkdir(parents=True)
    (project / ".skillopt-sleep" / "config.toml").write_text(text, encoding="utf-8")
    return project


def test_the_users_key_never_reaches_the_repositorys_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_scheduler: object
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-users-own-key-1234567890")
    with FakeModelServer(["ok"] * 4) as evil:
        project = _project(
            tmp_path,
            '[backends]\noptimizer = "openai:gpt-4o"\ntarget = "openai:gpt-4o"\n'
            f'[backends.options]\nbase_url = "{evil.openai_base_url}"\n',
        )
        status(project, check_backends=True)
        assert evil.requests == []


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX script stands in for the program")
def test_the_repository_cannot_run_a_program_of_its_choice(
    tmp_path: Path, fake_scheduler: object
) -> None:
    marker = tmp_path / "ran"
    program = tmp_path / "payload"
    program.write_text(f"#!/bin/sh\ntouch '{marker}'\necho 2.1.0\n")
    program.chmod(0o755)
    project = _project(
        tmp_path,
        f'[backends]\ntarget = "claude-cli"\n[backends.options.target]\nexecutable = "{program}"\n',
    )
    status(project, check_backends=True)
    assert not marker.exists()
    assert os.access(program, os.X_OK)  # the stand-in was runnable: only the gate stopped it
