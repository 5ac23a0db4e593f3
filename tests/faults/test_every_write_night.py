"""Every write of a night, failed or killed in turn: the live files stay as they were, the error
says what happened and what to do, and the next night delivers every session exactly once.

:class:`Writes` counts each write a command makes under a test's folder (``os.open`` for
writing, ``os.write``, ``os.fsync``, ``os.ftruncate``, ``os.replace``/``rename``/``link``,
``os.mkdir``, ``open(..., "w"/"a"/"x"/"+")``, ``shutil.rmtree``, SQLite commits) and fails the
chosen one with an ``OSError`` (SQLite: the ``sqlite3.OperationalError`` SQLite raises for that
errno), or SIGKILLs the process there (a data write first writes half its bytes, a truncating
``open`` truncates: what a kill inside the write leaves; file deletions and ``file.write`` on
an open file object count too). The tests sample the write points deterministically
(:func:`sample`); the same harness looped over every point is the exhaustive sweep.
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import pathlib
import re
import shutil
import signal
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.engine import ProjectState, list_proposals, status
from tests._isolation import isolate_sleep_state
from tests.engine._history import write_history
from tests.engine._world import World, make_world

USER_SKILL = (
    b"---\nname: login-tests\ndescription: Fix failing login tests in tests/test_auth.py\n---\n"
    b"# Login tests\nRun the auth suite first.\n"
)
PAPERS = 8  # sessions of a second family, routed to a managed skill the adopt creates
# what SQLite says when the OS fails its write with each errno
SQLITE_SAYS = {
    errno.ENOSPC: "database or disk is full",
    errno.EIO: "disk I/O error",
    errno.EACCES: "attempt to write a readonly database",
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_SQL_WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.I)
_SQL_COMMIT = re.compile(r"\s*(COMMIT|END)\b", re.I)


@dataclass(frozen=True)
class Point:
    """One write: its number in the command's order, what it was, and the file."""

    number: int
    op: str
    path: str

    def __str__(self) -> str:
        return f"#{self.number} {self.op} {self.path}"


