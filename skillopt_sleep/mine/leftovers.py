"""Second chances for requests the strict clustering pass left alone.

A strict threshold keeps near-miss tasks apart ("write the PR description" / "write the changelog
line") but leaves loosely worded members of a family on their own. Two rules give such a leftover
a second chance, each at a looser bar than the threshold and each demanding evidence the strict
pass does not use:

- **pairing**: two leftovers that are each other's nearest request, at a similarity of at least
  ``pair``, form a family when each is nearer to the other than to its second-nearest request by
  at least ``margin``. A near-miss request has two candidates at similar distances and fails the
  margin; a loosely worded repeat of a task stands out from the rest. This is what a first week
  (30 requests, mostly pairs) needs.
- **attaching**: a leftover joins the family of ``m >= 2`` members it is nearest to when its
  average similarity to them reaches ``attach + (threshold - attach) / sqrt(m)``. An average over
  ``m`` pairs is a less noisy estimate than one pair's similarity, so the bar falls towards
  ``attach`` as the family grows, while a pair still needs nearly the strict threshold.

Two families of the strict pass never merge (that is where near-miss tasks meet), and both rules
are decided against the labels of the strict pass (attachments after pairing), so no second
chance depends on another. Everything is read from each row's nearest neighbours, which the
clustering computed anyway; attaching scores a leftover exactly against the few families among
them. On set A each rule raised ARI at every archive size, on each half of its families, at about
the purity of the strict pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skillopt_sleep.mine.cluster import DECIMALS, Similarity


@dataclass(frozen=True)
class Leftovers:
    """Bars for the second chances (all below the clustering threshold to have any effect)."""

    attach: float  # the attach bar for a family of unbounded size
    pair: float  # the least similarity of a mutual-nearest pair
    margin: float  # how much nearer each of a pair must be to the other than to its runner-up


def attach_bar(size: np.ndarray | int, threshold: float, attach: float) -> np.ndarray:
    """The average similarity a leftover needs to join a family of ``size`` members."""
    bar = attach + (threshold - attach) / np.sqrt(np.asarray(size, dtype=np.float64))
    return np.asarray(np.round(bar, DECIMALS))


def pair_leftovers(
    labels: np.ndarray, top: np.ndarray, top_sims: np.ndarray, pair: float, margin: float
) -> None:
    """Give, in place, each mutual-nearest pair of leftovers that clears ``pair`` and ``margin``
    one label (the lower of the two)."""
    if top.shape[1] < 2:
        return
    sims = np.round(top_sims.astype(np.float64), DECIMALS)
    order = np.lexsort((top, -sims), axis=1)  # most similar first; ties by row index
    first = np.take_along_axis(top, order[:, :1], axis=1)[:, 0]
    best = np.take_along_axis(sims, order[:, :2], axis=1)
    clear = (best[:, 0] >= round(pair, DECIMALS)) & (
        np.round(best[:, 0] - best[:, 1], DECIMALS) >= round(margin, DECIMALS)
    )
    alone = np.bincount(labels)[labels] == 1
    start = labels.copy()
    for i in np.flatnonzero(alone & clear):
        j = first[i]
        if i < j and alone[j] and clear[j] and first[j] == i:
            labels[i] = labels[j] = min(start[i], start[j])


def attach_leftovers(
    labels: np.ndarray,
    top: np.ndarray,
    top_sims: np.ndarray,
    vectors: Any,
    similarity: Similarity,
    threshold: float,
    attach: float,
) -> None:
    """Relabel, in place, each row left alone that clears ``attach_bar`` for a family among its
    nearest neighbours' (the best such family; the lowest label on a tie). Families are those of
    ``labels`` as given, so one attachment never enables another."""
    sizes = np.bincount(labels)
    alone = np.flatnonzero(sizes[labels] == 1)
    floor = round(attach, DECIMALS)
    moves: list[tuple[int, int]] = []
    for i in alone:
        near = top[i][np.round(top_sims[i], DECIMALS) >= floor]
        candidates = np.unique(labels[near])
        candidates = candidates[sizes[candidates] >= 2]
        if len(candidates) == 0:
            continue
        members = np.flatnonzero(np.isin(labels, candidates))
        sims = np.round(
            similarity(vectors[i : i + 1], vectors[members])[0].astype(np.float64), DECIMALS
        )
        owner = np.searchsorted(candidates, labels[members])
        means = np.bincount(owner, weights=sims, minlength=len(candidates)) / sizes[candidates]
        bar = attach_bar(sizes[candidates], threshold, attach)
        margin = np.round(np.round(means, DECIMALS) - bar, DECIMALS)
        best = int(np.argmax(margin))
        if margin[best] >= 0:
            moves.append((int(i), int(candidates[best])))
    for row, family in moves:
        labels[row] = family


def second_chances(
    labels: np.ndarray,
    top: np.ndarray,
    top_sims: np.ndarray,
    vectors: Any,
    similarity: Similarity,
    threshold: float,
    rules: Leftovers,
) -> None:
    """Pairing, then attaching (see the module doc), in place; a bar at or above ``threshold``
    is off."""
    if rules.pair < threshold:
        pair_leftovers(labels, top, top_sims, rules.pair, rules.margin)
    if rules.attach < threshold:
        attach_leftovers(labels, top, top_sims, vectors, similarity, threshold, rules.attach)
