"""`skillopt-sleep harvest` skips typer's parser for plain command lines (start-up time); the
result must be exactly what typer's path gives: same stdout, same exit code, same files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harvest._fixtures import FIXTURES, WEBAPP

FAST = "import sys; from skillopt_sleep.cli import main; sys.argv[0] = 'skillopt-sleep'; main()"
TYPER = "import sys; from skillopt_sleep.cli import app; app(prog_name='skillopt-sleep')"


def _run(code: str, args: list[str], env: dict[str, str]) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120
    )
    return done.returncode, done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--json"],
        [],
        ["--source", "claude", "--json"],
        ["--since", "3650d", "--source", "codex"],
        ["--since", "nonsense"],
        ["--bogus-flag"],
    ],
)
def test_fast_path_matches_typer(args: list[str], tmp_path: Path) -> None:
    homes = [
        "--claude-home",
        str(FIXTURES / ".claude"),
        "--codex-home",
        str(FIXTURES / ".codex"),
        "--copilot-home",
        str(FIXTURES / ".copilot"),
    ]
    env = {**os.environ, "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"), "COLUMNS": "100"}
    argv = ["harvest", "--project", WEBAPP, *homes, *args]
    assert _run(FAST, argv, env) == _run(TYPER, argv, env)


def test_harvest_starts_without_the_engine_or_pydantic(tmp_path: Path) -> None:
    """Start-up is part of every harvest's time: the command needs neither the night's engine
    nor pydantic (its config schema), which cost about 80 ms to import."""
    code = (
        "import sys\nfrom skillopt_sleep.cli import main\nsys.argv[0] = 'skillopt-sleep'\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(m for m in sys.modules if m == 'pydantic' or m.startswith('skillopt_sleep.engine'))\n"
        "print('HEAVY', heavy, file=sys.stderr)"
    )
    home = tmp_path / ".claude"
    (home / "projects").mkdir(parents=True)
    args = ["harvest", "-p", WEBAPP, "--claude-home", str(home), "-s", "claude",
            "--state-dir", str(tmp_path / "state")]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLOPT_SLEEP_")}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))  # no config to read
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=120)  # fmt: skip
    assert "HEAVY []" in done.stderr, done.stderr


def test_harvest_reads_the_homes_a_night_reads(tmp_path: Path) -> None:
    """``[homes]`` in the config (the config form of ``--claude-home``) was read by nights and
    ``mine`` but not by ``harvest``, which then advanced the night's index over other folders."""
    import json as jsonlib
    import shutil

    from typer.testing import CliRunner

    from skillopt_sleep.cli import app

    home = tmp_path / "elsewhere" / ".claude"
    shutil.copytree(FIXTURES / ".claude", home)
    config = tmp_path / "config.toml"
    config.write_text(f"[homes]\nclaude = {jsonlib.dumps(str(home))}\n")
    result = CliRunner().invoke(
        app,
        ["harvest", "-p", WEBAPP, "-s", "claude", "--since", "3650d", "--json",
         "--state-dir", str(tmp_path / "state")],
        env={"SKILLOPT_SLEEP_CONFIG": str(config)},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert jsonlib.loads(result.stdout), "no session read from the configured home"
