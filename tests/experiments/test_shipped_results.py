"""The shipped sweep rows are what the code gives today.

README's table and ``report.md`` are built from ``experiments/results/results.jsonl``, and the
sweep reuses the rows it finds there, so a change that moves a run leaves them stale without a
sign: after the night began capping validation by ``max_tasks`` (7af66a8), ``writer|mining|0``
gave 70.8% where the file said 79.2%. Two rows run again here: the README's headline run and the
one that went stale. Tokens are left out (they count the world's folder path, so they follow
TMPDIR).
"""

from __future__ import annotations

import pytest

from experiments.results_file import read_rows
from experiments.sweep import RESULTS, Job, run_job

STALE = (
    "shipped row {key} is stale: rebuild the rows with `TMPDIR=/tmp python -m experiments.sweep "
    "--out /tmp/fresh --workers 2`, copy /tmp/fresh/* into experiments/results/ and update "
    "README's Experiments numbers"
)


@pytest.mark.parametrize("key", ["researcher|none|0|4", "writer|mining|0|4"])
def test_a_shipped_row_is_what_the_run_gives_today(key: str) -> None:
    shipped = read_rows(RESULTS / "results.jsonl").rows[key]
    persona, ablation, seed, nights = key.split("|")
    fresh = run_job(Job(persona, ablation, int(seed), int(nights)))
    del shipped["tokens"], fresh["tokens"]
    assert fresh == shipped, STALE.format(key=key)
