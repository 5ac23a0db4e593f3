"""Every write of an adopt and of a rollback, failed or killed in turn: the live files are all
old or all new (a killed one: once the next command has recovered), the error says what
happened and what to do, and adopt, rollback and the next night then work.

The proposal is staged once per test by a real night (two files: the user's skill, edited, and
the managed skill, created); each trial starts from a copy of that state (see
:mod:`faults.test_every_write_night` for the harness).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from faults.test_every_write_night import (
    Point,
    Scene,
    Writes,
    assert_clear_error,
    assert_tidy,
    cli,
    failing,
    killed,
    kind,
    make_scene,
)
from skillopt_sleep.engine import list_proposals, run_night, status
from skillopt_sleep.stage.transaction import ROLLED_BACK

pytestmark = pytest.mark.usefixtures("fake_scheduler")
DELETES = ("os.unlink", "os.remove", "os.rmdir", "shutil.rmtree")


class Stage:
    """A scene with a staged proposal (adopted, with ``adopted``), the project's files before
    and after the adopt, and a way back to the state before the command under test."""

    def __init__(self, scene: Scene, *, adopted: bool) -> None:
        self.scene = scene
        assert cli(scene, "run").exit_code == 0
        self.old = scene.files()
        self.new = _adopted_files(scene, self.old)
        self.edits = _accepted_edits(scene)
        if adopted:
            assert cli(scene, "adopt").exit_code == 0
            assert scene.files() == self.new
        self._kept = scene.root / "kept"
        shutil.copytree(scene.state.root, self._kept / "state", symlinks=True)
        shutil.copytree(scene.project, self._kept / "project", symlinks=True)

    def reset(self) -> None:
        for live, kept in ((self.scene.state.root, "state"), (self.scene.project, "project")):
            shutil.rmtree(live)
            shutil.copytree(self._kept / kept, live, symlinks=True)


def _proposal(scene: Scene) -> Path:
    (proposal,) = list_proposals(scene.project)
    return Path(proposal.directory)


def _adopted_files(scene: Scene, old: dict[str, bytes | None]) -> dict[str, bytes | None]:
    """The project's files as the staged proposal makes them."""
    directory = _proposal(scene)
    new = dict(old)
    for entry in json.loads((directory / "manifest.json").read_text())["files"]:
        relative = Path(entry["live_path"]).relative_to(scene.project)
        new[str(relative)] = (directory / entry["staged"]).read_bytes()
        new.update({str(folder): None for folder in relative.parents if str(folder) != "."})
    return dict(sorted(new.items()))


def _accepted_edits(scene: Scene) -> int:
    report = json.loads((_proposal(scene) / "report.json").read_text())
    return sum(1 for edit in report["edits"] if edit["accepted"])


def refused(scene: Scene) -> int:
    """Edits in the rejected buffer because the user rolled their proposal back."""
    carry = json.loads(scene.state.optimizer_path.read_text())
    return sum(
        1
        for entry in carry.values()
        for r in entry.get("rejected", [])
        if r["edit"]["rationale"].startswith(ROLLED_BACK)
    )


def contents(files: dict[str, bytes | None]) -> dict[str, bytes | None]:
    """The files alone, not the folders."""
    return {path: data for path, data in files.items() if data is not None}


def states(scene: Scene) -> list[str]:
    return [p.state for p in list_proposals(scene.project)]


def points_of(stage: Stage, command: str) -> list[Point]:
    with Writes(stage.scene.root) as writes:
        result = cli(stage.scene, command)
    assert result.exit_code == 0, result.stderr
    stage.reset()
    return writes.points


@pytest.fixture
def staged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Stage:
    return Stage(make_scene(tmp_path / "staged", monkeypatch), adopted=False)


@pytest.fixture
def adopted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Stage:
    return Stage(make_scene(tmp_path / "adopted", monkeypatch), adopted=True)


def assert_everything_works_after_adopting(stage: Stage) -> None:
    """Adopt (again) ends all new, rollback all old; the next night has nothing to do."""
    scene = stage.scene
    result = cli(scene, "adopt")
    assert result.exit_code == 0 or states(scene) == ["adopted"], result.stderr
    assert scene.files() == stage.new and states(scene) == ["adopted"]
    assert_tidy(scene)
    assert cli(scene, "rollback").exit_code == 0
    assert scene.files() == stage.old
    assert run_night(scene.project, home=scene.world.home).outcome == "nothing new"
    assert cli(scene, "status").exit_code == 0 and status(scene.project).interrupted == ()


