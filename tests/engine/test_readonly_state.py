"""A state directory the engine cannot write (a read-only mount, a sandbox, no permission, a full
disk) is an ``error: ... fix: ...`` naming the path, the OS reason and what to do, never a
traceback. Tests may run as root, whom chmod does not stop, so the OS errors are simulated."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import StorageError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import state as engine_state
from skillopt_sleep.engine.state import ProjectState
from skillopt_sleep.paths import state_dir
from tests.engine._world import World

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _refuse_writes(monkeypatch: pytest.MonkeyPatch, code: int) -> Path:
    """Every write under the state base directory fails with ``code``, as on a read-only mount."""
    base = state_dir().resolve()
    real_open: Callable[..., int] = os.open
    real_mkdir: Callable[..., None] = os.mkdir

    def under(path: Any) -> bool:
        return Path(os.fsdecode(path)).resolve().is_relative_to(base)

    def fake_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & WRITE_FLAGS and under(path):
            raise OSError(code, os.strerror(code), os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    def fake_mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        if under(path):
            raise OSError(code, os.strerror(code), os.fsdecode(path))
        real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "mkdir", fake_mkdir)
    return base


def _run(world: World) -> Any:
    argv = ["run", "-p", str(world.webapp), "--backend", "mock", "--embedder", "tfidf"]
    for harness in ("claude", "codex", "copilot"):
        argv += [f"--{harness}-home", str(world.home / f".{harness}")]
    return CliRunner().invoke(app, argv)


def _assert_read_only_error(result: Any, path: Path) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not an OSError
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr and str(path) in result.stderr
    assert "Read-only file system" in result.stderr  # the OS reason
    assert "read-only file system" in result.stderr.split("fix:")[1]
    assert "SKILLOPT_SLEEP_HOME" in result.stderr and "free some disk space" not in result.stderr


def test_an_existing_read_only_state_dir_is_an_error_not_a_traceback(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = ProjectState(world.webapp).root
    root.mkdir(parents=True)  # an earlier night made it; now it is mounted read-only
    _refuse_writes(monkeypatch, errno.EROFS)
    result = _run(world)
    _assert_read_only_error(result, root)


def test_a_missing_state_dir_on_a_read_only_mount_does_not_say_free_space(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse_writes(monkeypatch, errno.EROFS)
    result = _run(world)
    _assert_read_only_error(result, state_dir())


def test_an_existing_project_marker_does_not_hide_a_read_only_database(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = ProjectState(
        world.webapp
    ).ensure()  # every file exists: opening for writing still fails
    _refuse_writes(monkeypatch, errno.EROFS)
    with pytest.raises(StorageError) as caught:
        state.ensure()
    assert str(state.root) in caught.value.message and "read-only" in caught.value.hint


def test_a_marker_that_cannot_be_written_is_a_storage_error(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = ProjectState(world.webapp)
    state.root.mkdir(parents=True)
    for database in (state.index_path, state.archive_path):
        database.touch()

    def read_only(*_: Any, **__: Any) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(engine_state, "atomic_write_bytes", read_only)
    with pytest.raises(StorageError) as caught:
        state.ensure()
    assert "project.json" in caught.value.message and "Read-only" in caught.value.message
    assert "read-only file system" in caught.value.hint and "disk space" not in caught.value.hint


@pytest.mark.parametrize(
    ("code", "expected", "absent"),
    [
        (errno.EROFS, "read-only file system", "disk space"),
        (errno.EACCES, "permissions", "disk space"),
        (errno.EPERM, "permissions", "read-only"),
        (errno.ENOSPC, "free some disk space", "read-only"),
        (errno.EDQUOT, "free some disk space", "permissions"),
    ],
)
def test_the_hint_follows_the_errno(code: int, expected: str, absent: str) -> None:
    hint = engine_state.storage_hint(OSError(code, os.strerror(code)))
    assert expected in hint and absent not in hint and "SKILLOPT_SLEEP_HOME" in hint


def test_an_unknown_errno_still_says_what_to_check() -> None:
    hint = engine_state.storage_hint(OSError(errno.EIO, os.strerror(errno.EIO)))
    assert "SKILLOPT_SLEEP_HOME" in hint
