"""`report` without an id shows the latest *proposal*, which need not be tonight's: it says which
proposal it shows and what became of it (the staged report still says "adopt it"), and first
what the latest night did when that night staged nothing (CLI, engine API and MCP alike)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from tests.engine._world import World


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _night(world: World) -> dict[str, Any]:
    homes = [f"--{h}-home={world.home / f'.{h}'}" for h in ("claude", "codex", "copilot")]
    code, out, err = _cli(
        "run", "-p", str(world.webapp), "--backend", "mock", "--embedder", "tfidf", *homes, "--json"
    )
    assert code == 0, err
    night: dict[str, Any] = json.loads(out)
    return night


@pytest.fixture
def adopted_then_quiet(world: World, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict]:
    """Night 1 staged a proposal, the user adopted it, night 2 staged nothing."""
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    first = _night(world)
    assert first["outcome"] == "staged" and first["proposal"]
    code, _, err = _cli("adopt", "-p", str(world.webapp))
    assert code == 0, err
    second = _night(world)
    assert second["outcome"] != "staged" and not second["proposal"]
    return first, second


def test_the_report_of_a_pending_proposal_says_it_is_the_latest_nights(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    first = _night(world)
    code, out, err = _cli("report", "-p", str(world.webapp))
    assert code == 0, err
    head = out.splitlines()[0]
    assert f"the latest proposal, {first['proposal']}" in head and "which is pending" in head
    assert "staged nothing" not in out


def test_after_a_quiet_night_the_cli_says_the_proposal_shown_is_older_and_adopted(
    world: World, adopted_then_quiet: tuple[dict, dict]
) -> None:
    first, second = adopted_then_quiet
    code, out, err = _cli("report", "-p", str(world.webapp))
    assert code == 0, err
    head = out.splitlines()[0]
    assert head.startswith(f"The latest night ({second['night_id']}, ")
    assert "staged nothing: " in head and second["message"].split(" (")[0] in head
    assert f"Showing the latest proposal, {first['proposal']}" in head and "adopted" in head
    assert f"# SkillOpt-Sleep night {first['night_id']}" in out  # the staged report follows

    code, out, _ = _cli("report", "-p", str(world.webapp), "--format", "json")
    shown = json.loads(out)  # still one JSON document
    assert code == 0 and shown["night_id"] == first["night_id"]
    assert shown["proposal_state"] == "adopted" and "staged nothing" in shown["note"]
    assert shown["latest_night"]["night_id"] == second["night_id"]

    code, out, _ = _cli("report", "-p", str(world.webapp), "--format", "html")
    assert code == 0 and out.lstrip().lower().startswith("<!doctype html")
    assert "staged nothing" in out and "which is adopted" in out

    code, out, _ = _cli("report", "-p", str(world.webapp), "--path")
    assert code == 0 and out.strip().endswith("report.md") and len(out.splitlines()) == 1

    code, out, _ = _cli("report", first["proposal"], "-p", str(world.webapp))
    head = out.splitlines()[0]
    assert code == 0 and f"proposal {first['proposal']}" in head and "adopted" in head
    assert "latest night" not in head  # asked for by id: no claim about the latest night


def test_the_engine_api_gives_the_state_and_the_latest_night(
    world: World, adopted_then_quiet: tuple[dict, dict]
) -> None:
    from skillopt_sleep.engine import read_report

    first, second = adopted_then_quiet
    shown = read_report(world.webapp)
    assert shown.proposal == first["proposal"] and shown.state == "adopted"
    assert shown.latest_night is not None and shown.latest_night.night_id == second["night_id"]
    assert shown.text.startswith(shown.note) and "staged nothing" in shown.note
    named = read_report(world.webapp, first["proposal"], "json")
    assert named.latest_night is None and json.loads(named.text)["proposal_state"] == "adopted"


def test_the_mcp_report_tool_says_the_state_too(
    world: World, adopted_then_quiet: tuple[dict, dict]
) -> None:
    from skillopt_sleep.mcp import build_server

    first, second = adopted_then_quiet

    async def go() -> list[Any]:
        async with Client(build_server()) as client:
            return [
                await client.call_tool("report", {"project": str(world.webapp), "format": kind})
                for kind in ("md", "json")
            ]

    md, as_json = anyio.run(go)
    assert not md.is_error, md.content
    view = md.structured_content
    assert view["proposal"] == first["proposal"] and view["state"] == "adopted"
    assert view["note"].startswith(f"The latest night ({second['night_id']}, ")
    assert view["text"].startswith(view["note"])  # what the CLI prints, note first
    assert f"# SkillOpt-Sleep night {first['night_id']}" in view["text"]
    assert as_json.structured_content["state"] == "adopted"
    assert json.loads(as_json.structured_content["text"])["night_id"] == first["night_id"]