def assert_everything_works_after_rolling_back(stage: Stage) -> None:
    """Rollback (again) ends all old with the edits refused once; the next night has nothing
    to do."""
    scene = stage.scene
    cli(scene, "rollback")  # finishes it (exit 2 when the recovery already did: engine/api.py)
    assert contents(scene.files()) == contents(stage.old) and states(scene) == ["rolled back"]
    assert refused(scene) == stage.edits
    assert_tidy(scene)
    assert run_night(scene.project, home=scene.world.home).outcome == "nothing new"
    assert cli(scene, "status").exit_code == 0 and status(scene.project).interrupted == ()


# -- adopt


@pytest.mark.parametrize(
    ("code", "every"),
    [(errno.ENOSPC, 1), (errno.EIO, 3), (errno.EACCES, 4)],
    ids=["ENOSPC", "EIO", "EACCES"],
)
def test_a_failing_write_of_an_adopt_leaves_the_live_files_all_old_or_all_new(
    staged: Stage, code: int, every: int
) -> None:
    scene = staged.scene
    for point in points_of(staged, "adopt")[::every]:
        if point.op in DELETES and code == errno.ENOSPC:
            continue
        result, failed = failing(scene, point.number, code, "adopt")
        if result.exit_code == 0:
            assert scene.files() == staged.new, failed
        else:
            assert_clear_error(result, failed, code)
            assert scene.files() == staged.old, failed
            assert "nothing was adopted" in result.stderr or kind(scene.root, failed) not in (
                "live",
                "staging/manifest.json",
            ), (failed, result.stderr)
        assert_everything_works_after_adopting(staged)
        staged.reset()


def test_an_adopt_killed_at_any_write_is_all_old_or_all_new_once_recovered(
    staged: Stage,
) -> None:
    scene = staged.scene
    for point in points_of(staged, "adopt")[::2]:
        killed(scene, point.number, "adopt")
        if scene.files() not in (staged.old, staged.new):
            assert status(scene.project).interrupted, point  # says so, and what to run
        assert_everything_works_after_adopting(staged)
        staged.reset()


def _first(stage: Stage, command: str, op: str, what: str, *, last: bool = False) -> Point:
    found = [
        p for p in points_of(stage, command) if p.op == op and kind(stage.scene.root, p) == what
    ]
    return found[-1] if last else found[0]


def test_an_adopt_whose_manifest_cannot_be_written_puts_the_files_back(staged: Stage) -> None:
    """The live files were all replaced, then the manifest write failed: the adopt stopped
    there, saying "live files are untouched" over the new files (the next command undid it)."""
    point = _first(staged, "adopt", "file.write", "staging/manifest.json")
    result, failed = failing(staged.scene, point.number, errno.ENOSPC, "adopt")
    assert_clear_error(result, failed, errno.ENOSPC)
    assert "nothing was adopted" in result.stderr
    assert staged.scene.files() == staged.old and states(staged.scene) == ["pending"]
    assert status(staged.scene.project).interrupted == ()
    assert_everything_works_after_adopting(staged)


def test_an_adopt_done_but_for_its_journal_line_succeeds(staged: Stage) -> None:
    """The manifest records the adopt (its commit); a full disk refusing the journal's "done"
    line after it failed an adopt that had happened (exit 1, files all new)."""
    point = _first(staged, "adopt", "os.write", "journal.jsonl", last=True)
    result, _ = failing(staged.scene, point.number, errno.ENOSPC, "adopt")
    assert result.exit_code == 0, result.stderr
    assert staged.scene.files() == staged.new and states(staged.scene) == ["adopted"]
    assert_everything_works_after_adopting(staged)


# -- rollback


def _refusal(scene: Scene, point: Point) -> bool:
    """A write of the refusal of the rolled-back edits, which engine/api.py makes after the
    rollback's transaction (a failure there is reported, not fixed, by this change)."""
    return kind(scene.root, point) == "optimizer.json"


@pytest.mark.parametrize(
    ("code", "every"),
    [(errno.ENOSPC, 1), (errno.EIO, 3), (errno.EACCES, 3)],
    ids=["ENOSPC", "EIO", "EACCES"],
)
def test_a_failing_write_of_a_rollback_leaves_the_live_files_all_new_or_all_old(
    adopted: Stage, code: int, every: int
) -> None:
    scene = adopted.scene
    for point in points_of(adopted, "rollback")[::every]:
        if (point.op in DELETES and code == errno.ENOSPC) or _refusal(scene, point):
            continue
        result, failed = failing(scene, point.number, code, "rollback")
        if result.exit_code == 0:  # a folder that could not be removed stays, empty
            assert contents(scene.files()) == contents(adopted.old), failed
        else:
            assert_clear_error(result, failed, code)
            assert "adopt again" not in result.stderr, result.stderr
            assert scene.files() == adopted.new, failed
            assert states(scene) == ["adopted"], failed
        assert_everything_works_after_rolling_back(adopted)
        adopted.reset()


