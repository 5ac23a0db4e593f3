"""`skillopt-sleep doctor`: engine, pointer, harnesses, project, and installed shims (ok, edited,
gone, stale), read-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes, install
from skillopt_sleep.install.doctor import diagnose
from skillopt_sleep.install.engine_command import pointer_path


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Homes:
    home = tmp_path / "home"
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return Homes.from_env({}, home)


def _levels(checks: list) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for check in checks:
        out.setdefault(check.level, []).append(f"{check.name}: {check.detail}")
    return out


def test_nothing_installed_is_information_not_failure(homes: Homes, tmp_path: Path) -> None:
    checks = diagnose(tmp_path, homes)
    assert not any(c.level == "fail" for c in checks), _levels(checks)
    assert any(c.name == "shims" and "none installed" in c.detail for c in checks)


def test_installed_shims_are_checked_for_edits_and_a_moved_engine(
    homes: Homes, tmp_path: Path
) -> None:
    install(["codex", "copilot"], homes=homes)
    checks = diagnose(tmp_path, homes)
    assert [c for c in checks if c.name.endswith("shim")] and all(
        c.level == "ok" for c in checks if c.name.endswith("shim")
    ), _levels(checks)
    skill = homes.agents_skills / "skillopt-sleep" / "SKILL.md"
    skill.write_text("mine now\n")
    data = json.loads(pointer_path().read_text())
    data["mcp"] = ["/nowhere/python", "-m", "skillopt_sleep.mcp"]
    pointer_path().write_text(json.dumps(data))
    levels = _levels(diagnose(tmp_path, homes))
    assert any("edited since install" in line for line in levels["warn"]), levels
    assert any("engine pointer (mcp)" in line for line in levels["fail"]), levels


def test_cli_doctor_prints_every_check_as_json(homes: Homes, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["doctor", "--json", "-p", str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = {c["name"] for c in json.loads(result.stdout)}
    assert {"engine", "claude-code", "codex", "copilot", "project"} <= names


def test_a_dead_backend_is_a_failure_with_its_fix(
    homes: Homes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_BACKENDS_TARGET", "openai:m")
    monkeypatch.setenv("SKILLOPT_SLEEP_BACKENDS_OPTIONS", "{max_retries = 0, timeout = 5}")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    checks = {c.name: c for c in diagnose(tmp_path, homes)}
    assert checks["backend optimizer"].level == "ok"
    target = checks["backend target"]
    assert target.level == "fail" and "connection failed" in target.detail
