"""Stage tests: state under the test's temp dir, and a user skill to stage proposals over.

``skill`` is ``proj/.claude/skills/s/SKILL.md`` holding ``old``; a module whose skill starts
from another text parametrizes ``old`` (``pytestmark = pytest.mark.parametrize("old", [...])``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._isolation import isolate_sleep_state

OLD = b"---\nname: s\ndescription: s things\n---\nold\n"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)


@pytest.fixture
def old() -> bytes:
    """The text the user's skill holds before any proposal."""
    return OLD


@pytest.fixture
def skill(tmp_path: Path, old: bytes) -> Path:
    path = tmp_path / "proj" / ".claude" / "skills" / "s" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(old)
    return path
