"""An install killed mid-way (SIGKILL: no `finally` runs) leaves nothing uninstall cannot find:
what is about to be written is recorded first, a temp file of a torn atomic write is cleared by
the next install or uninstall, and an update whose record was lost is recorded on reinstall."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.install import Homes, install, uninstall
from skillopt_sleep.install.manifest import install_dir

KILLED = """
import os, sys
from pathlib import Path
from skillopt_sleep.install import _fs, install

harness, target, when = sys.argv[1:]
real_write, real_replace = _fs.write, os.replace

def write_then_die(path, data, *, executable=False):
    real_write(path, data, executable=executable)
    if path.name == target:
        os._exit(137)

def die_before_rename(src, dst, **kw):
    if Path(dst).name == target:
        os._exit(137)
    real_replace(src, dst, **kw)

if when == "after-write":
    _fs.write = write_then_die
else:
    os.replace = die_before_rename
install([harness], claude_plugin=False)
sys.exit(3)
"""

TARGETS = [("codex", "SKILL.md"), ("codex", "config.toml"), ("copilot", "mcp-config.json")]


def _killed_install(harness: str, target: str, when: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED, harness, target, when],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 137, done.stderr


def _leftovers(homes: Homes) -> list[str]:
    return sorted(str(p.relative_to(homes.home)) for p in homes.home.rglob("*") if not p.is_dir())


@pytest.mark.parametrize("when", ["after-write", "before-rename"])
@pytest.mark.parametrize(("harness", "target"), TARGETS)
def test_uninstall_after_a_killed_install_leaves_nothing(
    homes: Homes, harness: str, target: str, when: str
) -> None:
    _killed_install(harness, target, when)
    assert any(
        p.name.startswith(target) or p.name.startswith(f".{target}.") for p in homes.home.rglob("*")
    )
    uninstall([harness])
    assert _leftovers(homes) == []
    assert not (homes.home / ".agents").exists()  # the folders made for the skill go too


def test_a_reinstall_clears_the_torn_write_and_records_the_folders(homes: Homes) -> None:
    _killed_install("codex", "SKILL.md", "before-rename")
    skill = homes.agents_skills / "skillopt-sleep" / "SKILL.md"
    assert not skill.exists() and list(skill.parent.glob(".SKILL.md.*"))
    install(["codex"], claude_plugin=False)
    assert skill.exists() and not list(skill.parent.glob(".SKILL.md.*"))
    uninstall(["codex"])
    assert _leftovers(homes) == [] and not (homes.home / ".agents").exists()


@pytest.mark.parametrize(("harness", "target"), TARGETS)
def test_a_reinstall_records_an_update_whose_record_was_lost(
    homes: Homes, harness: str, target: str
) -> None:
    install([harness], claude_plugin=False)
    manifest = install_dir() / "manifest.json"
    data = json.loads(manifest.read_text())
    (entry,) = [e for e in data["entries"] if Path(e["path"]).name == target]
    entry["sha256"] = "0" * 64  # the hash of the previous version: killed before the save
    manifest.write_text(json.dumps(data))
    assert {a.verb for a in install([harness], claude_plugin=False)} == {"unchanged"}
    uninstall([harness])
    assert _leftovers(homes) == []
