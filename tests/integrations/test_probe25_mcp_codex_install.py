"""`bash plugins/codex/install.sh` in a clone set up with `bash scripts/bootstrap.sh` (the engine in
the clone's `.venv`, nothing on PATH) uses that engine. Failed before: the script looked only at
PATH, so it said "not installed for any Python on PATH ... pip install" and exited 1.

The clone is a copy of the Codex scripts under a temp folder; its ``.venv/bin/python`` is a
stand-in that notes each call and runs this interpreter (which has the engine)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "codex"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the bash scripts")


def _clone(tmp_path: Path, *, venv: bool) -> Path:
    clone = tmp_path / "my clone ü"
    shutil.copytree(PLUGIN, clone / "plugins" / "codex")
    if venv:
        python = clone / ".venv" / "bin" / "python"
        python.parent.mkdir(parents=True)
        marker = tmp_path / "venv-used"
        python.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexec "{sys.executable}" "$@"\n')
        python.chmod(0o755)
    return clone


def _install(tmp_path: Path, clone: Path) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": "/usr/bin:/bin",  # no skillopt-sleep, and (usually) no python with the engine
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"),
    }
    return subprocess.run(
        ["bash", str(clone / "plugins" / "codex" / "install.sh"), "--dry-run"],
        env=env,
        cwd=str(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_install_sh_uses_the_engine_in_the_clones_venv(tmp_path: Path) -> None:
    done = _install(tmp_path, _clone(tmp_path, venv=True))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-m skillopt_sleep.install install codex --dry-run" in (
        (tmp_path / "venv-used").read_text()
    )
    assert "config.toml" in done.stdout and "SKILL.md" in done.stdout, done.stdout
    assert not (tmp_path / "home" / ".agents").exists()  # a dry run writes nothing


def test_install_sh_without_any_engine_says_how_to_set_one_up(tmp_path: Path) -> None:
    clone = _clone(tmp_path, venv=False)
    done = _install(tmp_path, clone)
    if done.returncode == 0:  # a system python that has the engine: nothing to explain
        pytest.skip("a python on the minimal PATH already has skillopt_sleep")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bash scripts/bootstrap.sh" in done.stderr and str(clone) in done.stderr
    assert "not on PyPI" in done.stderr and "pip install" in done.stderr
    assert not (tmp_path / "home" / ".agents").exists()
