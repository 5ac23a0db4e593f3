"""Requests -> family labels, with exactly the defaults a night uses.

``cluster_requests(texts)`` is the one public entry for evaluating the miner on labelled data: it
masks the texts (``masking``), embeds them with the chosen embedder, and clusters them at that
embedder's default threshold (and its ``leftovers`` rules, if it has any; see
``leftovers``), the same steps ``mine`` takes over the archive (which only adds the
embedding cache). A request that joins no other stays a family of one: it is a one-off, never
replayed on its own. A request with nothing left to compare once masked (a pasted secret alone,
"?!?!": ``masking.content``) is never embedded and is always a one-off; a night never even mines
it as a request (``candidates``).

The result does not depend on the order of ``texts``: rows are clustered in a canonical order (by
the hash of the compared text) and the labels are numbered by first appearance in the caller's
order. Identical (non-empty) compared texts always share a family.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from skillopt_sleep.mine.cluster import cluster_vectors
from skillopt_sleep.mine.embed import Embedder, create_embedder
from skillopt_sleep.mine.masking import content

# part of every embedding cache key: the compared text changed (v2: scripts without spaces)
MASK_VERSION = "mask-v2"


def compared_text(text: str) -> str:
    """What is embedded for ``text``: the masked text, "" when nothing is left to compare."""
    return content(text)


def canonical_order(texts: Sequence[str]) -> np.ndarray:
    """A permutation of ``texts`` that depends on their content only (sha256, then the text)."""
    keys = [(hashlib.sha256(t.encode()).hexdigest(), t) for t in texts]
    return np.array(sorted(range(len(texts)), key=keys.__getitem__), dtype=np.int64)


def label_families(
    vectors: Any,
    compared: Sequence[str],
    embedder: Embedder,
    threshold: float | None = None,
    *,
    scale_k: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """A family label per row of ``vectors`` (the embeddings of ``compared``), 0..k-1 in row order.
    ``progress``: ``cluster_vectors``'s."""
    n = len(compared)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    cut = embedder.default_threshold if threshold is None else threshold
    order = canonical_order(compared)
    found = cluster_vectors(
        vectors[order],
        embedder.similarity,
        cut,
        scale_k=scale_k,
        shortlist=embedder.shortlist,
        leftovers=getattr(embedder, "leftovers", None),
        progress=progress,
    )
    labels = np.empty(n, dtype=np.int64)
    labels[order] = found
    return _by_first_appearance(labels)


def _by_first_appearance(labels: np.ndarray) -> np.ndarray:
    """``labels`` renumbered 0..k-1 in the order each first appears."""
    _, first = np.unique(labels, return_index=True)
    rank = {int(labels[i]): r for r, i in enumerate(sorted(first))}
    return np.array([rank[int(label)] for label in labels], dtype=np.int64)


def cluster_requests(
    texts: Sequence[str],
    embedder: str | Embedder = "auto",
    *,
    model: str = "",
    threshold: float | None = None,
) -> list[int]:
    """A family label per request text, as a night would cluster them (see the module doc)."""
    chosen = create_embedder(embedder, model=model) if isinstance(embedder, str) else embedder
    compared = [compared_text(t) for t in texts]
    if not compared:
        return []
    labels = np.full(len(compared), -1, dtype=np.int64)
    kept = [i for i, text in enumerate(compared) if text]
    if kept:
        sub = [compared[i] for i in kept]
        labels[kept] = label_families(chosen.embed(sub), sub, chosen, threshold)
    alone = np.flatnonzero(labels < 0)  # nothing to compare: each its own one-off
    labels[alone] = labels.max() + 1 + np.arange(len(alone))
    return [int(x) for x in _by_first_appearance(labels)]
