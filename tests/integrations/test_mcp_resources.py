"""The skill resource of a skill file that is not valid UTF-8 (saved in another encoding): its
text, a stray byte shown as U+FFFD (the read failed with a bare "Error creating resource from
template" and a traceback on the server's stderr)."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client

from skillopt_sleep.mcp import build_server


def test_a_skill_in_another_encoding_is_read_with_its_stray_bytes_replaced(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    skill = project / ".claude" / "skills" / "latin" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(b"---\nname: latin\ndescription: d\n---\n\ncaf\xe9 au lait\n")

    async def go() -> str:
        async with Client(build_server(default_project=project)) as client:
            read = await client.read_resource("skillopt-sleep://skill/latin")
            return str(getattr(read.contents[0], "text", ""))

    assert "caf\ufffd au lait" in anyio.run(go)
