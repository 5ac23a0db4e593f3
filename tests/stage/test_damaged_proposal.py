"""One damaged proposal manifest stops only what names it.

Found by an MCP probe: ``echo '{' > staging/<id>/manifest.json`` made ``status``, ``proposals``,
``adopt`` and ``reject`` (no id) and ``rollback`` fail for every proposal, and a night whose
killed predecessor left such a proposal failed before any work, night after night. A second
probe found JSON of another shape (``"files": [1]``) still crashed them with a TypeError.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import StorageError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, reject, rollback, status
from skillopt_sleep.stage.proposal import FileChange, stage
from tests._guard import StandIns


def _skill(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "proj" / ".claude" / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(f"---\nname: {name}\ndescription: {name} things\n---\nold\n".encode())
    return path


def _stage(night: int, skill: Path) -> str:
    night_id = f"202601{night:02d}-030000"
    change = FileChange(skill, "skill", skill.read_bytes(), f"{skill.read_text()}tip {night}\n", 1)
    stage(ProjectState(skill.parents[3]), night_id, [change], {})
    return night_id


DAMAGED = [
    "{",
    '{"night_id": "x", "files": [1]}',
    '{"night_id": "x", "files": 7}',
    '{"files": [{"staged": "00.md"}]}',
    '{"files": [{"live_path": "/x", "staged": 0}]}',
    '{"files": [{"live_path": 3, "staged": "00.md"}]}',
    '{"files": [{"live_path": "/x", "staged": "00.md", "accepted_edits": "2"}]}',
    '{"files": [], "state": ["pending"]}',
]


@pytest.mark.parametrize("content", DAMAGED)
@pytest.mark.parametrize("damaged", ["older", "newer"])
def test_a_damaged_manifest_is_reported_and_the_other_proposals_still_work(
    tmp_path: Path, damaged: str, content: str, fake_scheduler: StandIns
) -> None:
    a, b = _skill(tmp_path, "a"), _skill(tmp_path, "b")
    project = a.parents[3]
    first, second = _stage(1, a), _stage(2, b)
    broken, good = (first, second) if damaged == "older" else (second, first)
    manifest = ProjectState(project).proposal_dir(broken) / "manifest.json"
    manifest.write_text(content)

    shown = status(project)
    assert [p.id for p in shown.pending] == [good]
    (warning,) = shown.warnings
    assert broken in warning and "damaged" in warning and f"move {manifest.parent}" in warning
    assert {p.id: p.state for p in list_proposals(project)} == {broken: "damaged", good: "pending"}
    text = CliRunner().invoke(app, ["status", "-p", str(project)], env={"COLUMNS": "200"})
    assert text.exit_code == 0 and "damaged" in text.output

    adopt(project)  # the pending one, whichever is newer
    rollback(project)
    third = _stage(3, a)
    reject(project)
    assert {p.id: p.state for p in list_proposals(project)} == {
        broken: "damaged",
        good: "rolled back",
        third: "rejected",
    }
    with pytest.raises(StorageError, match=r"manifest\.json is damaged"):
        adopt(project, broken)  # naming it still says what is wrong
    assert manifest.read_text() == content  # and nothing removed it


def test_a_file_entry_without_its_staged_name_stops_the_adopt_with_the_way_out(
    tmp_path: Path, fake_scheduler: StandIns
) -> None:
    skill = _skill(tmp_path, "a")
    project = skill.parents[3]
    night = _stage(1, skill)
    manifest = ProjectState(project).proposal_dir(night) / "manifest.json"
    shape = json.loads(manifest.read_text())
    del shape["files"][0]["staged"]
    manifest.write_text(json.dumps(shape))
    before = skill.read_bytes()
    with pytest.raises(StorageError, match="is damaged") as caught:
        adopt(project, night)
    assert f"skillopt-sleep reject {night}" in (caught.value.hint or "")
    assert skill.read_bytes() == before
