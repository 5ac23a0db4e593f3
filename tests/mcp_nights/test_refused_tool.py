"""The MCP `refused` tool: the edits no night may propose again, read only, the newest few with
the count of all; forgetting one stays the user's, in a terminal (no tool does it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from skillopt_sleep.engine import ProjectState, reject
from skillopt_sleep.engine.api import refused
from skillopt_sleep.mcp import build_server
from skillopt_sleep.stage.proposal import FileChange, stage


def _rejected(project: Path, lines: list[str]) -> None:
    skill = project / ".claude" / "skills" / "s" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: s\ndescription: s things\n---\nold\n")
    edits = [{"skill": str(skill), "op": "add", "anchor": "", "content": line, "accepted": True}
             for line in lines]  # fmt: skip
    text = skill.read_text() + "".join(f"{line}\n" for line in lines)
    change = FileChange(skill, "skill", skill.read_bytes(), text, len(lines))
    stage(
        ProjectState(project),
        "20260105-031700",
        [change],
        {"report.json": json.dumps({"edits": edits})},
    )
    reject(project, "20260105-031700")


def test_refused_lists_the_newest_and_counts_them_all(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    lines = [f"- rule {n}" for n in range(30)] + ["- odd \x1b]0;title\x07 text"]
    _rejected(project, lines)

    async def go() -> tuple[Any, Any, Any]:
        async with Client(build_server()) as client:
            where = {"project": str(project)}
            tools = {t.name: t for t in (await client.list_tools()).tools}
            few = await client.call_tool("refused", {**where, "limit": 2})
            gate = await client.call_tool("refused", {**where, "by": "gate"})
            return tools, few, gate

    tools, few, gate = anyio.run(go)
    assert tools["refused"].annotations.read_only_hint is True
    assert not any("forget" in name for name in tools)  # the user's call, in a terminal
    assert not few.is_error, few.content
    shown = few.structured_content
    assert shown["total"] == 31 and shown["project"] == str(project.resolve())
    assert [e["content"] for e in shown["edits"]] == ["- rule 29", "- odd \\x1b]0;title\\x07 text"]
    assert [e["id"] for e in shown["edits"]] == [e.id for e in refused(project)[-2:]]
    assert shown["edits"][0]["by"] == "you: rejected" and "refused forget" in shown["note"]
    assert gate.structured_content["total"] == 0


def test_refused_stays_small_however_long_and_many_the_edits(tmp_path: Path) -> None:
    """300 refused edits of 900 characters: the newest 50 were 1.2 MB, far over the 16 KB a
    harness passes on (tests/mcp_nights/test_bounded_outputs.py)."""
    project = tmp_path / "proj"
    _rejected(project, [f"- rule {n} " + "long words " * 80 for n in range(300)])

    async def go() -> Any:
        async with Client(build_server()) as client:
            return await client.call_tool("refused", {"project": str(project), "limit": 50})

    result = anyio.run(go)
    assert not result.is_error, result.content
    text = sum(len(c.text.encode("utf-8")) for c in result.content)
    assert text + len(json.dumps(result.structured_content).encode("utf-8")) < 16 * 1024
    shown = result.structured_content
    assert shown["total"] == 300 and 1 <= len(shown["edits"]) < 50
    assert shown["edits"][-1]["content"].startswith("- rule 299 ")  # the newest kept
    assert all(len(e["content"]) <= 160 and e["content"].endswith("…") for e in shown["edits"])
    assert "--json" in shown["note"]


def test_refused_keeps_the_users_refusals_and_each_files_newest(tmp_path: Path) -> None:
    """Listed by skill file, a plain "last `limit`" showed only the last file's gate refusals
    and dropped the user's own from the first."""
    from skillopt_sleep.mcp.views import RefusedView
    from skillopt_sleep.stage.refused import RefusedEdit

    def edit(skill: str, n: int, by: str) -> RefusedEdit:
        return RefusedEdit(f"{skill}{n}", skill, by, "add", "", f"- {skill} {n}", "", True)

    edits = [edit("A", n, "the gate") for n in range(3)] + [edit("A", 3, "you: rejected")]
    edits += [edit("B", n, "the gate") for n in range(30)]
    shown = RefusedView.of("/p", edits, 5).edits
    assert [e.id for e in shown] == ["A1", "A2", "A3", "B28", "B29"]
