"""No clone needed: the built wheel carries the plugin folders, and `skillopt-sleep install` from
that wheel finds them (the reference implementation's issue #106)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _run(argv: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False, **kw)  # type: ignore[call-overload]


def test_installing_from_the_wheel_finds_the_plugins(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for name in ("skillopt_core", "skillopt_sleep", "plugins"):
        shutil.copytree(
            ROOT / name, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
        )
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(source)],
        cwd=str(tmp_path),
    )  # fmt: skip
    if built.returncode != 0 and "No module named" in built.stderr:
        pytest.skip(f"cannot build a wheel offline here: {built.stderr[-300:]}")
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("skillopt_sleep-*.whl")
    target = tmp_path / "site"
    unpacked = _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
         str(wheel)],
        cwd=str(tmp_path),
    )  # fmt: skip
    assert unpacked.returncode == 0, unpacked.stderr[-2000:]
    assert not (target / "skillopt_sleep" / "_plugins").is_symlink()
    home = tmp_path / "home"
    env = {
        **os.environ,
        "PYTHONPATH": str(target),
        "HOME": str(home),
        "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"),
    }
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        env.pop(name, None)
    done = _run(
        [sys.executable, "-m", "skillopt_sleep.install", "install", "codex", "copilot", "--no-mcp"],
        cwd=str(tmp_path),
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    skill = (home / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md").read_text()
    assert "name: skillopt-sleep" in skill
    located = _run(
        [sys.executable, "-c",
         "from skillopt_sleep.install.layout import plugin_dir; print(plugin_dir('claude-code'))"],
        cwd=str(tmp_path),
        env=env,
    )  # fmt: skip
    plugin = Path(located.stdout.strip())
    assert plugin.is_relative_to(target.resolve()), located.stdout + located.stderr
    assert (plugin / ".claude-plugin" / "plugin.json").is_file()
    assert (plugin / "hooks" / "session_end.py").is_file()
