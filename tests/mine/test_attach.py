"""Leftovers of the strict pass join a family only on the average evidence of its members."""

from __future__ import annotations

import numpy as np

from skillopt_sleep.mine.cluster import attach_bar, cluster_vectors

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
    s = _similarities()
    order = np.arange(len(s)) if order is None else order
    rows = order[:, None]
    labels = cluster_vectors(rows, lambda a, b: s[a[:, 0]][:, b[:, 0]], THRESHOLD, attach=attach)
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
