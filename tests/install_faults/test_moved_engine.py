"""A clone (or its venv) moved or deleted after `install`: every shim that runs the engine says
so, naming the missing path and the fix, where the harness shows it (stderr, a non-zero exit),
instead of failing silently; `doctor`, run from a working install, names every installed entry
whose engine is gone; and `install` with no harness, from the working install, fixes them all.

The engine "in the old clone" is a console script and an interpreter (sh scripts that say what
they were asked) that `install` records instead of this test's own; deleting the folder is the
move. The real engine stays untouched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.install import Homes, install
from skillopt_sleep.install import engine_command as ec
from skillopt_sleep.install.doctor import shim_checks
from skillopt_sleep.install.engine_command import pointer_path
from skillopt_sleep.install.layout import Harness, plugin_dir
from skillopt_sleep.install.manifest import Manifest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIX = "reinstall from the clone: bash scripts/bootstrap.sh && .venv/bin/skillopt-sleep install"
PLUGIN = plugin_dir("claude-code")
posix_only = pytest.mark.skipif(os.name == "nt", reason="the shims' wrappers are POSIX sh")


def _install_from(clone: Path, homes: Homes) -> None:
    """`install all` as run by the engine in ``clone`` (its console script and interpreter)."""
    clone.mkdir(parents=True)
    for name in ("skillopt-sleep", "python"):
        (clone / name).write_text(f'#!/bin/sh\necho "{name} ran $*"\n')
        (clone / name).chmod(0o755)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ec, "_console_script", lambda: clone / "skillopt-sleep")
        patch.setattr(ec, "python", lambda: str(clone / "python"))
        install(["all"], homes=homes, claude_plugin=False)


def _command_in(harness: Harness, relative: str, installed: Path) -> str:
    """The engine command install put where the template says ``{{SKILLOPT_SLEEP}}`` first."""
    template = (plugin_dir(harness) / relative).read_text()
    head, _, rest = template.partition(ec.PLACEHOLDER)
    tail = rest.split(ec.PLACEHOLDER)[0]
    text = installed.read_text()
    assert text.startswith(head)
    return text[len(head) : text.index(tail, len(head))]


def _shims(homes: Homes) -> dict[str, list[str]]:
    """Each installed shim as the harness runs it: the agent's shell, or the MCP entry's argv."""
    skill = "skills/skillopt-sleep/SKILL.md"
    skills: dict[str, tuple[Harness, str, Path]] = {
        "claude command": (
            "claude-code",
            "user-command/skillopt-sleep.md",
            homes.claude / "commands" / "skillopt-sleep.md",
        ),
        "codex skill": ("codex", skill, homes.agents_skills / "skillopt-sleep" / "SKILL.md"),
        "copilot skill": ("copilot", skill, homes.copilot / skill),
    }
    out = {
        name: ["/bin/sh", "-c", _command_in(*where) + " status"] for name, where in skills.items()
    }
    codex = tomllib.loads((homes.codex / "config.toml").read_text())["mcp_servers"]
    copilot = json.loads((homes.copilot / "mcp-config.json").read_text())["mcpServers"]
    for name, server in (("codex mcp", codex), ("copilot mcp", copilot)):
        out[name] = [server["skillopt_sleep"]["command"], *server["skillopt_sleep"]["args"]]
    return out


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL
    )


@posix_only
def test_every_shim_says_the_engine_is_gone_and_how_to_fix_it(tmp_path: Path, homes: Homes) -> None:
    clone = tmp_path / "old-clone" / ".venv" / "bin"
    _install_from(clone, homes)
    shims = _shims(homes)
    ran = {name: _run(argv) for name, argv in shims.items()}
    assert all(r.returncode == 0 for r in ran.values()), ran  # present: the engine runs
    assert ran["codex skill"].stdout == "skillopt-sleep ran status\n"
    assert ran["codex mcp"].stdout == "python ran -m skillopt_sleep.mcp\n"

    shutil.rmtree(tmp_path / "old-clone")  # the clone moved
    for name, argv in shims.items():
        done = _run(argv)
        missing = clone / ("python" if name.endswith("mcp") else "skillopt-sleep")
        assert done.returncode != 0, name
        assert done.stderr.splitlines() == [
            f"skillopt-sleep: the engine {missing} is gone (moved or deleted); {FIX}"
        ], (name, done.stderr)


def test_doctor_names_every_entry_whose_engine_is_gone_and_install_fixes_them(
    tmp_path: Path, homes: Homes
) -> None:
    clone = tmp_path / "old-clone" / ".venv" / "bin"
    _install_from(clone, homes)
    shutil.rmtree(tmp_path / "old-clone")

    checks = shim_checks(homes, Manifest())  # from this test's engine: a working install
    expected = {
        str(homes.claude / "commands" / "skillopt-sleep.md"),
        str(homes.agents_skills / "skillopt-sleep" / "SKILL.md"),
        str(homes.codex / "config.toml"),
        str(homes.copilot / "skills" / "skillopt-sleep" / "SKILL.md"),
        str(homes.copilot / "mcp-config.json"),
    }
    failed = {c.detail.split(" runs ")[0]: c for c in checks if c.level == "fail"}
    assert set(failed) == expected, [(c.level, c.detail) for c in checks]
    for check in failed.values():
        assert str(clone) in check.detail and "no longer exists" in check.detail
        assert check.hint == f"{ec.shell_command(ec.cli_argv())} install"

    actions = install([], homes=homes, claude_plugin=False)  # the fix, run from here
    assert {a.path for a in actions} >= expected
    after = shim_checks(homes, Manifest())
    assert all(c.level == "ok" for c in after), [(c.level, c.detail) for c in after]
    assert json.loads(pointer_path().read_text())["python"] == ec.python()


def _pointer_to_a_gone_engine(tmp_path: Path) -> Path:
    gone = tmp_path / "old-clone" / ".venv" / "bin" / "skillopt-sleep"
    pointer = tmp_path / "state" / "install" / "engine.json"
    pointer.parent.mkdir(parents=True)
    python = str(gone.parent / "python")
    pointer.write_text(json.dumps({"python": python, "cli": [str(gone)], "mcp": [python]}))
    return gone


def _plugin_env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"),
        "SKILLOPT_SLEEP_CONFIG": str(tmp_path / "none.toml"),
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
    }


@posix_only
def test_the_session_end_hook_records_the_session_then_says_the_engine_is_gone(
    tmp_path: Path,
) -> None:
    """Run as Claude Code runs it (hooks.json's command in a shell): exit 2, whose stderr Claude
    Code shows when a session ends; the session is still recorded, once."""
    gone = _pointer_to_a_gone_engine(tmp_path)
    (command,) = [
        hook["command"]
        for group in json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"][
            "SessionEnd"
        ]
        for hook in group["hooks"]
    ]
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input='{"session_id": "s1", "transcript_path": "/t/s1.jsonl", "cwd": "/p"}',
        env=_plugin_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"skillopt-sleep: the engine {gone} is gone (moved or deleted); {FIX}"
    ]
    (line,) = (tmp_path / "state" / "session-end.jsonl").read_text().splitlines()
    assert json.loads(line)["session_id"] == "s1"


def test_the_plugin_launcher_names_the_engine_that_is_gone(tmp_path: Path) -> None:
    """The plugin's MCP server and launcher (`engine.py`), with no other engine to fall back on."""
    system = Path("/usr/bin/python3")
    if not system.exists():
        pytest.skip("no system python3 to run the launcher without the engine")
    gone = _pointer_to_a_gone_engine(tmp_path)
    for args, missing in ((["status"], gone), (["mcp"], gone.parent / "python")):
        done = subprocess.run(
            [str(system), "-S", str(PLUGIN / "scripts" / "engine.py"), *args],
            env={**_plugin_env(tmp_path), "PATH": "/nonexistent"},
            cwd=str(tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode == 0:
            pytest.skip("the system python3 has the engine installed")
        assert done.returncode == 1
        assert done.stderr.splitlines() == [
            f"skillopt-sleep: the engine {missing} is gone (moved or deleted); {FIX}"
        ]


def test_windows_shims_still_name_the_engine_itself() -> None:
    """No sh on Windows to run a wrapper with: nothing changes there."""
    assert ec.wrappers(windows=True) == {}
    assert ec.shim_cli(windows=True) == ec.cli_argv()
    assert ec.shim_mcp(windows=True) == ec.mcp_argv()
    assert ec.render(ec.PLACEHOLDER, windows=True) == ec.shell_command(ec.cli_argv(), windows=True)
