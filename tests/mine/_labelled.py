"""Set A's request texts and partition helpers for the miner's order/thread/BLAS tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SET_A = Path(__file__).resolve().parents[1] / "data" / "requests.jsonl"


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
