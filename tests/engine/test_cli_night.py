"""The `skillopt-sleep` night commands: thin over the engine, one exit-code mapping, --json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from skillopt_core.errors import EXIT_BUSY, EXIT_DRIFT, EXIT_USAGE
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState
from skillopt_sleep.paths import state_dir
from tests.engine._world import World


def _homes(world: World) -> list[str]:
    return [
        "--claude-home",
        str(world.home / ".claude"),
        "--codex-home",
        str(world.home / ".codex"),
        "--copilot-home",
        str(world.home / ".copilot"),
        "--embedder",
        "tfidf",
    ]


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _first_night(world: World, monkeypatch) -> dict:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    code, out, err = _invoke("run", "-p", str(world.webapp), *_homes(world), "--json")
    assert code == 0, err
    return json.loads(out)


def test_run_status_report_adopt_rollback(world: World, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    night = _first_night(world, monkeypatch)
    assert night["outcome"] == "staged" and night["proposal"]
    code, out, _ = _invoke("status", "-p", str(world.webapp), "--json")
    status = json.loads(out)
    assert code == 0 and [p["id"] for p in status["pending"]] == [night["proposal"]]
    code, out, _ = _invoke("report", "-p", str(world.webapp))
    assert code == 0 and "session cookie" in out
    code, out, _ = _invoke("adopt", "-p", str(world.webapp), "--json")
    assert code == 0 and json.loads(out)["action"] == "adopted"
    code, out, _ = _invoke("rollback", "-p", str(world.webapp), "--json")
    assert code == 0 and json.loads(out)["action"] == "rolled back"
    code, _, err = _invoke("rollback", "-p", str(world.webapp))
    assert code == EXIT_USAGE and "no adopted proposal" in err
    assert f"the latest, {night['proposal']}, is rolled back" in err  # not "run a night first"
    assert "run a night first" not in err and "skillopt-sleep proposals" in err


def test_drift_and_busy_have_their_exit_codes(world: World, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    skill = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: login-tests\ndescription: fix failing login tests\n---\nmine\n")
    _first_night(world, monkeypatch)
    skill.write_text(skill.read_text() + "hand edit\n")
    code, _, err = _invoke("adopt", "-p", str(world.webapp))
    assert code == EXIT_DRIFT and "changed since" in err
    declined = CliRunner().invoke(app, ["adopt", "-p", str(world.webapp), "--force"], input="n\n")
    assert declined.exit_code == 1 and "not adopted" in declined.stderr  # it said nothing
    assert skill.read_text().endswith("hand edit\n")
    with ProjectState(world.webapp).night_lock():
        code, _, err = _invoke("run", "-p", str(world.webapp), *_homes(world))
    assert code == EXIT_BUSY and "pid" in err


def test_config_show_names_every_source(world: World, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SKILLOPT_SLEEP_BACKENDS_TARGET", "claude-cli")
    code, out, _ = _invoke("config", "show", "-p", str(world.webapp), "--json")
    settings = json.loads(out)["settings"]
    assert code == 0
    assert settings["backends.target"] == {
        "value": "claude-cli",
        "source": "env SKILLOPT_SLEEP_BACKENDS_TARGET",
    }
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SAMPELS", "3")
    code, _, err = _invoke("status", "-p", str(world.webapp))
    assert code == EXIT_USAGE and "did you mean 'samples'" in err


def test_every_command_reports_a_night_value_the_run_could_not_use(world: World) -> None:
    config = world.webapp / ".skillopt-sleep" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[night]\nsince = "forever"\n')
    for command in (["config", "show"], ["status"], ["run", *_homes(world)]):
        code, _, err = _invoke(*command, "-p", str(world.webapp))
        assert code == EXIT_USAGE and "night.since" in err and "not a duration" in err, command
    config.write_text('[night]\nsources = ["claude", "cursor"]\n')
    for command in (["config", "show"], ["status"]):
        code, _, err = _invoke(*command, "-p", str(world.webapp))
        assert code == EXIT_USAGE and "unknown source 'cursor'" in err, command


def test_a_misspelt_section_in_an_env_var_is_reported(world: World, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGTH_SAMPLES", "2")
    code, _, err = _invoke("config", "show", "-p", str(world.webapp))
    assert code == EXIT_USAGE and "SKILLOPT_SLEEP_NIGHT_SAMPLES" in err


def test_status_is_light(tmp_path: Path) -> None:
    """`status` must not import torch, sklearn or the harvest/mine machinery."""
    probe = (
        "import sys; from typer.testing import CliRunner; from skillopt_sleep.cli import app; "
        f"r = CliRunner().invoke(app, ['status', '-p', {str(tmp_path)!r}, '--json']); "
        "assert r.exit_code == 0, r.output; "
        "heavy = [m for m in ('torch', 'sklearn', 'sentence_transformers', 'numpy') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"SKILLOPT_SLEEP_HOME": str(tmp_path / "s"), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == ""


def test_status_can_check_backend_health(world: World, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SKILLOPT_SLEEP_BACKENDS_TARGET", "openai:m")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("SKILLOPT_SLEEP_BACKENDS_OPTIONS", "{max_retries = 0, timeout = 5}")
    code, out, _ = _invoke("status", "-p", str(world.webapp), "--check-backends", "--json")
    health = json.loads(out)["health"]
    assert code == 0 and health["optimizer"] == "ok"
    assert "connection failed" in health["target"] and "fix:" in health["target"]


def test_status_counts_sessions_the_hook_recorded(world: World, tmp_path: Path) -> None:
    import os

    from skillopt_sleep.engine import status

    log = Path(os.environ["SKILLOPT_SLEEP_HOME"]) / "session-end.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {"session_id": "a", "cwd": str(world.webapp), "at": "2026-11-23T10:00:00+00:00"},
        {"session_id": "b", "cwd": str(world.webapp / "src"), "at": "2026-11-23T11:00:00+00:00"},
        {"session_id": "c", "cwd": str(world.reading), "at": "2026-11-23T11:00:00+00:00"},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in lines) + '{"torn')
    assert status(world.webapp).ended_since_last_night == 2
    # a killed hook's torn line, then the next hooks' records: the glued line is skipped (not
    # "damaged"), and the records after it count
    with log.open("a") as more:
        for sid in ("d", "e"):
            more.write(json.dumps({**lines[0], "session_id": sid}) + "\n")
    assert status(world.webapp).ended_since_last_night == 3


def test_a_proposal_id_cannot_name_a_path(world: World) -> None:
    code, _, err = _invoke("report", "../../etc", "-p", str(world.webapp))
    assert code == EXIT_USAGE and "not a proposal id" in err


def test_a_night_and_its_report_survive_an_ascii_locale(world: World, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The night's summary and report hold dashes and bullets; under ``LC_ALL=C`` (no UTF-8
    mode) they print as escapes instead of dying with UnicodeEncodeError after the night ran."""
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    ascii_locale = {"PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "LC_ALL": "C", "LANG": "C"}

    def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
        argv = [sys.executable, "-m", "skillopt_sleep", *args]
        return subprocess.run(argv, capture_output=True, env={**os.environ, **ascii_locale},
                              timeout=300, check=False)  # fmt: skip

    night = cli("run", "-p", str(world.webapp), *_homes(world))
    assert night.returncode == 0, night.stderr.decode("ascii", "replace")
    assert b"night " in night.stdout and b"Traceback" not in night.stderr
    report = cli("report", "-p", str(world.webapp))
    assert report.returncode == 0, report.stderr.decode("ascii", "replace")
    assert b"session cookie" in report.stdout
    status = cli("status", "-p", str(world.webapp))
    assert status.returncode == 0, status.stderr.decode("ascii", "replace")


def test_a_misspelt_project_is_a_usage_error_not_a_quiet_night(tmp_path: Path) -> None:
    """A scheduled `run -p /typo` would otherwise say "nothing new" every night, forever."""
    missing = tmp_path / "no-such-project"
    for command in ("run", "status", "proposals", "adopt", "rollback"):
        code, _, err = _invoke(command, "-p", str(missing))
        assert code == EXIT_USAGE, (command, err)
        assert "is not a directory" in err
    code, _, err = _invoke("report", "-p", str(tmp_path), "--format", "pdf")
    assert code == EXIT_USAGE and "not a report format" in err
    assert not list(state_dir().glob("projects/no-such-project*")), "no state was made for it"


def test_status_names_a_damaged_archive(world: World) -> None:
    """It dropped the archive line in silence and exited 0, as if nothing had been mined."""
    archive = ProjectState(world.webapp).ensure().archive_path
    archive.write_bytes(b"this is not a database, it was cut short by a full disk" * 40)
    code, out, err = _invoke("status", "-p", str(world.webapp), "--json")
    assert code == 0, err
    assert "warning: the mining archive" in err and "is damaged" in err and "move it aside" in err
    assert json.loads(out)["warnings"] and json.loads(out)["archive"] == {}
