"""The Claude Code plugin's own scripts, run as Claude Code runs them: a bare ``python3`` from the
plugin cache, stdlib only, finding the engine through ``engine.json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.install import Homes, install
from skillopt_sleep.install.layout import plugin_dir

PLUGIN = plugin_dir("claude-code")


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"),
        "SKILLOPT_SLEEP_CONFIG": str(tmp_path / "none.toml"),
    }


def test_launcher_runs_the_recorded_engine(tmp_path: Path) -> None:
    install(["codex"], homes=Homes.from_env({}, tmp_path / "home"), mcp=False)  # writes engine.json
    project = tmp_path / "proj"
    project.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            str(PLUGIN / "scripts" / "engine.py"),
            "status",
            "--json",
            "-p",
            str(project),
        ],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["project"] == str(project.resolve())


def _launch_without_engine(tmp_path: Path, kind: str) -> subprocess.CompletedProcess[str]:
    """The launcher run by the system python3 (no site-packages, no engine on PATH); skipped
    where there is none or where it has the engine installed."""
    system = Path("/usr/bin/python3")
    if not system.exists():
        pytest.skip("no system python3 to run the launcher without the engine")
    done = subprocess.run(
        [str(system), "-S", str(PLUGIN / "scripts" / "engine.py"), kind],
        env={**_env(tmp_path), "PATH": "/nonexistent"},
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode == 0:
        pytest.skip("the system python3 has the engine installed")
    return done


def test_launcher_without_any_engine_says_how_to_install(tmp_path: Path) -> None:
    done = _launch_without_engine(tmp_path, "status")
    assert done.returncode == 1 and "not on PyPI" in done.stderr and "pip install" in done.stderr


@pytest.mark.parametrize(
    "stdin",
    [
        b'{"session_id": "s1", "transcript_path": "/t/s1.jsonl", "cwd": "/p", "reason": "other"}',
        b"not json at all",
        b"",
    ],
)
def test_session_end_hook_records_and_always_exits_zero(tmp_path: Path, stdin: bytes) -> None:
    done = subprocess.run(
        [sys.executable, str(PLUGIN / "hooks" / "session_end.py")],
        input=stdin,
        env=_env(tmp_path),
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and not done.stderr
    (line,) = (tmp_path / "state" / "session-end.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["harness"] == "claude"
    if stdin.startswith(b"{"):
        assert record["session_id"] == "s1" and record["transcript_path"] == "/t/s1.jsonl"


def test_session_end_hook_does_not_wait_for_a_stdin_that_never_closes(tmp_path: Path) -> None:
    """An open pipe with no EOF must not hang the hook (a guard, not a timing assertion)."""
    process = subprocess.Popen(
        [sys.executable, str(PLUGIN / "hooks" / "session_end.py")],
        stdin=subprocess.PIPE,
        env=_env(tmp_path),
    )
    try:
        assert process.wait(timeout=30) == 0
    finally:
        if process.stdin:
            process.stdin.close()
        if process.poll() is None:
            process.kill()
    assert (tmp_path / "state" / "session-end.jsonl").is_file()


def test_hooks_json_runs_the_hook_from_the_plugin_root() -> None:
    config = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())
    (group,) = config["hooks"]["SessionEnd"]
    (hook,) = group["hooks"]
    assert hook["type"] == "command"
    assert "${CLAUDE_PLUGIN_ROOT}/hooks/session_end.py" in hook["command"]
    assert "~" not in hook["command"] and ".claude/" not in hook["command"]


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("win32", {"LOCALAPPDATA": r"C:\Users\Dev User\AppData\Local"}, "skillopt-sleep"),
        ("darwin", {}, "Library/Application Support/skillopt-sleep"),
        ("linux", {"XDG_STATE_HOME": "/x/state"}, "/x/state/skillopt-sleep"),
    ],
)
def test_plugin_state_dir_matches_the_engine_per_platform(
    platform: str, env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stdlib-only launcher computes the engine's state dir itself, on every OS."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_locate", PLUGIN / "scripts" / "_locate.py")
    assert spec and spec.loader
    locate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(locate)
    monkeypatch.delenv("SKILLOPT_SLEEP_HOME", raising=False)
    for name in ("LOCALAPPDATA", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(locate.sys, "platform", platform)
    found = str(locate.state_dir()).replace("\\", "/")
    assert found.endswith(expected.replace("\\", "/"))
    if platform == "win32":
        assert found.startswith("C:/Users/Dev User/AppData/Local")
    if platform == "linux":
        import platformdirs

        monkeypatch.setenv("XDG_STATE_HOME", "/x/state")
        assert found == str(Path(platformdirs.user_state_dir("skillopt-sleep", appauthor=False)))


@pytest.mark.parametrize("value", ["rel/state", " ", ""])
def test_plugin_ignores_a_relative_or_blank_xdg_state_home_like_the_engine(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative XDG value is not a state dir (the XDG spec; platformdirs ignores it): the hook,
    run from the user's project, must not write ``rel/state/...`` into it."""
    import importlib.util

    import platformdirs

    spec = importlib.util.spec_from_file_location("_locate", PLUGIN / "scripts" / "_locate.py")
    assert spec and spec.loader
    locate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(locate)
    monkeypatch.delenv("SKILLOPT_SLEEP_HOME", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(locate.sys, "platform", "linux")
    engine = Path(platformdirs.user_state_dir("skillopt-sleep", appauthor=False))
    assert locate.state_dir() == engine == tmp_path / "home" / ".local" / "state" / "skillopt-sleep"


@pytest.mark.parametrize("recorded", ["[]", "null", '{"cli": [7]}', "unrunnable"])
def test_launcher_given_a_damaged_or_unrunnable_engine_json_says_so_without_a_traceback(
    tmp_path: Path, recorded: str
) -> None:
    """``engine.json`` that is JSON but not the object install writes, or that names a file
    which cannot run: the launcher (the plugin's MCP server command) ended in an AttributeError
    or PermissionError traceback."""
    pointer = tmp_path / "state" / "install" / "engine.json"
    pointer.parent.mkdir(parents=True)
    if recorded == "unrunnable":
        plain = tmp_path / "not-executable"
        plain.write_text("")
        recorded = json.dumps({"cli": [str(plain)], "mcp": [str(plain)]})
    pointer.write_text(recorded)
    done = _launch_without_engine(tmp_path, "mcp")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "skillopt-sleep" in done.stderr.lower()
