"""Mining a long history: recall is scored only for the tasks a night asks about (scoring every
pair of training tasks up front was hours on a year of history), every long step reports
progress, and the archive's encodings are stacked as they are read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import skillopt_sleep.mine.pipeline as pipeline
import skillopt_sleep.mine.recall as recall
from mine._sessions import session
from skillopt_sleep.mine import MineConfig, mine
from skillopt_sleep.mine.archive import Archive
from skillopt_sleep.mine.embed import create_embedder
from skillopt_sleep.mine.embed._bags import TokenRow, stack_rows
from skillopt_sleep.mine.recall import RecallItem, recall_k
from skillopt_sleep.records import Session


def _history(count: int = 40) -> list[Session]:
    """One recurring task asked ``count`` times with a new paper id, every third one corrected."""
    return [
        session(
            f"s{n:03d}",
            "/home/dev/reading",
            [f"summarize arXiv paper 2401.{10000 + n} for the reading group"]
            + (["no, that's wrong - include the 'Method' section"] if n % 3 == 0 else []),
            day=n,
        )
        for n in range(count)
    ]


class _Counting:
    """An embedder that counts the similarities it is asked for."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.scored = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def similarity(self, a: Any, b: Any) -> np.ndarray:
        self.scored += a.shape[0] * b.shape[0]
        return self._inner.similarity(a, b)


def _eager_recall(
    tasks: Any, rows: Any, vectors: Any, embedder: Any, k: int
) -> dict[str, tuple[str, ...]]:
    """The recall of every training task at once, as mining did it before (every pair scored)."""
    train = [i for i, t in enumerate(tasks) if t.split == "train"]
    sub = vectors[[rows[i] for i in train]]
    items = [
        RecallItem(tasks[i].id, tasks[i].family, recall._outcome(tasks[i]), "train") for i in train
    ]
    return recall_k(items, embedder.similarity(sub, sub), k)


def test_recall_is_scored_when_asked_for_and_equals_scoring_every_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = _Counting(create_embedder("tfidf"))
    monkeypatch.setattr(pipeline, "create_embedder", lambda *a, **k: counting)
    config = MineConfig(embedder="tfidf", night="n1")
    with Archive(":memory:") as archive:
        lazy = mine(_history(), archive, config)
    train = [t.id for t in lazy.tasks if t.split == "train"]
    assert len(train) >= 20
    counting.scored = 0
    first = lazy.recalled[train[0]]
    assert 0 < counting.scored <= len(train) * len(lazy.tasks)  # one row, not train x train
    monkeypatch.setattr(pipeline, "training_recall", _eager_recall)
    with Archive(":memory:") as archive:
        eager = mine(_history(), archive, config)
    assert first == eager.recalled[train[0]]
    assert dict(lazy.recalled) == dict(eager.recalled)


def test_mining_reports_each_long_step() -> None:
    ticks: list[tuple[str, int, int]] = []
    with Archive(":memory:") as archive:
        result = mine(
            _history(),
            archive,
            MineConfig(embedder="minilm-numpy", night="n1"),
            progress=lambda step, done, total: ticks.append((step, done, total)),
        )
    requests = int(result.stats["embedded"])
    embed = [t for t in ticks if t[0] == "embed"]
    assert embed[0] == ("embed", 0, requests) and embed[-1] == ("embed", requests, requests)
    assert [t for t in ticks if t[0] == "cluster"][-1][1:] == (requests + 1, requests + 1)
    families = len(result.families)
    assert [t for t in ticks if t[0] == "families"][-1] == ("families", families, families)


def test_cached_encodings_are_stacked_a_block_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later night's vectors come from the archive without its encodings all held beside them
    (blocks scaled down to a few requests; a night's are 500 requests and 32 MiB), the same bits
    as encoding afresh; a damaged entry read midway is encoded again."""
    import sqlite3
    import tracemalloc

    monkeypatch.setattr("skillopt_sleep.mine.archive.EMBEDDING_BLOCK", 8, raising=False)
    monkeypatch.setattr("skillopt_sleep.mine.embed._bags.BLOCK_ENTRIES", 4096)
    texts = [
        f"summarize arXiv paper 2401.{10000 + n} and list its {n % 7} results" for n in range(48)
    ]
    hashes = [f"h{n:03d}" for n in range(len(texts))]
    embedder = create_embedder("minilm-numpy")
    fresh = embedder.embed(texts)
    with Archive(tmp_path / "a.sqlite3") as archive:
        pipeline.embed_with_cache(embedder, hashes, texts, archive)
        tracemalloc.start()
        try:
            vectors, computed = pipeline.embed_with_cache(embedder, hashes, texts, archive)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert computed == 0
    assert peak < 2 * fresh.vectors.nbytes  # was 4.2x: the blobs, rows decoded, a float32 copy
    for name in ("vectors", "weights", "offsets", "pooled"):
        assert np.array_equal(getattr(vectors, name), getattr(fresh, name)), name
    with sqlite3.connect(tmp_path / "a.sqlite3") as db:
        db.execute("UPDATE embeddings SET vector = x'0100' WHERE text_hash = 'h030'")
    db.close()
    with Archive(tmp_path / "a.sqlite3") as archive:
        again, computed = pipeline.embed_with_cache(embedder, hashes, texts, archive)
    assert computed == len(texts)
    assert np.array_equal(again.vectors, fresh.vectors) and np.array_equal(
        again.pooled, fresh.pooled
    )


def test_stacking_blobs_as_they_come_is_stacking_rows_bit_for_bit() -> None:
    from skillopt_sleep.mine.embed._bags import stack_blobs

    rng = np.random.default_rng(0)
    rows = [
        TokenRow(
            rng.integers(0, 500, size=n).astype(np.int32),
            rng.standard_normal((n, 8)).astype(np.float16),
        )
        for n in rng.integers(1, 40, size=300)
    ]
    blobs = [row.to_bytes() for row in rows]
    streamed, whole = stack_blobs([len(b) for b in blobs], iter(blobs)), stack_rows(rows)
    for name in ("vectors", "weights", "offsets", "pooled"):
        assert np.array_equal(getattr(streamed, name), getattr(whole, name)), name
    with pytest.raises(ValueError):
        stack_blobs([len(b) for b in blobs], iter([*blobs[:-1], b"\x01\x00"]))
    with pytest.raises(ValueError):
        stack_blobs([len(b) for b in blobs], iter(blobs[:-1]))


def test_a_family_counts_tonight_in_attempts_as_it_counts_its_size() -> None:
    """A first night's family is all new: "30 requests, 30 new tonight", not "…, 1 new"."""
    asked = [
        session(f"a{n:02d}", "/home/dev/reading", ["summarize arXiv paper 2401.10000 please"], n)
        for n in range(30)
    ]
    with Archive(":memory:") as archive:
        first = mine(asked, archive, MineConfig(embedder="tfidf", night="n1"))
        (family,) = first.families
        assert family.size == family.new_tonight == 30
        again = mine(asked[:4], archive, MineConfig(embedder="tfidf", night="n2"))
    (family,) = again.families
    assert (family.size, family.new_tonight) == (30, 4)
