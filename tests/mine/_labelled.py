"""Set A's request texts, a few shared requests, and partition and child-process helpers for the
miner's order/thread/BLAS tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

SET_A = Path(__file__).resolve().parents[1] / "data" / "requests.jsonl"
# two near-paraphrase pairs and a one-off
PAIRS = [
    "fix the failing login test in tests/test_auth.py",
    "the login test in tests/test_auth.py is failing again, please fix it",
    "summarize arXiv paper 2605.23904 for the reading group and give its arXiv id",
    "give me a summary of arXiv 2510.04618 with the id at the end",
    "add a --json flag to the export command",
]


def set_a_texts(n: int | None = None) -> list[str]:
    """The first ``n`` request texts of set A (the tuning set), or all of them."""
    rows = [json.loads(line) for line in SET_A.read_text().splitlines() if line.strip()]
    return [r["text"] for r in rows[:n]]


def set_a_families() -> tuple[list[str], np.ndarray]:
    """The texts of set A's recurring requests and their family names (one-offs left out)."""
    rows = [json.loads(line) for line in SET_A.read_text().splitlines() if line.strip()]
    kept = [r for r in rows if r["family"]]
    return [r["text"] for r in kept], np.array([r["family"] for r in kept])


def partition(labels: list[int]) -> set[frozenset[int]]:
    """The families as sets of row numbers: equal however the labels are numbered."""
    groups: dict[int, set[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, set()).add(i)
    return {frozenset(g) for g in groups.values()}


def unshuffle(labels: list[int], order: list[int]) -> list[int]:
    """Labels of rows clustered in ``order``, put back in the original row order."""
    back = [0] * len(order)
    for position, i in enumerate(order):
        back[i] = labels[position]
    return back


def json_from_child(
    code: str, texts: list[str], env_changes: dict[str, str | None], *args: str
) -> Any:
    """Run ``python -c code *args`` with ``texts`` as JSON on stdin, in this environment changed
    by ``env_changes`` (None unsets), and parse the JSON of its last output line."""
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
