"""adopt / rollback / recover when the live files or the journal are not what they should be.

A proposal is staged directly (no night) over ``N`` user skills; an interrupted adopt is
simulated by a write that raises after some files, as a SIGKILL would leave them (the journal's
"begin" without "done", the live files part old, part new, a temp file beside one of them).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core import rundir
from skillopt_core.errors import EXIT_DRIFT, EXIT_ERROR
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, rollback
from skillopt_sleep.engine.state import read_lines
from skillopt_sleep.stage import _live_writes, transaction
from skillopt_sleep.stage.proposal import FileChange, stage

PROPOSAL = "20260101-000000"
SKILLS = 5


def _old(index: int) -> bytes:
    return f"---\nname: s{index}\ndescription: skill {index}\n---\nold\n".encode()


def _new(index: int) -> str:
    return f"---\nname: s{index}\ndescription: skill {index}\n---\nold\nnew advice\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with SKILLS user skills and a pending proposal that changes all of them."""
    root = tmp_path / "proj"
    changes = []
    for index in range(SKILLS):
        skill = root / ".claude" / "skills" / f"s{index}" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_bytes(_old(index))
        changes.append(FileChange(skill, "skill", _old(index), _new(index), 1))
    stage(ProjectState(root), PROPOSAL, changes, {})
    return root


def _skill(project: Path, index: int) -> Path:
    return project / ".claude" / "skills" / f"s{index}" / "SKILL.md"


def _invoke(*args: str) -> tuple[int, str, str, BaseException | None]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr, result.exception


def _journal(project: Path) -> list[dict]:
    return read_lines(ProjectState(project).journal_path)


class _Killed(BaseException):
    """What a SIGKILL looks like to the code after it: nothing else runs."""


