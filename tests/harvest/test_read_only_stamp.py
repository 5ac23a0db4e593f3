"""A run that records nothing does not hash the head of every file it reads: the hash only
tells a later read whether it may resume where this one stopped, and such a run keeps no
position. A recording run still stamps every file, so its next run resumes or starts over."""

from __future__ import annotations

from pathlib import Path

import pytest

from harvest._fixtures import WEBAPP, copy_homes
from skillopt_sleep.harvest import _lines, _reading
from skillopt_sleep.harvest._lines import stat_id
from skillopt_sleep.harvest._reading import ReadJob, read_all
from skillopt_sleep.harvest._registry import HarvestConfig
from skillopt_sleep.harvest.claude import ClaudeSource


def _jobs(home: Path) -> list[ReadJob]:
    paths = sorted(home.glob("projects/*/*.jsonl"))
    assert paths
    return [ReadJob(str(p), stat_id(p), 0, None, False) for p in paths]


@pytest.mark.parametrize("workers", [0, 2], ids=["in-process", "forked"])
@pytest.mark.parametrize("record", [True, False])
def test_only_a_recording_read_hashes_file_heads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: bool, workers: int
) -> None:
    monkeypatch.setattr(_reading, "_parallel", lambda groups: workers)
    home = copy_homes(tmp_path)["claude"]
    hashed: list[int] = []
    real = _lines.with_head

    def counting(*args: object, **kwargs: object) -> _lines.FileId:
        hashed.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_reading, "with_head", counting)
    jobs = _jobs(home)
    config = HarvestConfig(Path(WEBAPP))
    outcomes = [o for _, o in read_all([(ClaudeSource(), jobs)], config, keep_states=record)]
    assert len(outcomes) == len(jobs)
    for outcome in outcomes:
        assert not outcome.error and outcome.stamped is not None
        fid = outcome.job.fid
        assert (outcome.stamped.dev, outcome.stamped.ino, outcome.stamped.size) == (
            fid.dev,
            fid.ino,
            fid.size,
        )
        assert bool(outcome.stamped.head_hash) is record
        assert outcome.stamped.head_len == (min(outcome.offset, _lines.HEAD_BYTES) if record else 0)
    if not workers:  # forked workers count in their own memory
        assert len(hashed) == (len(jobs) if record else 0)
