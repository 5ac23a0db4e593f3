"""A damaged mining archive is a message with a way out, for `mine` and for a night alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from faults._cli import home_args, sleep_cli
from faults._sessions import PROJECT, write_session
from skillopt_sleep.engine import ProjectState
from tests.engine._world import make_world

NOT_SQLITE = b"this is not a SQLite database, just bytes a crash left behind\n" * 64


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix the login test"])
    write_session(home, "s2", ["fix the login test again"])
    return home


def _assert_clean(result: object, archive: Path) -> None:
    err = result.stderr.decode("utf-8", "replace")  # type: ignore[attr-defined]
    assert result.returncode == 1, err  # type: ignore[attr-defined]
    assert "Traceback" not in err
    assert "the mining archive" in err and "is damaged" in err
    assert "fix:" in err and archive.name in err


def test_mine_on_a_damaged_archive(tmp_path: Path, home: Path) -> None:
    archive = tmp_path / "archive.sqlite3"
    archive.write_bytes(NOT_SQLITE)
    args = ["mine", "-p", PROJECT, *home_args({"claude": home}), "--embedder", "jaccard",
            "--archive", str(archive)]  # fmt: skip
    _assert_clean(sleep_cli(args), archive)
    assert archive.read_bytes() == NOT_SQLITE  # left for the user to inspect or move


def test_a_night_on_a_damaged_archive(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w")
    archive = ProjectState(world.webapp).archive_path
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(NOT_SQLITE)
    homes = {name: world.home / f".{name}" for name in ("claude", "codex", "copilot")}
    args = ["run", "-p", str(world.webapp), *home_args(homes), "--backend", "mock",
            "--embedder", "jaccard"]  # fmt: skip
    _assert_clean(sleep_cli(args, {"SKILLOPT_SLEEP_NIGHT_SINCE": "3650d"}), archive)