def _kill_adopt_after(project: Path, files: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Adopt, killed after ``files`` live files were replaced; leaves a temp file as well."""
    written: list[Path] = []
    real = _live_writes.atomic_write_bytes

    def write(path: Path, data: bytes, mode: int | None = None, **kw: object) -> None:
        if len(written) == files:
            (path.parent / f".{path.name}.xy6z39q3").write_bytes(data[:5])
            raise _Killed
        real(path, data, mode=mode)
        written.append(path)

    monkeypatch.setattr(_live_writes, "atomic_write_bytes", write)
    with pytest.raises(_Killed):
        adopt(project, PROPOSAL)
    monkeypatch.setattr(_live_writes, "atomic_write_bytes", real)


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("in_the_way", ["skill dir is a file", "SKILL.md is a dir"])
def test_something_in_the_way_of_a_live_file_is_a_clear_error(
    project: Path, in_the_way: str, force: bool
) -> None:
    skill = _skill(project, 2)
    if in_the_way == "skill dir is a file":
        shutil.rmtree(skill.parent)
        skill.parent.write_text("not a folder\n")
    else:
        skill.unlink()
        skill.mkdir()
    code, _, err, exc = _invoke("adopt", "-p", str(project), *(["--force", "-y"] * force))
    assert code == EXIT_DRIFT and isinstance(exc, SystemExit), exc
    assert "is not a regular file" in err and "fix:" in err
    assert [_skill(project, i).read_bytes() for i in (0, 1, 3, 4)] == [
        _old(i) for i in (0, 1, 3, 4)
    ]
    assert _journal(project) == []


def test_rollback_removes_a_file_the_adopt_created(project: Path) -> None:
    _skill(project, 1).unlink()
    code, _, err, _ = _invoke("adopt", "-p", str(project), "--force", "-y")
    assert code == 0, err
    assert _skill(project, 1).read_text() == _new(1)
    code, _, err, _ = _invoke("rollback", "-p", str(project))
    assert code == 0, err
    assert not _skill(project, 1).exists()
    assert _skill(project, 0).read_bytes() == _old(0)


def test_a_read_only_skill_folder_gives_one_message_and_one_fix(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = rundir._atomic_write

    def read_only(path: Path, data: bytes, mode: int | None) -> None:
        if project in path.parents:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        real(path, data, mode)

    monkeypatch.setattr(rundir, "_atomic_write", read_only)
    code, _, err, _ = _invoke("adopt", "-p", str(project))
    assert code == EXIT_ERROR
    assert err.count("cannot write") == 1 and err.count("fix:") == 1, err
    assert "Read-only file system" in err and "--out-root" not in err
    assert [_skill(project, i).read_bytes() for i in range(SKILLS)] == [
        _old(i) for i in range(SKILLS)
    ]
    assert [p.state for p in list_proposals(project)] == ["pending"]


def test_a_write_failing_mid_adopt_puts_back_the_files_already_replaced(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = rundir._atomic_write
    calls: list[Path] = []

    def full_disk(path: Path, data: bytes, mode: int | None) -> None:
        calls.extend([path] if project in path.parents else [])
        if len(calls) == 3 and project in path.parents:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data, mode)

    monkeypatch.setattr(rundir, "_atomic_write", full_disk)
    code, _, err, _ = _invoke("adopt", "-p", str(project))
    assert code == EXIT_ERROR and "No space left" in err
    assert [_skill(project, i).read_bytes() for i in range(SKILLS)] == [
        _old(i) for i in range(SKILLS)
    ]
    assert _journal(project)[-1]["phase"] == "done"


def test_a_symlinked_skill_is_written_through_its_link(project: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "skill.md"
    dotfiles.parent.mkdir()
    skill = _skill(project, 3)
    dotfiles.write_bytes(skill.read_bytes())
    skill.unlink()
    skill.symlink_to(dotfiles)
    dotfiles.write_bytes(_old(3) + b"hand edit\n")
    code, _, err, _ = _invoke("adopt", "-p", str(project))
    assert code == EXIT_DRIFT and str(skill) in err  # drift is seen through the link
    dotfiles.write_bytes(_old(3))
    adopt(project, PROPOSAL)
    assert skill.is_symlink() and dotfiles.read_text() == _new(3)
    rollback(project, PROPOSAL)
    assert skill.is_symlink() and dotfiles.read_bytes() == _old(3)


def test_status_names_an_interrupted_adopt_without_repairing_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kill_adopt_after(project, 2, monkeypatch)
    journal = ProjectState(project).journal_path.read_bytes()
    code, _, err, _ = _invoke("status", "-p", str(project))
    assert code == 0
    assert f"adopt of {PROPOSAL} was interrupted" in err and "skillopt-sleep rollback" in err
    code, out, _, _ = _invoke("status", "-p", str(project), "--json")
    (notice,) = json.loads(out)["interrupted"]  # also for --json and the MCP server
    assert f"adopt of {PROPOSAL} was interrupted" in notice
    assert ProjectState(project).journal_path.read_bytes() == journal
    assert _skill(project, 0).read_text() == _new(0)  # status only reports


def test_rollback_after_a_killed_adopt_says_it_undid_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kill_adopt_after(project, 2, monkeypatch)
    temp = _skill(project, 2).parent / ".SKILL.md.xy6z39q3"
    assert temp.exists() and _skill(project, 0).read_text() == _new(0)
    code, out, err, _ = _invoke("rollback", "-p", str(project))
    assert code == 0, err
    assert f"an interrupted adopt of {PROPOSAL} was undone" in out
    assert [_skill(project, i).read_bytes() for i in range(SKILLS)] == [
        _old(i) for i in range(SKILLS)
    ]
    assert not temp.exists()
    assert [p.state for p in list_proposals(project)] == ["pending"]


def test_adopt_after_a_killed_adopt_says_it_recovered_first(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kill_adopt_after(project, 3, monkeypatch)
    result = adopt(project)
    assert f"an interrupted adopt of {PROPOSAL} was undone" in result.message
    assert [_skill(project, i).read_text() for i in range(SKILLS)] == [
        _new(i) for i in range(SKILLS)
    ]


def test_a_torn_completion_record_keeps_the_finished_adopt(project: Path) -> None:
    adopt(project, PROPOSAL)
    journal = ProjectState(project).journal_path
    journal.write_bytes(journal.read_bytes()[:-20])  # the "done" line torn mid-line
    notes = transaction.recover(ProjectState(project))
    assert [n.message for n in notes] == [
        f"the journal's record that the adopt of {PROPOSAL} finished was damaged; "
        "the adopt had finished, so it stays adopted"
    ]
    assert _skill(project, 0).read_text() == _new(0)
    assert json.loads(journal.read_text().splitlines()[-1])["phase"] == "done"
    code, out, err, _ = _invoke("rollback", "-p", str(project))
    assert code == 0 and f"rolled back {PROPOSAL}" in out, err
    assert [_skill(project, i).read_bytes() for i in range(SKILLS)] == [
        _old(i) for i in range(SKILLS)
    ]


def test_a_night_that_undoes_a_killed_adopt_says_so(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.engine import load_config, run_night

    _kill_adopt_after(project, 2, monkeypatch)
    empty = {f"homes.{h}": str(tmp_path / "no-sessions") for h in ("claude", "codex", "copilot")}
    report = run_night(project, load_config(project, empty), home=tmp_path / "no-home")
    assert report.outcome == "nothing new"
    assert report.message.startswith(f"an interrupted adopt of {PROPOSAL} was undone")
    assert _skill(project, 0).read_text() != _new(0)  # the old bytes are back