class Writes:
    """Count the writes under ``root``; fail write ``fail_at`` with ``code``, or SIGKILL the
    process at write ``kill_at`` (see the module docstring). Use as a context manager."""

    def __init__(
        self,
        root: Path,
        *,
        fail_at: int | None = None,
        code: int = errno.ENOSPC,
        kill_at: int | None = None,
    ) -> None:
        self.root = os.path.abspath(root) + os.sep
        self.fail_at, self.code, self.kill_at = fail_at, code, kill_at
        self.points: list[Point] = []
        self.failed: Point | None = None
        self._fds: dict[int, str] = {}
        self._saved: list[tuple[Any, str, Any]] = []

    # -- which writes are ours, and what happens at one

    def _ours(self, path: object) -> str | None:
        if isinstance(path, int):
            return self._fds.get(path)
        try:
            full = os.path.abspath(os.fsdecode(path))  # type: ignore[arg-type]
        except TypeError:
            return None
        return full if full.startswith(self.root) else None

    def _point(self, op: str, path: str, partial: Callable[[], object] | None = None) -> None:
        point = Point(len(self.points) + 1, op, path)
        self.points.append(point)
        if point.number == self.kill_at:
            if partial is not None:
                partial()
            os.kill(os.getpid(), signal.SIGKILL)
        if point.number == self.fail_at:
            self.failed = point
            if op.startswith("sqlite"):
                raise sqlite3.OperationalError(SQLITE_SAYS[self.code])
            raise OSError(self.code, os.strerror(self.code), path)

    # -- the wrappers

    def __enter__(self) -> Writes:
        real: dict[str, Any] = {}
        for name in ("open", "write", "fsync", "ftruncate", "close", "replace", "rename",
                     "link", "symlink", "mkdir", "unlink", "remove", "rmdir"):  # fmt: skip
            real[name] = getattr(os, name)
        writes = self

        def os_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
            ours = writes._ours(path) if dir_fd is None else None
            creates = flags & os.O_CREAT and not os.path.lexists(path)
            if ours and (creates or flags & os.O_TRUNC):  # opening a file allocates nothing
                writes._point("os.open", ours)
            fd: int = real["open"](path, flags, mode, dir_fd=dir_fd)
            if ours and flags & _WRITE_FLAGS:
                writes._fds[fd] = ours
            return fd

        def os_write(fd: int, data: Any) -> int:
            ours = writes._fds.get(fd)
            if ours:
                writes._point(
                    "os.write", ours, lambda: real["write"](fd, bytes(data)[: len(data) // 2])
                )
            return int(real["write"](fd, data))

        def on_fd(name: str) -> Callable[..., Any]:
            def wrapped(fd: int, *args: Any) -> Any:
                ours = writes._fds.get(fd)
                if ours:
                    writes._point(f"os.{name}", ours)
                return real[name](fd, *args)

            return wrapped

        def os_close(fd: int) -> None:
            writes._fds.pop(fd, None)
            real["close"](fd)

        def two_paths(name: str) -> Callable[..., Any]:
            def wrapped(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
                ours = writes._ours(dst) or writes._ours(src)
                if ours:
                    writes._point(f"os.{name}", ours)
                return real[name](src, dst, *args, **kwargs)

            return wrapped

        def os_mkdir(path: Any, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
            ours = writes._ours(path) if dir_fd is None else None
            if ours and not os.path.lexists(path):  # an existing one fails with EEXIST first
                writes._point("os.mkdir", ours)
            real["mkdir"](path, mode, dir_fd=dir_fd)

        def deleting(name: str) -> Callable[..., Any]:
            def wrapped(path: Any, *args: Any, **kwargs: Any) -> Any:
                ours = writes._ours(path) if kwargs.get("dir_fd") is None else None
                if ours and os.path.lexists(path):
                    writes._point(f"os.{name}", ours)
                return real[name](path, *args, **kwargs)

            return wrapped

        real_open = io.open

        def any_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            ours = writes._ours(file) if any(c in mode for c in "wax+") else None
            if ours and not isinstance(file, int):  # os.fdopen: its os.open was counted

                def truncate() -> None:
                    if "w" in mode:
                        real_open(file, mode, *args, **kwargs).close()

                writes._point(f"open({mode})", ours, truncate)
            handle = real_open(file, mode, *args, **kwargs)
            return _CountedFile(handle, writes, ours) if ours else handle

        real_rmtree = shutil.rmtree

        def rmtree(path: Any, ignore_errors: bool = False, *args: Any, **kwargs: Any) -> None:
            ours = writes._ours(path)
            if ours:
                try:
                    writes._point("shutil.rmtree", ours)
                except OSError:
                    if ignore_errors:
                        return
                    raise
            real_rmtree(path, ignore_errors, *args, **kwargs)

        real_connect = sqlite3.connect

        def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
            ours = writes._ours(database) if not kwargs.get("uri") else None
            if ours:
                kwargs["factory"] = _counted_connection(writes, ours)
            return real_connect(database, *args, **kwargs)

        patches: list[tuple[Any, str, Any]] = [
            (os, "open", os_open),
            (os, "write", os_write),
            (os, "fsync", on_fd("fsync")),
            (os, "ftruncate", on_fd("ftruncate")),
            (os, "close", os_close),
            (os, "replace", two_paths("replace")),
            (os, "rename", two_paths("rename")),
            (os, "link", two_paths("link")),
            (os, "symlink", two_paths("symlink")),
            (os, "mkdir", os_mkdir),
            (os, "unlink", deleting("unlink")),
            (os, "remove", deleting("remove")),
            (os, "rmdir", deleting("rmdir")),
            (io, "open", any_open),
            (builtins, "open", any_open),
            (shutil, "rmtree", rmtree),
            (sqlite3, "connect", connect),
        ]
        # Python 3.10's pathlib calls these through an accessor that took them from os and io
        # at import: Path.unlink, mkdir, rename, open... would bypass the patches above.
        accessor = getattr(pathlib, "_NormalAccessor", None)
        if accessor is not None:
            for name, wrapper in (
                ("open", any_open),
                ("mkdir", os_mkdir),
                ("unlink", deleting("unlink")),
                ("rmdir", deleting("rmdir")),
                ("rename", two_paths("rename")),
                ("replace", two_paths("replace")),
                ("link", two_paths("link")),
                ("symlink", two_paths("symlink")),
            ):
                patches.append((accessor, name, staticmethod(wrapper)))
        for owner, name, wrapper in patches:
            self._saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, wrapper)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()


class _CountedFile:
    """A file object whose every ``write`` is a write point (a kill writes half of it first)."""

    def __init__(self, handle: Any, writes: Writes, path: str) -> None:
        self._handle, self._writes, self._path = handle, writes, path

    def write(self, data: Any) -> int:
        def half() -> None:
            self._handle.write(data[: len(data) // 2])
            self._handle.flush()

        self._writes._point("file.write", self._path, half)
        return int(self._handle.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._handle)

    def __enter__(self) -> _CountedFile:
        self._handle.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        return self._handle.__exit__(*exc)


def _counted_connection(writes: Writes, where: str) -> type[sqlite3.Connection]:
    class Counted(sqlite3.Connection):
        def _autocommits(self, sql: str) -> bool:
            return (
                self.isolation_level is None
                and not self.in_transaction
                and bool(_SQL_WRITE.match(sql))
            )

        def commit(self) -> None:
            if self.in_transaction:
                writes._point("sqlite.commit", where)
            super().commit()

        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if (self.in_transaction and _SQL_COMMIT.match(sql)) or self._autocommits(sql):
                writes._point("sqlite.commit", where)
            return super().execute(sql, *args)

        def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if self._autocommits(sql):
                writes._point("sqlite.commit", where)
            return super().executemany(sql, *args)

        def executescript(self, script: str) -> sqlite3.Cursor:
            if any(_SQL_WRITE.match(s) for s in script.split(";")):
                writes._point("sqlite.script", where)
            return super().executescript(script)

        def __exit__(self, kind: object, *rest: Any) -> Any:
            if kind is None and self.in_transaction:
                try:
                    writes._point("sqlite.commit", where)
                except sqlite3.Error:
                    self.rollback()  # as the connection's own __exit__ does when COMMIT fails
                    raise
            return super().__exit__(kind, *rest)

    return Counted


# -- a project, its history, and the commands under test

SESSIONS = 12 + PAPERS  # the world's Claude Code, Codex and Copilot sessions, and the papers
_TEMP = re.compile(r"\.(.+)\.[a-z0-9_]{8}")  # an atomic write's temp file


@dataclass(frozen=True)
class Scene:
    """A project with a user skill and a history of two task families, its state in ``root``."""

    root: Path
    world: World

    @property
    def project(self) -> Path:
        return self.world.webapp

    @property
    def state(self) -> ProjectState:
        return ProjectState(self.project)

    def files(self) -> dict[str, bytes | None]:
        """Every file and folder of the project (folders as None)."""
        return {
            str(p.relative_to(self.project)): None if p.is_dir() else p.read_bytes()
            for p in sorted(self.project.rglob("*"))
        }


def make_scene(root: Path, monkeypatch: pytest.MonkeyPatch) -> Scene:
    world = make_world(root / "w")
    skill = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(USER_SKILL)
    write_history(world.home / ".claude", world.webapp, PAPERS)
    isolate_sleep_state(root, monkeypatch)
    settings = {
        "HOMES_CLAUDE": world.home / ".claude",
        "HOMES_CODEX": world.home / ".codex",
        "HOMES_COPILOT": world.home / ".copilot",
        "HOMES_VSCODE": world.home / "no-vscode",
        "MINE_EMBEDDER": "tfidf",
        "NIGHT_SINCE": "3650d",
    }
    for key, value in settings.items():
        monkeypatch.setenv(f"SKILLOPT_SLEEP_{key}", str(value))
    monkeypatch.setenv("HOME", str(world.home))  # the user's skill roots, and nothing real
    return Scene(root, world)


def cli(scene: Scene, *args: str) -> Any:
    from typer.testing import CliRunner

    from skillopt_sleep.cli import app

    return CliRunner().invoke(app, [*args, "-p", str(scene.project)])


def failing(scene: Scene, number: int, code: int, *args: str) -> tuple[Any, Point]:
    """Run the command with its write ``number`` failing with ``code``."""
    with Writes(scene.root, fail_at=number, code=code) as writes:
        result = cli(scene, *args)
    assert writes.failed is not None, f"write {number} was not reached: {result.stderr}"
    return result, writes.failed


def killed(scene: Scene, number: int, *args: str) -> None:
    """Run the command in a forked child SIGKILLed at its write ``number``."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            with Writes(scene.root, kill_at=number):
                cli(scene, *args)
        finally:
            os._exit(3)
    _, code = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(code) and os.WTERMSIG(code) == signal.SIGKILL, (number, code)


def kind(root: Path, point: Point) -> str:
    """What a write is to, for sampling: the state file or folder it belongs to."""
    parts = Path(point.path).relative_to(root).parts
    name = _TEMP.sub(r"\1", parts[-1]) if _TEMP.fullmatch(parts[-1]) else parts[-1]
    if parts[0] == "w":
        return "live"
    for folder in ("staging", "backups"):
        if folder in parts:
            return f"{folder}/{name}" if name == "manifest.json" else folder
    if "nights" in parts:
        return f"nights/{name}" if name in ("report.json", "history-line.json") else "nights"
    return name if "." in name else "folder"


def sample(root: Path, points: list[Point], ops: tuple[str, ...]) -> list[Point]:
    """The first write of each (operation, kind) pair among ``ops``, and the last SQLite commit
    of each database: every kind of write to every kind of file, in a few dozen points
    instead of hundreds."""
    chosen: dict[tuple[str, str], Point] = {}
    for point in points:
        if point.op in ops:
            key = (point.op, kind(root, point))
            chosen.setdefault(key, point)
            if point.op == "sqlite.commit":
                chosen[(*key, "last")] = point  # type: ignore[index]
    return sorted(set(chosen.values()), key=lambda p: p.number)


def said(point: Point, code: int) -> str:
    return SQLITE_SAYS[code] if point.op.startswith("sqlite") else os.strerror(code)


def assert_clear_error(result: Any, point: Point, code: int) -> None:
    """A failed command: ``error:`` with the OS's reason and a ``fix:``, no traceback."""
    err = result.stderr
    assert isinstance(result.exception, SystemExit), (point, result.exception)
    assert "Traceback" not in err and "error:" in err and err.count("fix:") == 1, (point, err)
    assert said(point, code) in err, (point, err)


def assert_tidy(scene: Scene) -> None:
    """No temp file, hot SQLite journal, unfinished night folder, damaged JSON or held lock."""
    state = scene.state
    for folder in (state.root, scene.project):
        for path in folder.rglob("*"):
            assert not _TEMP.fullmatch(path.name), path
            assert not path.name.startswith(".tmp-"), path
            if path.name.endswith("-journal"):  # journal_mode=TRUNCATE leaves it empty
                assert path.stat().st_size == 0, path
            if path.suffix == ".json" and path.is_file():
                json.loads(path.read_bytes())
            if path.suffix == ".jsonl" and path.is_file():
                data = path.read_bytes()
                assert not data or data.endswith(b"\n"), path
                [json.loads(line) for line in data.splitlines()]
    nights = state.root / "nights"
    assert all((n / "report.json").is_file() for n in nights.iterdir()), list(nights.iterdir())
    assert state.running() is None


def delivered(scene: Scene) -> list[tuple[str, int]]:
    from skillopt_sleep.engine.state import read_lines

    return [(r["outcome"], r["sessions"]) for r in read_lines(scene.state.history_path)]


def assert_next_night_delivers_the_rest(scene: Scene) -> None:
    """With the fault gone the next night works, and every session was delivered once."""
    from skillopt_sleep.engine import run_night

    report = run_night(scene.project, home=scene.world.home)
    assert report.outcome in ("staged", "nothing new"), report.message
    assert sum(sessions for _, sessions in delivered(scene)) == SESSIONS, delivered(scene)
    pending = [p for p in list_proposals(scene.project) if p.state == "pending"]
    assert len(pending) == 1, list_proposals(scene.project)
    assert_tidy(scene)
    for command in ("status", "proposals", "report"):
        result = cli(scene, command)
        assert result.exit_code == 0, (command, result.stderr)
    assert status(scene.project).interrupted == ()


@pytest.fixture(scope="module")
def night_writes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Point]]:
    """Every write of a first night, and the root its paths are under (``w``: the world,
    ``state``: the engine's state, as in every scene)."""
    root = tmp_path_factory.mktemp("count-night")
    with pytest.MonkeyPatch.context() as monkeypatch:
        scene = make_scene(root, monkeypatch)
        with Writes(root) as writes:
            result = cli(scene, "run")
        assert result.exit_code == 0, result.stderr
    return root, writes.points


def test_the_harness_sees_every_kind_of_write(night_writes: tuple[Path, list[Point]]) -> None:
    root, points = night_writes
    kinds = {(p.op, kind(root, p)) for p in points}
    for expected in [
        ("sqlite.commit", "harvest-index.sqlite3"),
        ("sqlite.commit", "mine-archive.sqlite3"),
        ("os.write", "history.jsonl"),
        ("file.write", "optimizer.json"),
        ("os.replace", "staging/manifest.json"),
        ("os.replace", "nights/report.json"),
        ("os.write", ".lock"),
    ]:
        assert expected in kinds, sorted(kinds)
    assert not any(kind(root, p) == "live" for p in points)  # a night never writes live files


def _night_fails_at(scene: Scene, point: Point, code: int) -> None:
    """Fail one write of a night: live files unchanged, a clear error (or a night that did
    without it), then everything works and each session is delivered once."""
    before = scene.files()
    result, failed = failing(scene, point.number, code, "run")
    assert failed.op == point.op, (point, failed)
    if result.exit_code != 0:
        assert_clear_error(result, failed, code)
    assert scene.files() == before, failed
    assert_next_night_delivers_the_rest(scene)


DATA = ("file.write", "os.write", "sqlite.commit")  # where a full disk shows


@pytest.mark.usefixtures("fake_scheduler")
@pytest.mark.parametrize(
    ("code", "ops", "every"),
    [
        (errno.ENOSPC, (*DATA, "sqlite.script", "os.mkdir"), 2),
        (errno.EIO, ("os.fsync", "sqlite.commit"), 3),
        (errno.EACCES, ("os.open", "os.mkdir", "os.replace"), 4),
    ],
    ids=["ENOSPC", "EIO", "EACCES"],
)
def test_a_failing_write_of_a_night_changes_no_live_file_and_loses_nothing(
    night_writes: tuple[Path, list[Point]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    code: int,
    ops: tuple[str, ...],
    every: int,
) -> None:
    root, points = night_writes
    for point in sample(root, points, ops)[::every]:
        scene = make_scene(tmp_path / f"n{point.number}", monkeypatch)
        _night_fails_at(scene, point, code)
        shutil.rmtree(scene.root)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
@pytest.mark.usefixtures("fake_scheduler")
def test_a_night_killed_at_a_write_changes_no_live_file_and_loses_nothing(
    night_writes: tuple[Path, list[Point]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, points = night_writes
    for point in sample(root, points, (*DATA, "os.replace"))[::3]:
        scene = make_scene(tmp_path / f"k{point.number}", monkeypatch)
        before = scene.files()
        killed(scene, point.number, "run")
        assert scene.files() == before, point
        assert_next_night_delivers_the_rest(scene)
        shutil.rmtree(scene.root)


def first(root: Path, points: list[Point], op: str, what: str, *, last: bool = False) -> Point:
    """The first (or last) write ``op`` to a file of kind ``what``."""
    found = [p for p in points if p.op == op and kind(root, p) == what]
    assert found, (op, what)
    return found[-1] if last else found[0]


@pytest.mark.usefixtures("fake_scheduler")
def test_a_lock_that_cannot_record_its_holder_still_locks_and_the_night_runs(
    night_writes: tuple[Path, list[Point]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pid in the lock file is for a process turned away to name; a full disk refusing
    those bytes was a raw OSError out of the lock (a traceback, or "could not write" output)."""
    root, points = night_writes
    scene = make_scene(tmp_path / "s", monkeypatch)
    result, _ = failing(scene, first(root, points, "os.write", ".lock").number, errno.ENOSPC, "run")
    assert result.exit_code == 0, result.stderr
    assert [p.state for p in list_proposals(scene.project)] == ["pending"]
    assert_tidy(scene)


@pytest.mark.usefixtures("fake_scheduler")
@pytest.mark.parametrize(
    ("op", "what"),
    [("sqlite.commit", "harvest-index.sqlite3"), ("os.fsync", "history.jsonl")],
    ids=["commit", "history"],
)
def test_a_night_that_fails_at_its_end_is_in_the_history_once(
    night_writes: tuple[Path, list[Point]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    op: str,
    what: str,
) -> None:
    """The history line was appended before the harvest index was committed: a commit that
    failed (or a line whose sync failed) left a night in the history whose sessions the next
    night read again, and `status` counted them twice."""
    root, points = night_writes
    scene = make_scene(tmp_path / "s", monkeypatch)
    point = first(root, points, op, what, last=True)
    result, failed = failing(scene, point.number, errno.ENOSPC, "run")
    assert_clear_error(result, failed, errno.ENOSPC)
    assert_next_night_delivers_the_rest(scene)
    assert [sessions for _, sessions in delivered(scene)] in ([SESSIONS], [SESSIONS, 0])
    if op == "os.fsync":  # the night had finished: the error says so, and it stays finished
        assert "finished and staged proposal" in result.stderr
        assert delivered(scene) == [("staged", SESSIONS), ("nothing new", 0)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
@pytest.mark.usefixtures("fake_scheduler")
def test_a_night_killed_after_its_commit_gets_its_history_line_from_the_next(
    night_writes: tuple[Path, list[Point]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, points = night_writes
    scene = make_scene(tmp_path / "s", monkeypatch)
    killed(scene, first(root, points, "os.write", "history.jsonl").number, "run")  # half a line
    assert_next_night_delivers_the_rest(scene)
    assert delivered(scene) == [("staged", SESSIONS), ("nothing new", 0)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
@pytest.mark.usefixtures("fake_scheduler")
def test_a_night_killed_in_a_state_write_leaves_no_temp_file_behind(
    night_writes: tuple[Path, list[Point]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill between an atomic write's temp file and its rename left ``.optimizer.json.XXXX``
    in the state directory for good (nothing removed it)."""
    root, points = night_writes
    scene = make_scene(tmp_path / "s", monkeypatch)
    killed(scene, first(root, points, "file.write", "optimizer.json").number, "run")
    assert list(scene.state.root.glob(".optimizer.json.*"))  # what the kill left
    assert_next_night_delivers_the_rest(scene)  # assert_tidy: no temp file


@pytest.mark.usefixtures("fake_scheduler")
def test_a_proposal_that_cannot_be_staged_says_the_fix_once(
    night_writes: tuple[Path, list[Point]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The staging error wrapped the file's error whole, its own ``fix:`` line included, and
    added another one that said "free some disk space" whatever the errno."""
    root, points = night_writes
    scene = make_scene(tmp_path / "s", monkeypatch)
    point = first(root, points, "file.write", "staging")
    result, failed = failing(scene, point.number, errno.EACCES, "run")
    assert_clear_error(result, failed, errno.EACCES)  # one fix: line
    assert "cannot stage the proposal" in result.stderr and "permissions" in result.stderr
