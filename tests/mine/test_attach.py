"""Leftovers of the strict pass join a family only on the average evidence of its members."""

from __future__ import annotations

import numpy as np

from skillopt_sleep.mine.cluster import cluster_vectors
from skillopt_sleep.mine.leftovers import Leftovers, attach_bar

THRESHOLD, ATTACH = 0.5, 0.3
F, PAIR, G = [0, 1, 2, 3], [5, 6], [8, 9, 10, 11]


def _similarities() -> np.ndarray:
    s = np.full((14, 14), 0.1)
    for group in (F, PAIR, G):
        s[np.ix_(group, group)] = 0.8
    s[np.ix_(F, G)] = s[np.ix_(G, F)] = 0.45  # close families: above the attach bar, below t
    s[4, F] = s[F, 4] = 0.42  # a loosely worded member of F (bar for 4 members: 0.40)
    s[7, PAIR] = s[PAIR, 7] = 0.42  # as near to a pair (bar for 2 members: 0.44)
    s[12, F] = s[F, 12] = 0.42
    s[12, G] = s[G, 12] = 0.44  # nearer G than F: joins G
    np.fill_diagonal(s, 1.0)
    return s


def _cluster(attach: float | None, order: np.ndarray | None = None) -> list[set[int]]:
    rules = None if attach is None else Leftovers(attach=attach, pair=THRESHOLD, margin=1.0)
    s = _similarities()
    order = np.arange(len(s)) if order is None else order
    rows = order[:, None]
    labels = cluster_vectors(rows, lambda a, b: s[a[:, 0]][:, b[:, 0]], THRESHOLD, leftovers=rules)
    families: dict[int, set[int]] = {}
    for row, label in zip(order, labels, strict=True):
        families.setdefault(int(label), set()).add(int(row))
    return sorted((f for f in families.values() if len(f) > 1), key=min)


def test_bar_falls_with_family_size_towards_attach() -> None:
    bars = attach_bar(np.array([2, 4, 100]), THRESHOLD, ATTACH)
    assert list(bars) == [0.441, 0.4, 0.32]


def test_leftovers_attach_to_their_best_family_but_not_to_a_pair() -> None:
    assert _cluster(None) == [set(F), set(PAIR), set(G)]
    assert _cluster(ATTACH) == [{*F, 4}, set(PAIR), {*G, 12}]


def test_attachment_does_not_depend_on_row_order() -> None:
    expected = _cluster(ATTACH)
    rng = np.random.default_rng(3)
    for _ in range(5):
        assert _cluster(ATTACH, rng.permutation(14)) == expected


def test_attach_at_or_above_the_threshold_is_off() -> None:
    assert _cluster(THRESHOLD) == _cluster(None)


def _pairs(sims: dict[tuple[int, int], float], n: int = 8) -> list[set[int]]:
    s = np.full((n, n), 0.1)
    for (i, j), value in sims.items():
        s[i, j] = s[j, i] = value
    np.fill_diagonal(s, 1.0)
    rules = Leftovers(attach=THRESHOLD, pair=0.4, margin=0.1)
    labels = cluster_vectors(
        np.arange(n)[:, None], lambda a, b: s[a[:, 0]][:, b[:, 0]], THRESHOLD, leftovers=rules
    )
    return sorted((set(np.flatnonzero(labels == x)) for x in np.unique(labels)), key=min)


def test_mutual_nearest_leftovers_pair_when_they_stand_out() -> None:
    found = _pairs({(0, 1): 0.45, (2, 3): 0.45, (2, 4): 0.4, (5, 6): 0.38})
    assert {0, 1} in found  # mutual nearest, 0.35 clear of the runner-up
    assert {2, 3} not in found and {2, 4} not in found  # 2 is torn between 3 and 4
    assert {5, 6} not in found  # below the pair bar
