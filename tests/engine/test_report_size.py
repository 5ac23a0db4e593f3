"""A staged night over 500 families, read back as a user and an agent read it: the CLI's
``report``, the engine's ``read_report``, the MCP ``report`` tool and the report resource all
give the same bounded Markdown, decision first; ``families.md`` beside it has every family.
And a real night (mock backend) stages ``families.md`` and opens its report with the decision.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
from mcp import Client
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, load_config, read_report, run_night
from skillopt_sleep.engine.night import TargetRun
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.reporting import stage_report
from skillopt_sleep.mcp import build_server
from tests.engine._world import World
from tests.stage.reports import many_families

MAX_MARKDOWN = 16 * 1024  # bytes, the note line included: what the MCP tool hands an agent


def _stage(project: Path, report: NightReport) -> NightReport:
    """Stage ``report`` as a night would, each changed file with an accepted edit per line."""
    runs = []
    for change in report.changes:
        accepted = tuple(e for e in report.accepted if e.skill == change.path)
        proposed = "".join(f"{e.content}\n" for e in accepted)
        result: Any = SimpleNamespace(proposed_text=proposed, accepted=accepted)
        live = None if change.created else b"# old\n"
        runs.append(TargetRun(Path(change.path), change.kind, live, result))
    return stage_report(ProjectState(project), report, runs)


def _mcp(project: Path) -> tuple[str, str]:
    async def go() -> tuple[str, str]:
        async with Client(build_server(default_project=project)) as client:
            shown = await client.call_tool("report", {"project": str(project)})
            assert not shown.is_error, shown.content
            resource = await client.read_resource("skillopt-sleep://report/latest")
            return str(shown.structured_content["text"]), str(resource.contents[0].text)

    return anyio.run(go)


def test_every_front_end_gives_the_same_bounded_report_of_500_families(tmp_path: Path) -> None:
    project = tmp_path / "webapp"
    project.mkdir()
    staged = _stage(project, many_families(500))
    directory = Path(staged.proposal_dir)

    shown = read_report(project).text
    assert len(shown.encode("utf-8")) < MAX_MARKDOWN
    families = shown.index("## Families tonight (500)")
    assert shown.index("Verdict: better") < shown.index("## Accepted edits (3)") < families
    for edit in staged.accepted:
        assert shown.index(edit.content) < families
    assert shown.index("## Diff") < shown.index("## Rejected edits (2)") < families
    assert f"is in `{directory / 'families.md'}`." in shown

    full = (directory / "families.md").read_text(encoding="utf-8")
    assert len(re.findall(r"^### ", full, re.M)) == 500
    assert len(full.encode("utf-8")) > 10 * MAX_MARKDOWN  # what the report no longer carries

    tool, resource = _mcp(project)
    assert tool == resource == shown
    result = CliRunner().invoke(app, ["report", "-p", str(project)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{shown}\n"


def test_a_real_night_stages_families_md_and_opens_with_the_decision(world: World) -> None:
    config = load_config(world.webapp, world.overrides())
    report = run_night(world.webapp, config, home=world.home)
    assert report.outcome == "staged" and report.families
    directory = Path(report.proposal_dir)
    text = (directory / "report.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[:5] == [
        "## What to decide",
        "## Held-out tasks",
        "## Validation (the gate)",
        f"## Accepted edits ({len(report.accepted)})",
        "## Diff",
    ]
    assert headings.index(f"## Families tonight ({len(report.families)})") > headings.index(
        f"## Rejected edits ({len(report.rejected)})"
    )
    full = (directory / "families.md").read_text(encoding="utf-8")
    assert len(re.findall(r"^### ", full, re.M)) == len(report.families)
    assert f"`{directory / 'families.md'}`" in text
