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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Similarity = Callable[[Any, Any], np.ndarray]
BLOCK = 1024
KNN = 30
MAX_COMPONENT = 2500
EDGE_STEP = 0.05


def _rows(matrix: Any, start: int, stop: int) -> Any:
    return matrix[start:stop]


def neighbour_graph(vectors: Any, similarity: Similarity, threshold: float, knn: int = KNN) -> Any:
    """Sparse symmetric graph: an edge i-j when j is among i's ``knn`` most similar and sim >= t."""
    from scipy.sparse import coo_matrix

    n = vectors.shape[0]
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        sims = similarity(_rows(vectors, start, stop), vectors)
        sims[np.arange(stop - start), np.arange(start, stop)] = -1.0
        k = min(knn, n - 1)
        if k <= 0:
            break
        top = (
            np.argpartition(-sims, k - 1, axis=1)[:, :k]
            if k < n
            else np.argsort(-sims, axis=1)[:, :k]
        )
        top_sims = np.take_along_axis(sims, top, axis=1)
        keep = top_sims >= threshold
        block_rows = np.repeat(np.arange(start, stop), k).reshape(stop - start, k)
        rows.append(block_rows[keep])
        cols.append(top[keep])
        vals.append(top_sims[keep])
    if not rows:
        return coo_matrix((n, n), dtype=np.float32).tocsr()
    graph = coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n, n),
        dtype=np.float32,
    ).tocsr()
    return graph.maximum(graph.T)


def _average_linkage(sims: np.ndarray, threshold: float) -> np.ndarray:
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    distances = np.clip(1.0 - sims.astype(np.float64), 0.0, 2.0)
    np.fill_diagonal(distances, 0.0)
    distances = (distances + distances.T) / 2.0
    tree = linkage(squareform(distances, checks=False), method="average")
    return fcluster(tree, t=1.0 - threshold, criterion="distance")


def cluster_vectors(
    vectors: Any,
    similarity: Similarity,
    threshold: float,
    *,
    knn: int = KNN,
    max_component: int = MAX_COMPONENT,
) -> np.ndarray:
    """A label per row; rows sharing a label are one family. Labels are 0..k-1 in first-row order."""
    n = vectors.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    labels = np.full(n, -1, dtype=np.int64)
    graph = neighbour_graph(vectors, similarity, threshold, knn)
    _cluster_into(
        labels, np.arange(n), graph, vectors, similarity, threshold, threshold, max_component, 0
    )
    return _renumber(labels)


def _cluster_into(
    labels: np.ndarray,
    rows: np.ndarray,
    graph: Any,
    vectors: Any,
    similarity: Similarity,
    threshold: float,
    edge_threshold: float,
    max_component: int,
    next_label: int,
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
        if len(members) <= 2:
            labels[members] = next_label
            next_label += 1
        elif len(members) > max_component and edge_threshold < 0.99:
            next_label = _cluster_into(
                labels,
                members,
                graph,
                vectors,
                similarity,
                threshold,
                min(0.99, edge_threshold + EDGE_STEP),
                max_component,
                next_label,
            )
        else:
            sub = vectors[members]
            found = _average_linkage(similarity(sub, sub), threshold)
            labels[members] = next_label + found - 1
            next_label += int(found.max())
    return next_label


def _renumber(labels: np.ndarray) -> np.ndarray:
    """Labels in order of first appearance, so output is deterministic and readable."""
    _, first = np.unique(labels, return_index=True)
    mapping = {labels[i]: rank for rank, i in enumerate(sorted(first))}
    return np.array([mapping[label] for label in labels], dtype=np.int64)
