"""`scripts/bootstrap.sh` and the interpreter it makes .venv from: ``PYTHON=`` picks one, an
unsupported version is refused before anything is installed, an unusable .venv is made again
and one of another version than ``PYTHON`` names is refused.

The script runs from a copy in tmp_path with stand-in interpreters (shell scripts that answer
the version query, make a stand-in .venv and log every call), so nothing is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or shutil.which("bash") is None, reason="bootstrap.sh needs bash"
)

# A stand-in interpreter: the version query prints the version, ``-m venv [--clear] DIR``
# copies this script to DIR/bin/python with a working pip (or fails when told to), ``-m pip``
# exits with the status given.
_FAKE = """#!/bin/sh
echo "$0 $*" >> "{log}"
case "$1" in
  -c) echo "{version}" ;;
  -m) case "$2" in
        venv) shift 2
              if [ "$1" = --clear ]; then rm -rf "$2"; shift; fi
              {venv} ;;
        pip) exit {pip_status} ;;
      esac ;;
esac
"""
_MAKE_VENV = (
    'mkdir -p "$1/bin" && sed "s/pip) exit 1/pip) exit 0/" "$0" > "$1/bin/python"'
    ' && chmod +x "$1/bin/python"'
)


def _fake(path: Path, log: Path, version: str, *, pip: bool = True, venv: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    make = _MAKE_VENV if venv else 'mkdir -p "$1/bin"; exit 1'
    path.write_text(_FAKE.format(log=log, version=version, venv=make, pip_status=0 if pip else 1))
    path.chmod(0o755)
    return path


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    root = tmp_path / "clone"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "bootstrap.sh", root / "scripts" / "bootstrap.sh")
    return root


def _run(clone: Path, python: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHON"}
    if python is not None:
        env["PYTHON"] = python
    return subprocess.run(
        ["bash", str(clone / "scripts" / "bootstrap.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_supported_python_named_by_PYTHON_makes_the_venv(clone: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    python = _fake(tmp_path / "py312" / "python3", log, "3.12")
    done = _run(clone, str(python))
    assert done.returncode == 0, done.stderr
    calls = log.read_text()
    assert f"{python} -m venv .venv" in calls
    assert ".venv/bin/python -m pip install" in calls
    assert "untested" not in done.stderr


def test_an_older_python_is_refused_before_anything_is_made(clone: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    python = _fake(tmp_path / "py39" / "python3", log, "3.9")
    done = _run(clone, str(python))
    assert done.returncode == 2
    assert "is Python 3.9" in done.stderr and "needs Python 3.10 or newer" in done.stderr
    assert "fix: " in done.stderr and "PYTHON=" in done.stderr
    assert not (clone / ".venv").exists()
    assert "-m venv" not in log.read_text()


def test_a_python_that_does_not_run_is_refused(clone: Path, tmp_path: Path) -> None:
    done = _run(clone, str(tmp_path / "no-such-python"))
    assert done.returncode == 2
    assert "cannot run" in done.stderr and "no-such-python" in done.stderr
    assert not (clone / ".venv").exists()


def test_a_newer_python_is_used_with_a_warning(clone: Path, tmp_path: Path) -> None:
    python = _fake(tmp_path / "py314" / "python3", tmp_path / "calls.log", "3.14")
    done = _run(clone, str(python))
    assert done.returncode == 0, done.stderr
    assert "Python 3.14 is untested" in done.stderr


def test_a_venv_without_pip_is_made_again(clone: Path, tmp_path: Path) -> None:
    """Debian without python3-venv leaves .venv/bin/python and no pip: after installing the
    module, running the bootstrap again must make the venv, not fail on ``No module named pip``."""
    log = tmp_path / "calls.log"
    _fake(clone / ".venv" / "bin" / "python", log, "3.12", pip=False)
    python = _fake(tmp_path / "py312" / "python3", log, "3.12")
    done = _run(clone, str(python))
    assert done.returncode == 0, done.stderr
    assert f"{python} -m venv --clear .venv" in log.read_text()


def test_a_venv_whose_python_is_gone_is_made_again(clone: Path, tmp_path: Path) -> None:
    """A distribution upgrade (Debian 12 to 13) removes the Python the venv links to."""
    (clone / ".venv" / "bin").mkdir(parents=True)
    (clone / ".venv" / "bin" / "python").symlink_to(tmp_path / "python3.11-removed")
    log = tmp_path / "calls.log"
    python = _fake(tmp_path / "py313" / "python3", log, "3.13")
    done = _run(clone, str(python))
    assert done.returncode == 0, done.stderr
    assert f"{python} -m venv --clear .venv" in log.read_text()


def test_a_failed_venv_says_how_to_get_the_module(clone: Path, tmp_path: Path) -> None:
    python = _fake(tmp_path / "py312" / "python3", tmp_path / "calls.log", "3.12", venv=False)
    done = _run(clone, str(python))
    assert done.returncode == 2
    assert "could not make .venv" in done.stderr and "python3.12-venv" in done.stderr


def test_a_venv_of_another_version_than_PYTHON_is_refused(clone: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    _fake(clone / ".venv" / "bin" / "python", log, "3.11")
    python = _fake(tmp_path / "py313" / "python3", log, "3.13")
    done = _run(clone, str(python))
    assert done.returncode == 2
    assert ".venv is Python 3.11, not the Python 3.13" in done.stderr
    assert "rm -rf .venv" in done.stderr
    assert "-m venv" not in log.read_text() and "pip install" not in log.read_text()


def test_an_existing_venv_is_kept_when_PYTHON_is_unset(clone: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    _fake(clone / ".venv" / "bin" / "python", log, "3.11")
    done = _run(clone, None)
    assert done.returncode == 0, done.stderr
    calls = log.read_text()
    assert "-m venv" not in calls and "-m pip install" in calls


def test_the_oldest_supported_python_matches_requires_python() -> None:
    script = (ROOT / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    minor = re.search(r"^min_minor=(\d+)", script, re.MULTILINE)
    required = re.search(r'^requires-python = ">=3\.(\d+)"', project, re.MULTILINE)
    assert minor and required and minor.group(1) == required.group(1)
