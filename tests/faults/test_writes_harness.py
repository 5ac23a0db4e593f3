"""The write counter the fault sweeps rely on sees writes made through :mod:`pathlib` as well as
through :mod:`os` and ``open``: Python 3.10's pathlib calls them through an accessor that
captured ``os.unlink``, ``os.mkdir``, ``io.open``... at import, so a counter patching only
``os`` missed every ``Path.unlink``/``mkdir``/``rename``/``write_text`` there (and the sweeps
tested fewer points than they said, or none of a kind)."""

from __future__ import annotations

from pathlib import Path

import pytest

from faults.test_every_write_night import Writes


def test_pathlib_writes_are_counted(tmp_path: Path) -> None:
    folder, first, second = tmp_path / "d", tmp_path / "d" / "a.txt", tmp_path / "d" / "b.txt"
    with Writes(tmp_path) as writes:
        folder.mkdir()
        first.write_text("x", encoding="utf-8")
        first.rename(second)
        second.replace(first)
        first.unlink()
        folder.rmdir()
    ops = [(p.op, Path(p.path).name) for p in writes.points]
    assert ("os.mkdir", "d") in ops
    assert ("open(w)", "a.txt") in ops
    assert ("os.rename", "b.txt") in ops
    assert ("os.replace", "a.txt") in ops
    assert ("os.unlink", "a.txt") in ops
    assert ("os.rmdir", "d") in ops


def test_a_pathlib_write_can_be_failed(tmp_path: Path) -> None:
    target = tmp_path / "gone.txt"
    target.write_text("x", encoding="utf-8")
    with Writes(tmp_path, fail_at=1) as writes, pytest.raises(OSError):
        target.unlink()
    assert writes.failed is not None and writes.failed.op == "os.unlink"
    assert target.exists()
