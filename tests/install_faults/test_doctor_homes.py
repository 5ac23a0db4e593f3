"""`doctor` counts the transcripts a night would read: with ``[homes]`` in the config (where a
night reads a harness's transcripts) it still counted the harness's default folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillopt_sleep.install.doctor import transcript_counts
from skillopt_sleep.install.layout import Homes
from tests.harvest._fixtures import FIXTURES, WEBAPP


def test_doctor_counts_the_configured_homes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "elsewhere" / ".claude"
    shutil.copytree(FIXTURES / ".claude", home)
    config = tmp_path / "config.toml"
    config.write_text(f"[homes]\nclaude = {json.dumps(str(home))}\n")
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(config))
    empty = Homes.from_env({}, home=tmp_path / "nobody")
    counts = transcript_counts(empty, Path(WEBAPP))
    found = sum(count for harness, (count, _) in counts.items() if "claude" in harness)
    assert found > 0
