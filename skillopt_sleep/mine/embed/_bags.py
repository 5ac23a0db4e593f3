"""Bags of contextual token vectors, compared by idf-weighted soft token alignment.

Mean-pooling a sentence encoder's tokens into one vector blurs the few words that tell two
similar requests apart ("summarise this arXiv paper" vs "find papers related to this one").
Instead each request keeps its token vectors, and two requests are compared the way BERTScore
compares sentences: every token of one is matched to its most similar token of the other, and
the matches are averaged with inverse-document-frequency weights (raised to ``IDF_POWER``, so rare
words dominate and filler like "can you please" barely counts). Recall (a's tokens found in b)
and precision (b's tokens found in a) are combined by their harmonic mean, which is symmetric.

The per-request part (token ids and unit token vectors) depends on that request alone and is what
the archive caches; the idf weights depend on the corpus and are recomputed whenever bags are
stacked, like TF-IDF's. ``pooled`` (the mean of a bag's token vectors) is a cheap dense stand-in
used only to shortlist neighbours before they are scored exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skillopt_sleep.mine.cluster import row_block

IDF_POWER = 2.0
BLOCK_ENTRIES = 1 << 23  # token-pair similarities held at once (32 MiB of float32)
_HEADER = np.dtype("<u4")


@dataclass(frozen=True)
class TokenRow:
    """One request: vocabulary ids and unit-length contextual vectors of its tokens."""

    ids: np.ndarray  # (t,) int32
    vectors: np.ndarray  # (t, d) float16

    def to_bytes(self) -> bytes:
        count = np.array([len(self.ids), self.vectors.shape[1]], dtype=_HEADER)
        return (
            count.tobytes()
            + self.ids.astype("<i4").tobytes()
            + self.vectors.astype("<f2").tobytes()
        )

    @classmethod
    def from_bytes(cls, blob: bytes) -> TokenRow:
        """Decode ``to_bytes`` output; ValueError when the blob is truncated or malformed."""
        if len(blob) < 2 * _HEADER.itemsize:
            raise ValueError("token row blob is truncated")
        tokens, dim = (int(x) for x in np.frombuffer(blob, dtype=_HEADER, count=2))
        start = 2 * _HEADER.itemsize
        if tokens == 0 or dim == 0 or len(blob) != start + 4 * tokens + 2 * tokens * dim:
            raise ValueError(f"token row blob has {len(blob)} bytes, not {tokens} x {dim} tokens")
        ids = np.frombuffer(blob, dtype="<i4", count=tokens, offset=start)
        vectors = np.frombuffer(blob, dtype="<f2", count=tokens * dim, offset=start + 4 * tokens)
        return cls(ids.astype(np.int32), vectors.reshape(tokens, dim))


@dataclass(frozen=True)
class TokenBags:
    """Token bags of ``n`` requests, with corpus idf weights; row-indexable like an array."""

    vectors: np.ndarray  # (T, d) float16 as cached, unit rows (widened a part at a time)
    weights: np.ndarray  # (T,) float32 idf ** power (never all zero within a bag)
    offsets: np.ndarray  # (n + 1,) int64; bag i is vectors[offsets[i]:offsets[i + 1]]
    pooled: np.ndarray  # (n, d) float32, unit rows

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.offsets) - 1, self.vectors.shape[1])

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: Any) -> TokenBags:
        if isinstance(index, slice) and index.step in (None, 1):
            start, stop, _ = index.indices(len(self))
            stop = max(start, stop)
            lo, hi = self.offsets[start], self.offsets[stop]
            return TokenBags(
                self.vectors[lo:hi],
                self.weights[lo:hi],
                self.offsets[start : stop + 1] - lo,
                self.pooled[start:stop],
            )
        rows = np.atleast_1d(np.arange(len(self))[index])
        lengths = np.diff(self.offsets)[rows]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        take = np.repeat(self.offsets[rows] - offsets[:-1], lengths) + np.arange(offsets[-1])
        return TokenBags(self.vectors[take], self.weights[take], offsets, self.pooled[rows])


def stack_rows(rows: Sequence[TokenRow], power: float = IDF_POWER, dim: int = 384) -> TokenBags:
    """Bags for ``rows`` with idf weights from these rows: ``log((n + 1) / (df + 1)) ** power``."""
    if not rows:
        empty = np.zeros((0, dim), dtype=np.float32)
        return TokenBags(empty, np.zeros(0, np.float32), np.zeros(1, np.int64), empty)
    ids = np.concatenate([r.ids for r in rows]).astype(np.int64)
    vectors = np.concatenate([r.vectors for r in rows]).astype(np.float16, copy=False)
    offsets = np.concatenate([[0], np.cumsum([len(r.ids) for r in rows])]).astype(np.int64)
    return _weighted(ids, vectors, offsets, power)


def stack_blobs(
    sizes: Sequence[int], blobs: Iterable[bytes], power: float = IDF_POWER
) -> TokenBags:
    """``stack_rows`` of the rows in ``blobs`` (``TokenRow.to_bytes``, in order; ``sizes``: each
    one's length), each copied into place as it comes: the blobs of a whole archive are never
    held at once, nor beside the stacked copy. ValueError when a blob is damaged or missing."""
    if not sizes:
        return stack_rows([], power)
    stream = iter(blobs)
    first = next(stream, b"")
    if len(first) < 2 * _HEADER.itemsize:
        raise ValueError("token row blob is truncated")
    dim = int(np.frombuffer(first, dtype=_HEADER, count=2)[1])
    spare = sum(sizes) - 2 * _HEADER.itemsize * len(sizes)
    if dim == 0 or spare % (4 + 2 * dim):
        raise ValueError("token row blobs do not add up to whole tokens")
    total = spare // (4 + 2 * dim)
    ids = np.empty(total, dtype=np.int64)
    vectors = np.empty((total, dim), dtype=np.float16)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    for i, blob in enumerate(itertools.chain([first], stream)):
        if i >= len(sizes) or len(blob) != sizes[i]:
            raise ValueError("a token row blob is not the size its archive row says")
        row = TokenRow.from_bytes(blob)
        at, tokens = int(offsets[i]), len(row.ids)
        if row.vectors.shape[1] != dim:
            raise ValueError("token row blobs of different widths")
        ids[at : at + tokens] = row.ids
        vectors[at : at + tokens] = row.vectors
        offsets[i + 1] = at + tokens
    if i + 1 != len(sizes):
        raise ValueError("fewer token row blobs than sizes")
    return _weighted(ids, vectors, offsets, power)


def _weighted(ids: np.ndarray, vectors: np.ndarray, offsets: np.ndarray, power: float) -> TokenBags:
    """Bags of stacked rows: idf weights from their token ids, pooled vectors."""
    count = len(offsets) - 1
    owner = np.repeat(np.arange(count), np.diff(offsets))
    pairs = np.unique(np.stack([ids, owner]), axis=1)
    vocab, df = np.unique(pairs[0], return_counts=True)
    idf = np.log((count + 1) / (df + 1.0))
    weights = (idf[np.searchsorted(vocab, ids)] ** power + 1e-6).astype(np.float32)
    sums = _bag_sums(vectors, offsets)
    pooled = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return TokenBags(vectors, weights, offsets, pooled.astype(np.float32))


def _bag_sums(vectors: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each bag's float32 sum of its token vectors, a block of bags at a time.

    ``reduceat`` with a wider ``dtype`` first widens its whole input: for the whole archive that
    was a float32 copy of every token vector (twice the cache, 0.9 GB at 20,000 requests). Each
    bag is summed by the same ``reduceat`` either way, so the sums are the same bits."""
    sums = np.empty((len(offsets) - 1, vectors.shape[1]), dtype=np.float32)
    for part in _ranges(offsets, BLOCK_ENTRIES // max(vectors.shape[1], 1)):
        lo, hi = offsets[part.start], offsets[part.stop]
        sums[part] = np.add.reduceat(
            vectors[lo:hi], offsets[part.start : part.stop] - lo, axis=0, dtype=np.float32
        )
    return sums


def _block(a: TokenBags, b: TokenBags) -> np.ndarray:
    """F1 of idf-weighted best-match recall (a's tokens in b) and precision (b's tokens in a)."""
    pairs = a.vectors @ b.vectors.T
    a_best = np.maximum.reduceat(pairs, b.offsets[:-1], axis=1)  # a token x b bag
    b_best = np.stack(  # a bag x b token; a's bags are few, so a loop beats reduceat here
        [pairs[lo:hi].max(axis=0) for lo, hi in zip(a.offsets[:-1], a.offsets[1:], strict=True)]
    )
    recall = np.add.reduceat(a_best * a.weights[:, None], a.offsets[:-1], axis=0)
    recall /= np.add.reduceat(a.weights, a.offsets[:-1])[:, None]
    precision = np.add.reduceat(b_best * b.weights[None, :], b.offsets[:-1], axis=1)
    precision /= np.add.reduceat(b.weights, b.offsets[:-1])[None, :]
    recall = np.clip(recall, 0.0, 1.0)
    precision = np.clip(precision, 0.0, 1.0)
    return np.asarray(2.0 * recall * precision / np.maximum(recall + precision, 1e-12))


def _chunks(bags: TokenBags, entries: int, start: int = 0) -> list[slice]:
    """Consecutive bag ranges from ``start`` holding about ``entries`` tokens each (>= one bag)."""
    return _ranges(bags.offsets, entries, start)


def _ranges(offsets: np.ndarray, entries: int, start: int = 0) -> list[slice]:
    """``_chunks`` over bag ``offsets`` alone."""
    out: list[slice] = []
    n = len(offsets) - 1
    while start < n:
        limit = offsets[start] + max(entries, 1)
        stop = max(start + 1, int(np.searchsorted(offsets, limit, side="right")) - 1)
        out.append(slice(start, min(stop, n)))
        start = min(stop, n)
    return out


# every float16 bit pattern's float32 value: a table lookup widens a third faster than astype
HALF_TO_SINGLE = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)


def _scored(bags: TokenBags) -> TokenBags:
    """``bags`` with float32 token vectors (exact: every float16 is a float32), for BLAS."""
    if bags.vectors.dtype == np.float32:
        return bags
    wide = np.take(HALF_TO_SINGLE, bags.vectors.view(np.uint16))
    return TokenBags(wide, bags.weights, bags.offsets, bags.pooled)


def bag_similarity(a: TokenBags, b: TokenBags, block_entries: int = BLOCK_ENTRIES) -> np.ndarray:
    """Dense ``len(a) x len(b)`` soft-alignment F1 in [0, 1], with bounded working memory.

    The score is symmetric, so ``bag_similarity(x, x)`` scores each pair of blocks once."""
    out = np.zeros((len(a), len(b)), dtype=np.float32)
    if len(a) == 0 or len(b) == 0:
        return out
    symmetric = a is b
    a = _scored(a)  # per call: a night scores parts (components, candidates), not the archive
    b = a if symmetric else _scored(b)
    b_budget = max(block_entries // 64, 1)
    a_budget = max(block_entries // max(min(len(b.vectors), b_budget), 1), 1)
    b_parts = _chunks(b, b_budget)
    for a_part in _chunks(a, a_budget):
        a_sub = a[a_part]
        for b_part in _chunks(b, b_budget, a_part.start) if symmetric else b_parts:
            block = _block(a_sub, b[b_part])
            out[a_part, b_part] = block
            if symmetric:
                out[b_part, a_part] = block.T
    return out


def blended_similarity(a: TokenBags, b: TokenBags) -> np.ndarray:
    """The mean of soft-alignment F1 and pooled-vector cosine (clipped to [0, 1])."""
    pooled = np.clip(a.pooled @ b.pooled.T, 0.0, 1.0)
    return np.asarray((bag_similarity(a, b) + pooled) / 2.0, dtype=np.float32)


def pooled_shortlist(bags: TokenBags, k: int, block: int = 0) -> np.ndarray:
    """For each bag, the ``k`` other bags with the most similar pooled vectors (``n x k``).

    A cheap pre-filter: exact alignment scores are then computed only for these candidates."""
    n = len(bags)
    k = min(k, n - 1)
    if k <= 0:
        return np.zeros((n, 0), dtype=np.int64)
    out = np.empty((n, k), dtype=np.int64)
    block = block or row_block(n)
    for start in range(0, n, block):
        stop = min(start + block, n)
        sims = bags.pooled[start:stop] @ bags.pooled.T
        sims[np.arange(stop - start), np.arange(start, stop)] = -np.inf
        out[start:stop] = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    return out
