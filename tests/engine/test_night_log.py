"""logs/night.log is rotated copy-then-truncate, so the scheduler's open append handle keeps working."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from skillopt_sleep.engine.state import LOG_FILE, ProjectState


def _state(tmp_path: Path, monkeypatch) -> ProjectState:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "home"))
    project = tmp_path / "proj"
    project.mkdir()
    state = ProjectState(project).ensure()
    state.logs_dir.mkdir(parents=True, exist_ok=True)
    return state


def test_small_log_is_left_alone(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    state = _state(tmp_path, monkeypatch)
    log = state.logs_dir / LOG_FILE
    log.write_bytes(b"night 1\n")
    assert state.rotate_night_log(max_bytes=100) is False
    assert log.read_bytes() == b"night 1\n"
    assert not log.with_name(f"{LOG_FILE}.1").exists()


def test_missing_log_is_fine(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert _state(tmp_path, monkeypatch).rotate_night_log(max_bytes=1) is False


def test_rotation_keeps_generations_and_an_open_append_handle(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    state = _state(tmp_path, monkeypatch)
    log = state.logs_dir / LOG_FILE
    for night in range(1, 6):
        with open(log, "ab") as shell_redirect:  # what `>> night.log` holds during a night
            shell_redirect.write(f"night {night} ".encode() + b"x" * 40 + b"\n")
            shell_redirect.flush()
            state.rotate_night_log(max_bytes=30, keep=3)
            shell_redirect.write(f"after rotation {night}\n".encode())
    assert log.read_bytes() == b"after rotation 5\n"
    generations = [log.with_name(f"{LOG_FILE}.{g}") for g in (1, 2, 3)]
    assert [p.read_bytes().splitlines()[-1][:7] for p in generations] == [
        b"night 5",
        b"night 4",
        b"night 3",
    ]
    assert not log.with_name(f"{LOG_FILE}.4").exists()
    assert stat.S_IMODE(os.stat(generations[0]).st_mode) == 0o600


def test_the_rotated_copy_is_private_while_it_is_written(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """It was made with the umask's mode (0644 under 022) and narrowed only after the copy."""
    import shutil

    state = _state(tmp_path, monkeypatch)
    log = state.logs_dir / LOG_FILE
    log.write_bytes(b"a secret-bearing night\n" * 10)
    modes: list[int] = []
    copy = shutil.copyfileobj

    def watched(src, dst, *args):  # type: ignore[no-untyped-def]
        modes.append(stat.S_IMODE(os.fstat(dst.fileno()).st_mode))
        return copy(src, dst, *args)

    def watched_file(src, dst, *args, **kwargs):  # type: ignore[no-untyped-def]
        with open(dst, "ab") as target:  # the old path: the copy as the umask made it
            modes.append(stat.S_IMODE(os.fstat(target.fileno()).st_mode))
        return dst

    monkeypatch.setattr(shutil, "copyfileobj", watched)
    monkeypatch.setattr(shutil, "copyfile", watched_file)
    old = os.umask(0o022)
    try:
        assert state.rotate_night_log(max_bytes=10) is True
    finally:
        os.umask(old)
    assert modes == [0o600]
