"""The archive's embedding cache: vectors for every archived request, encoding only new ones.

Only embedders whose encoding depends on the text alone are cached (``CachedEmbedder``). The
requests not cached are encoded and stored a chunk at a time, then every vector is stacked from
the archive as it is read, so a night never holds its encodings twice (at 20,000 requests the
blobs, the rows decoded from them and the stacked copy were 2 GB together).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from skillopt_sleep.mine.archive import Archive
from skillopt_sleep.mine.embed import CachedEmbedder, Embedder
from skillopt_sleep.mine.families import MASK_VERSION

Progress = Callable[[str, int, int], None]  # (step, done, total): "embed", "cluster", "families"


def quiet(step: str, done: int, total: int) -> None:
    """The ``Progress`` of a caller that follows none."""


def embed_with_cache(
    embedder: Embedder,
    hashes: Sequence[str],
    texts: Sequence[str],
    archive: Archive,
    progress: Progress = quiet,
) -> tuple[Any, int]:
    """Vectors for ``texts`` and how many were computed (the rest came from the archive cache);
    ``progress("embed", done, total)`` over the texts computed.

    ``hashes`` name the archived requests; ``texts`` are what is embedded for them (their
    compared text), so the cache key carries the masking version too."""
    if not isinstance(embedder, CachedEmbedder):
        progress("embed", 0, len(texts))
        vectors = embedder.embed(texts)
        progress("embed", len(texts), len(texts))
        return vectors, len(texts)
    key = f"{embedder.cache_key}|{MASK_VERSION}"
    try:
        return _cached(embedder, key, hashes, texts, archive, progress)
    except ValueError:
        # a damaged cache entry (disk error, interrupted write): the cache is only a cache
        archive.drop_embeddings(key)
        return _cached(embedder, key, hashes, texts, archive, progress)


def _cached(
    embedder: CachedEmbedder,
    key: str,
    hashes: Sequence[str],
    texts: Sequence[str],
    archive: Archive,
    progress: Progress,
) -> tuple[Any, int]:
    """Encode and store the texts not cached under ``key``, a chunk at a time, then stack every
    vector from the archive as it is read; ValueError when a cached encoding is damaged."""
    sizes = archive.embedding_sizes(hashes, key)
    missing = [i for i, h in enumerate(hashes) if h not in sizes]
    if missing:
        progress("embed", 0, len(missing))
        parts = embedder.encode_chunks(
            [texts[i] for i in missing], lambda done: progress("embed", done, len(missing))
        )
        done = 0
        for part in parts:
            named = (hashes[i] for i in missing[done : done + len(part)])
            fresh = dict(zip(named, part, strict=True))
            archive.put_embeddings(key, fresh, purge=done == 0)  # older encodings go at once
            sizes.update((h, len(blob)) for h, blob in fresh.items())
            done += len(part)
    stream = archive.embedding_stream(hashes, key)
    vectors = embedder.assemble_stream([sizes[h] for h in hashes], stream, texts)
    return vectors, len(missing)
