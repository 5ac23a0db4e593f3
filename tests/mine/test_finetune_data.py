"""The training-only labelled sets (``scripts/data``): well formed, as counted in their README,
independent of the scored sets A and B, and read by the recipe as the miner compares text."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from scripts import finetune_minilm as script
from skillopt_sleep.mine.families import compared_text

SCORED = [Path("tests/data/requests.jsonl"), Path("tests/data/requests_b.jsonl")]
COUNTS = {  # file stem -> (requests, families, one-offs), as scripts/data/README.md states
    "finetune_requests_t1": (423, 67, 71),
    "finetune_requests_t2": (404, 67, 79),
    "finetune_requests_t3": (410, 67, 72),
}
DOMAINS = {"coding", "research", "ops", "writing", "data"}


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


@pytest.mark.parametrize("stem", sorted(COUNTS))
def test_each_training_set_is_well_formed_and_as_counted(stem: str) -> None:
    rows = script.labelled_rows(script.WRITTEN / f"{stem}.jsonl")
    prefix = "t" + stem[-1] + "-"
    for row in rows:
        assert set(row) == {"id", "family", "domain", "text"}, row
        assert row["id"].startswith(prefix) and row["domain"] in DOMAINS, row
        assert row["family"] is None or re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", row["family"])
        assert row["text"].strip()
    assert len({row["id"] for row in rows}) == len(rows)
    sizes = Counter(row["family"] for row in rows if row["family"])
    one_offs = sum(1 for row in rows if not row["family"])
    assert (len(rows), len(sizes), one_offs) == COUNTS[stem]
    assert min(sizes.values()) >= 4 and one_offs >= 0.15 * len(rows)


def test_no_training_text_is_a_near_copy_of_a_scored_one() -> None:
    """Independent writers share everyday topics, never texts: no training request has 80% of
    its words in common (Jaccard) with any request of set A or B."""
    scored = [_words(json.loads(line)["text"]) for p in SCORED for line in p.open() if line.strip()]
    for row in script.written_rows():
        words = _words(row["text"])
        closest = max(len(words & s) / len(words | s) for s in scored)
        assert closest < 0.8, row["id"]


def test_written_families_stay_apart_by_file_and_the_recipe_trains_on_compared_text() -> None:
    written = script.written_rows()
    assert sum(len(script.labelled_rows(script.WRITTEN / f"{s}.jsonl")) for s in COUNTS) == len(
        written
    )
    families = {row["family"] for row in written if row["family"]}
    assert len(families) == sum(c[1] for c in COUNTS.values())
    assert all(f.split(":", 1)[0] in COUNTS for f in families)
    recipe = dataclasses.replace(script.Recipe(), set_a=False, written=True, masked=True)
    trained = script.training_rows(recipe)
    assert [r["text"] for r in trained] == [compared_text(r["text"]) for r in written]
    with_a = script.training_rows(dataclasses.replace(recipe, set_a=True, half=1))
    assert len(with_a) == len(written) + len(script.half_of(script.labelled_rows(), 1))
