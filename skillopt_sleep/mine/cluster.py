"""Threshold clustering of request embeddings that scales to tens of thousands of requests.

Plain average-linkage agglomerative clustering needs the full n x n distance matrix (10,000
requests: 50 M pairs) and is quadratic in memory. Two requests can only end up in one
average-linkage cluster under threshold ``t`` if they are linked by pairs at similarity >= ``t``,
so we first build a sparse graph of each request's ``knn`` nearest neighbours above the threshold
(computed block by block, so memory stays at ``block x n``), split it into connected components,
and run exact average linkage inside each component only. A component larger than ``max_component``
(low thresholds on big archives chain into one) is split by raising the *edge* threshold inside it
step by step until its parts fit; the linkage threshold stays the configured one.

Average linkage rather than single linkage because a chain of near-paraphrases must not merge two
different tasks ("fix the login test" ~ "fix the signup test" ~ "write the signup docs"). The
benchmark compared this with HDBSCAN (``min_cluster_size=2``): HDBSCAN labels many genuine pairs
as noise, which costs exactly the small recurring families the miner exists to find.

Inside a component the linkage can run on *locally scaled* distances (self-tuning, after
Zelnik-Manor and Perona): ``d_ij = (1 - s_ij) / sqrt(r_i r_j)`` with ``r_i`` the distance to row i's
``scale_k``-th nearest neighbour, capped at ``1 - threshold``, cut at 1. It is off by default
(``scale_k = 0``: every ``r_i = 1 - threshold``, i.e. plain average linkage at ``threshold``): a
neighbour rank encodes the family sizes of the data it was tuned on, and on a first week of 30
requests the ``k``-th neighbour is another task altogether. An absolute threshold on a similarity
of the two texts (up to corpus idf weights) behaves alike for 30 requests and for 20,000.

Similarities are rounded to ``DECIMALS`` before linkage, so a merge decision does not flip with the
last bits of a BLAS kernel (``OPENBLAS_CORETYPE``, thread count); rows are clustered in the order
given, so callers that want order-independence pass a canonical order (``families.py`` does).

Requests the strict threshold leaves alone may get a second chance at looser bars that ask for
evidence of their own (``leftovers``: mutual-nearest pairs with a margin, attaching to a family
on the average over its members); off unless the caller passes ``leftovers``.

Similarities too costly to compute for every pair (MiniLM's token alignment) come with a
``shortlist``: each row's nearest neighbours are then scored exactly among a few candidates found
by a cheap proxy, and exact similarities are computed only inside components.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from skillopt_sleep.mine.leftovers import Leftovers

Similarity = Callable[[Any, Any], np.ndarray]
Shortlist = Callable[[Any, int], np.ndarray]  # (vectors, m) -> n x m candidate neighbour rows
Progress = Callable[[int, int], None]  # (done, total)
BLOCK = 1024
ROW_BLOCK_SCORES = 1 << 22  # scores of a block of rows against all rows held at once (16 MiB)
KNN = 30
SCALE_K = 0
DECIMALS = 3
MAX_COMPONENT = 2500
EDGE_STEP = 0.05
SHORTLIST_FACTOR = 3
SCORE_ROWS = 256  # rows whose shortlists one worker scores per message


def row_block(n: int) -> int:
    """Rows per block when each row is scored against all ``n``: at most ``BLOCK``, and few enough
    that a block's scores and their int64 ranking stay bounded as an archive grows to 20,000+."""
    return max(1, min(BLOCK, ROW_BLOCK_SCORES // max(n, 1)))


def nearest(
    vectors: Any,
    similarity: Similarity,
    k: int,
    shortlist: Shortlist | None = None,
    progress: Progress | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` most similar other rows and those similarities (``n x k`` each).

    Without a ``shortlist`` every pair is scored, block by block; with one, only each row's
    ``SHORTLIST_FACTOR * k`` shortlisted candidates are, for similarities too costly for all pairs.
    ``progress(rows done, n)`` after each block of rows."""
    n = vectors.shape[0]
    tick = progress or (lambda done, total: None)
    k = min(k, n - 1)
    top = np.zeros((n, max(k, 0)), dtype=np.int64)
    top_sims = np.zeros((n, max(k, 0)), dtype=np.float32)
    if k <= 0:
        return top, top_sims
    if shortlist is not None:
        candidates = shortlist(vectors, min(n - 1, SHORTLIST_FACTOR * k))
        _score_shortlists(vectors, similarity, candidates, top, top_sims, tick)
        return top, top_sims
    block = row_block(n)
    for start in range(0, n, block):
        stop = min(start + block, n)
        sims = similarity(vectors[start:stop], vectors)
        sims[np.arange(stop - start), np.arange(start, stop)] = -1.0
        best = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        top[start:stop] = best
        top_sims[start:stop] = np.take_along_axis(sims, best, axis=1)
        tick(stop, n)
    return top, top_sims


def _score_shortlists(
    vectors: Any,
    similarity: Similarity,
    candidates: np.ndarray,
    top: Any,
    top_sims: Any,
    tick: Progress,
) -> None:
    """Fill ``top``/``top_sims`` with each row's best among its candidates, scored exactly.

    Rows are independent, so blocks of them are scored in forked workers when there are many;
    BLAS runs on one thread in every path, so the figures are the same however many ran."""
    from threadpoolctl import threadpool_limits

    from skillopt_sleep import _forked

    n, k = top.shape

    def best_of(start: int) -> tuple[np.ndarray, np.ndarray]:
        stop = min(start + SCORE_ROWS, n)
        rows = np.empty((stop - start, k), dtype=np.int64)
        sims = np.empty((stop - start, k), dtype=np.float32)
        for at, i in enumerate(range(start, stop)):
            scored = similarity(vectors[i : i + 1], vectors[candidates[i]])[0]
            best = np.argpartition(-scored, k - 1)[:k]
            rows[at], sims[at] = candidates[i][best], scored[best]
        return rows, sims

    starts = range(0, n, SCORE_ROWS)
    with threadpool_limits(limits=1, user_api="blas"):
        for start, (rows, sims) in zip(starts, _forked.in_order(best_of, starts), strict=True):
            top[start : start + len(rows)] = rows
            top_sims[start : start + len(rows)] = sims
            tick(start + len(rows), n)


def neighbour_graph(
    vectors: Any,
    similarity: Similarity,
    threshold: float,
    knn: int = KNN,
    scale_k: int = SCALE_K,
    shortlist: Shortlist | None = None,
) -> tuple[Any, np.ndarray]:
    """Sparse symmetric graph (an edge i-j when j is among i's ``knn`` most similar and sim >= t)
    and each row's similarity to its ``scale_k``-th nearest neighbour (0 without neighbours)."""
    return _graph(*nearest(vectors, similarity, knn, shortlist), threshold, scale_k)


def _graph(
    top: np.ndarray, top_sims: np.ndarray, threshold: float, scale_k: int
) -> tuple[Any, np.ndarray]:
    """``neighbour_graph`` from each row's nearest neighbours (``nearest``'s output)."""
    from scipy.sparse import coo_matrix

    n = top.shape[0]
    kth = np.zeros(n, dtype=np.float64)
    k = top.shape[1]
    if k == 0:
        return coo_matrix((n, n), dtype=np.float32).tocsr(), kth
    s = min(scale_k, k) - 1
    kth[:] = -np.partition(-top_sims, s, axis=1)[:, s]
    keep = np.round(top_sims, DECIMALS) >= round(threshold, DECIMALS)
    rows = np.repeat(np.arange(n), k).reshape(n, k)
    graph = coo_matrix(
        (top_sims[keep], (rows[keep], top[keep])), shape=(n, n), dtype=np.float32
    ).tocsr()
    return graph.maximum(graph.T), kth


def _scaled_average_linkage(sims: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Average linkage on ``(1 - s_ij) / sqrt(r_i r_j)``, cut at 1."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    sims = np.round(sims.astype(np.float64), DECIMALS)
    distances = np.clip(1.0 - sims, 0.0, 2.0) / np.sqrt(np.outer(radii, radii))
    np.fill_diagonal(distances, 0.0)
    distances = (distances + distances.T) / 2.0
    tree = linkage(squareform(distances, checks=False), method="average")
    return np.asarray(fcluster(tree, t=1.0, criterion="distance"), dtype=np.int64)


def cluster_vectors(
    vectors: Any,
    similarity: Similarity,
    threshold: float,
    *,
    knn: int = KNN,
    max_component: int = MAX_COMPONENT,
    scale_k: int = SCALE_K,
    shortlist: Shortlist | None = None,
    leftovers: Leftovers | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """A label per row; rows sharing a label are one family. Labels are 0..k-1 in first-row order.

    ``threshold`` is the loosest similarity at which two groups may merge (plain average linkage);
    the local scale of each row's ``scale_k`` nearest neighbours makes merges stricter where
    requests are densely packed. ``shortlist`` (see ``nearest``) avoids scoring every pair.
    ``leftovers`` (None for off) gives rows left alone a second chance (``leftovers`` module).
    ``progress(done, n + 1)``: rows whose neighbours are scored, then one step for the linkage
    and the second chances."""
    n = vectors.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    tick = progress or (lambda done, total: None)
    labels = np.full(n, -1, dtype=np.int64)
    top, top_sims = nearest(vectors, similarity, knn, shortlist, lambda done, _: tick(done, n + 1))
    graph, kth = _graph(top, top_sims, threshold, max(scale_k, 1))
    radii = np.clip(1.0 - kth, 1e-3, 1.0 - threshold)
    if scale_k <= 0:
        radii[:] = 1.0 - threshold
    _cluster_into(
        labels, np.arange(n), graph, vectors, similarity, radii, threshold, threshold, max_component
    )
    if leftovers is not None:
        from skillopt_sleep.mine.leftovers import second_chances

        second_chances(labels, top, top_sims, vectors, similarity, threshold, leftovers)
    tick(n + 1, n + 1)
    return _renumber(labels)


def _cluster_into(
    labels: np.ndarray,
    rows: np.ndarray,
    graph: Any,
    vectors: Any,
    similarity: Similarity,
    radii: np.ndarray,
    threshold: float,
    edge_threshold: float,
    max_component: int,
    next_label: int = 0,
) -> int:
    """Label ``rows`` from ``next_label`` on; a component too big for exact linkage is split by
    raising the edge threshold inside it (the linkage threshold itself never changes)."""
    from scipy.sparse.csgraph import connected_components

    sub_graph = graph[rows][:, rows]
    if edge_threshold > threshold:
        sub_graph = sub_graph.multiply(sub_graph >= edge_threshold)
    _, components = connected_components(sub_graph, directed=False)
    order = np.argsort(components, kind="stable")
    boundaries = np.flatnonzero(np.diff(components[order])) + 1
    for local in np.split(order, boundaries):
        members = rows[local]
        if len(members) == 1:
            labels[members] = next_label
            next_label += 1
        elif len(members) > max_component and edge_threshold < 0.99:
            next_label = _cluster_into(
                labels,
                members,
                graph,
                vectors,
                similarity,
                radii,
                threshold,
                min(0.99, edge_threshold + EDGE_STEP),
                max_component,
                next_label,
            )
        else:
            sub = vectors[members]
            found = _scaled_average_linkage(similarity(sub, sub), radii[members])
            labels[members] = next_label + found - 1
            next_label += int(found.max())
    return next_label


def _renumber(labels: np.ndarray) -> np.ndarray:
    """Labels in order of first appearance, so output is deterministic and readable."""
    _, first = np.unique(labels, return_index=True)
    mapping = {labels[i]: rank for rank, i in enumerate(sorted(first))}
    return np.array([mapping[label] for label in labels], dtype=np.int64)