def test_a_rollback_killed_at_any_write_is_finished_with_its_edits_refused(
    adopted: Stage,
) -> None:
    """A killed rollback is finished by the next command; its edits were never refused (the
    command that refuses them had died), so the next night proposed them again."""
    scene = adopted.scene
    for point in points_of(adopted, "rollback")[::2]:
        if _refusal(scene, point):
            continue
        killed(scene, point.number, "rollback")
        if scene.files() not in (adopted.old, adopted.new):
            assert status(scene.project).interrupted, point
        assert_everything_works_after_rolling_back(adopted)
        adopted.reset()


@pytest.mark.parametrize(
    ("op", "what"),
    [("file.write", "live"), ("os.unlink", "live"), ("file.write", "staging/manifest.json")],
)
def test_a_rollback_whose_write_fails_rolls_nothing_back(
    adopted: Stage, op: str, what: str
) -> None:
    """A failed live write left a journal "begin" that the next command finished behind the
    user's back (and its fix said "adopt again"); a failed manifest write came after every
    file was restored, under "live files are untouched"."""
    point = _first(adopted, "rollback", op, what, last=True)
    code = errno.EACCES if op in DELETES else errno.ENOSPC
    result, failed = failing(adopted.scene, point.number, code, "rollback")
    assert_clear_error(result, failed, code)
    assert "nothing was rolled back" in result.stderr and "adopt again" not in result.stderr
    assert adopted.scene.files() == adopted.new and states(adopted.scene) == ["adopted"]
    assert status(adopted.scene.project).interrupted == ()
    result = cli(adopted.scene, "rollback")
    assert result.exit_code == 0, result.stderr
    assert_everything_works_after_rolling_back(adopted)


@pytest.mark.parametrize("command", ["adopt", "rollback"])
def test_a_journal_line_that_could_not_be_synced_is_taken_back(
    request: pytest.FixtureRequest, command: str
) -> None:
    """A "begin" whose sync failed stayed in the journal: the command said it failed, and
    the next one acted on it (a rollback the user was told had failed was finished)."""
    stage: Stage = request.getfixturevalue("staged" if command == "adopt" else "adopted")
    point = _first(stage, command, "os.fsync", "journal.jsonl")
    result, failed = failing(stage.scene, point.number, errno.EIO, command)
    assert_clear_error(result, failed, errno.EIO)
    assert status(stage.scene.project).interrupted == ()
    assert stage.scene.files() == (stage.old if command == "adopt" else stage.new)


def test_a_killed_rollback_finished_by_a_night_refuses_its_edits(adopted: Stage) -> None:
    scene = adopted.scene
    point = _first(adopted, "rollback", "file.write", "live")
    killed(scene, point.number, "rollback")
    night = run_night(scene.project, home=scene.world.home)
    assert "interrupted rollback" in night.message
    assert scene.files() == adopted.old and states(scene) == ["rolled back"]
    assert refused(scene) == adopted.edits


class _FullFrom(Writes):
    """From write ``start`` on, every write into ``folder`` fails: a disk that filled up."""

    def __init__(self, root: Path, folder: Path, start: int) -> None:
        super().__init__(root)
        self.folder, self.start = str(folder) + os.sep, start

    def _point(self, op: str, path: str, partial: Callable[[], object] | None = None) -> None:
        super()._point(op, path, partial)
        if len(self.points) >= self.start and path.startswith(self.folder):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)


def test_an_adopt_that_cannot_put_the_files_back_says_the_next_command_will(
    staged: Stage,
) -> None:
    scene = staged.scene
    lives = [p for p in points_of(staged, "adopt") if kind(scene.root, p) == "live"]
    second = next(p for p in lives if "skillopt-learned" in p.path)  # the first file is written
    with _FullFrom(scene.root, scene.project, second.number):
        result = cli(scene, "adopt")
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.exception
    assert "putting the live files back failed too" in result.stderr, result.stderr
    assert "next skillopt-sleep command" in result.stderr and result.stderr.count("fix:") == 1
    assert status(scene.project).interrupted  # status names it and the command that mends it
    assert_everything_works_after_adopting(staged)
