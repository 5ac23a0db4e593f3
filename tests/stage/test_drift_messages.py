"""``adopt`` refusing a drifted file says how it changed and names the proposal in its way out.

A user whose editor only rewrote the line endings, or whose ``git checkout`` removed the file,
read "changed" without knowing why; the hint's ``skillopt-sleep adopt --force`` adopts the
latest pending proposal, not necessarily the one named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_DRIFT, DriftError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, three_way_diff
from skillopt_sleep.stage.proposal import FileChange, stage

NIGHT = "20260101-010000"


@pytest.fixture
def skill(skill: Path, old: bytes) -> Path:
    """The user's skill, with proposal NIGHT staged over it."""
    change = FileChange(skill, "skill", old, f"{old.decode()}advice\n", 1)
    stage(ProjectState(skill.parents[3]), NIGHT, [change], {})
    return skill


def _crlf(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


def _bom(path: Path) -> None:
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())


def _edit(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"mine\n")


@pytest.mark.parametrize(
    ("change", "how"),
    [
        (Path.unlink, "deleted"),
        (_crlf, "only its line endings changed"),
        (_bom, "only its byte order mark changed"),
        (_edit, "edited"),
    ],
)
def test_the_refusal_says_how_the_file_changed(
    skill: Path, change: Callable[[Path], None], how: str
) -> None:
    change(skill)
    with pytest.raises(DriftError) as refused:
        adopt(skill.parents[3], NIGHT)
    assert f"{skill} ({how})" in str(refused.value)
    assert f"skillopt-sleep adopt {NIGHT} --force" in refused.value.hint
    assert ("put a deleted file back" in refused.value.hint) == (how == "deleted")
    assert [p.state for p in list_proposals(skill.parents[3])] == ["pending"]


def test_the_cli_prints_it_with_exit_6(skill: Path, old: bytes) -> None:
    _crlf(skill)
    result = CliRunner().invoke(app, ["adopt", NIGHT, "-p", str(skill.parents[3])])
    assert result.exit_code == EXIT_DRIFT
    assert "(only its line endings changed)" in result.stderr
    assert f"adopt {NIGHT} --force" in result.stderr
    assert skill.read_bytes() == old.replace(b"\n", b"\r\n")


def test_a_folder_in_the_way_of_a_rollback_is_not_told_to_adopt_again(skill: Path) -> None:
    adopt(skill.parents[3], NIGHT)
    skill.unlink()
    skill.mkdir()
    result = CliRunner().invoke(app, ["rollback", "-p", str(skill.parents[3])])
    assert result.exit_code == EXIT_DRIFT and "is not a regular file" in result.stderr
    assert "adopt again" not in result.stderr and "run the same command again" in result.stderr


def test_a_link_whose_file_moved_away_is_named_as_such(skill: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "SKILL.md"
    dotfiles.parent.mkdir()
    skill.rename(dotfiles)
    skill.symlink_to(dotfiles)
    dotfiles.parent.rename(tmp_path / "dotfiles-moved")
    with pytest.raises(DriftError) as refused:
        adopt(skill.parents[3], NIGHT)
    assert f"(deleted: a link to {dotfiles}, which is missing)" in str(refused.value)
    assert "put a deleted file back" in refused.value.hint


def test_the_three_way_diff_of_a_crlf_file_shows_only_what_changed(
    tmp_path: Path, old: bytes
) -> None:
    """It read the staged-from text with newline translation: every line of a CRLF file showed
    as changed live, so ``adopt --force`` hid the one line the user had added."""
    crlf = old.replace(b"\n", b"\r\n")
    path = tmp_path / "proj" / ".claude" / "skills" / "s" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(crlf)
    change = FileChange(path, "skill", crlf, f"{crlf.decode()}advice\r\n", 1)
    stage(ProjectState(path.parents[3]), NIGHT, [change], {})
    path.write_bytes(crlf + b"mine\r\n")

    diff = three_way_diff(path.parents[3], NIGHT)

    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in "+++---"]
    assert changed == ["+mine", "+advice"]


def test_a_file_created_since_a_proposal_that_creates_it_is_named_so(tmp_path: Path) -> None:
    path = tmp_path / "proj" / "AGENTS.md"
    path.parent.mkdir(parents=True)
    stage(ProjectState(path.parent), NIGHT, [FileChange(path, "memory", None, "# notes\n")], {})
    path.write_text("# my own notes\n")
    with pytest.raises(DriftError, match=r"AGENTS\.md \(created\)"):
        adopt(path.parent, NIGHT)
    assert path.read_text() == "# my own notes\n"
