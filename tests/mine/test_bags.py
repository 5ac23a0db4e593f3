"""Token bags: encoding round trip, soft-alignment similarity, idf weights, shortlisting, caching."""

from __future__ import annotations

import dataclasses
import importlib.util

import numpy as np
import pytest

from skillopt_sleep import _forked
from skillopt_sleep.mine import Archive, MineConfig, mine
from skillopt_sleep.mine.cluster import (
    BLOCK,
    ROW_BLOCK_SCORES,
    cluster_vectors,
    nearest,
    row_block,
)
from skillopt_sleep.mine.embed._bags import (
    HALF_TO_SINGLE,
    TokenRow,
    bag_similarity,
    blended_similarity,
    pooled_shortlist,
    stack_rows,
)

DIM = 8


def _row(ids: list[int], seed: int) -> TokenRow:
    """Tokens whose vectors are mostly their id's direction, with per-occurrence noise."""
    rng = np.random.default_rng(seed)
    base = np.eye(DIM)[np.array(ids) % DIM] + 0.2 * rng.standard_normal((len(ids), DIM))
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    return TokenRow(np.array(ids, dtype=np.int32), base.astype(np.float16))


@pytest.fixture
def rows() -> list[TokenRow]:
    rng = np.random.default_rng(7)
    return [_row(list(rng.integers(0, 40, size=rng.integers(1, 12))), i) for i in range(40)]


def test_row_bytes_round_trip(rows) -> None:
    for row in rows:
        back = TokenRow.from_bytes(row.to_bytes())
        assert np.array_equal(back.ids, row.ids) and np.array_equal(back.vectors, row.vectors)


def test_similarity_is_symmetric_bounded_and_independent_of_blocking(rows) -> None:
    bags = stack_rows(rows, dim=DIM)
    whole = bag_similarity(bags, bags)
    assert whole.shape == (40, 40)
    assert np.all((whole >= 0) & (whole <= 1)) and np.allclose(whole, whole.T, atol=1e-6)
    assert np.allclose(np.diag(whole), 1.0, atol=1e-3)
    for entries in (1, 17, 300):
        assert np.allclose(bag_similarity(bags, bags, block_entries=entries), whole, atol=1e-6)
        copy = bags[np.arange(len(bags))]  # not the same object: the asymmetric path
        assert np.allclose(bag_similarity(bags, copy, block_entries=entries), whole, atol=1e-6)


def test_bags_hold_the_cached_float16_and_score_exactly_as_float32(rows) -> None:
    """An archive's bags stay at half the memory; every float16 widens exactly to float32."""
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    assert np.array_equal(HALF_TO_SINGLE, every.astype(np.float32), equal_nan=True)
    bags = stack_rows(rows, dim=DIM)
    assert bags.vectors.dtype == np.float16
    wide = dataclasses.replace(bags, vectors=bags.vectors.astype(np.float32))
    assert np.array_equal(bag_similarity(bags, bags), bag_similarity(wide, wide))
    pick = np.array([5, 0, 33, 12])
    assert np.array_equal(bag_similarity(bags[pick], bags), bag_similarity(wide[pick], wide))
    sums = np.add.reduceat(wide.vectors, wide.offsets[:-1], axis=0)
    pooled = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    assert np.array_equal(bags.pooled, pooled.astype(np.float32))


def test_subsets_keep_corpus_weights(rows) -> None:
    bags = stack_rows(rows, dim=DIM)
    whole = bag_similarity(bags, bags)
    pick = np.array([5, 0, 33, 12])
    assert np.allclose(bag_similarity(bags[pick], bags[3:9]), whole[np.ix_(pick, range(3, 9))])
    assert len(bags[5:5]) == 0 and bag_similarity(bags[5:5], bags).shape == (0, 40)


def test_rare_tokens_outweigh_common_ones() -> None:
    common = [_row([1, 2, 3 + i], i) for i in range(10)]
    bags = stack_rows(common, dim=DIM)
    first = bags.weights[: bags.offsets[1]]
    assert first[0] < 1e-3 and first[1] < 1e-3 and first[2] > 1.0
    # two requests that share only the filler tokens are not near-duplicates
    sims = bag_similarity(bags, bags)
    assert sims[0, 1] < 0.9


def test_empty_corpus() -> None:
    bags = stack_rows([], dim=DIM)
    assert bags.shape == (0, DIM) and bag_similarity(bags, bags).shape == (0, 0)


def test_shortlisted_neighbours_match_exact_ones(rows) -> None:
    bags = stack_rows(rows, dim=DIM)
    exact_top, exact_sims = nearest(bags, bag_similarity, 5)
    fast_top, fast_sims = nearest(bags, bag_similarity, 5, shortlist=pooled_shortlist)
    assert fast_top.shape == (40, 5)
    # the shortlist (3k candidates by pooled vector) may miss a true neighbour, but rarely
    found = np.mean([len(set(a) & set(b)) / 5 for a, b in zip(exact_top, fast_top, strict=True)])
    assert found > 0.8
    assert np.all(np.sort(fast_sims, axis=1) <= np.sort(exact_sims, axis=1) + 1e-6)
    labels = cluster_vectors(bags, bag_similarity, 0.3, shortlist=pooled_shortlist)
    assert labels.shape == (40,)


def test_row_blocks_stay_bounded_and_do_not_change_the_shortlist(rows) -> None:
    """Scoring a block of rows against all rows holds block x n scores: the block shrinks as the
    archive grows (20,000 requests: 209 rows), and which rows a block holds changes nothing."""
    assert row_block(40) == BLOCK and row_block(20_000) * 20_000 <= ROW_BLOCK_SCORES
    assert row_block(10**9) == 1
    bags = stack_rows(rows, dim=DIM)
    whole = pooled_shortlist(bags, 5)
    for block in (1, 7):
        assert np.array_equal(np.sort(pooled_shortlist(bags, 5, block=block)), np.sort(whole))


def test_shortlists_scored_in_workers_match_those_scored_in_process(monkeypatch) -> None:
    """Blocks of rows go to forked workers; every path pins BLAS to one thread: same bits."""
    rng = np.random.default_rng(3)
    many = [_row(list(rng.integers(0, 40, size=rng.integers(1, 12))), i) for i in range(600)]
    bags = stack_rows(many, dim=DIM)
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 2)
    monkeypatch.setattr(_forked, "available", lambda: True)  # an earlier test's idle thread
    forked = nearest(bags, blended_similarity, 5, shortlist=pooled_shortlist)
    monkeypatch.setattr(_forked, "available", lambda: False)
    alone = nearest(bags, blended_similarity, 5, shortlist=pooled_shortlist)
    assert np.array_equal(forked[0], alone[0]) and np.array_equal(forked[1], alone[1])


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="the `embeddings` extra is not installed",
)
def test_minilm_cache_embeds_only_new_requests_and_drops_stale_keys(tmp_path) -> None:
    from mine._sessions import session, webapp_and_reading

    with Archive(tmp_path / "a.sqlite3") as archive:
        archive.put_embeddings("minilm-old-format", {"deadbeef": b"\x00"})
        first = mine(webapp_and_reading(0), archive, MineConfig(embedder="minilm", night="n1"))
        assert first.embedder_name == "minilm"
        assert first.stats["embedded"] == first.stats["requests"] > 0
        assert archive.embeddings(["deadbeef"], "minilm-old-format") == {}
        tonight = [
            *webapp_and_reading(1),
            session("new", "/home/dev/webapp", ["bump the node version in the CI workflow"], day=1),
        ]
        again = mine(tonight, archive, MineConfig(embedder="minilm", night="n2"))
        assert again.stats["requests"] == first.stats["requests"] + 1
        assert again.stats["embedded"] == 1


@pytest.mark.parametrize("cut", [3, 9, -1])
def test_truncated_blob_is_a_value_error(rows, cut: int) -> None:
    with pytest.raises(ValueError):
        TokenRow.from_bytes(rows[0].to_bytes()[:cut])


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="the `embeddings` extra is not installed",
)
def test_a_damaged_cache_entry_is_re_embedded(tmp_path) -> None:
    import sqlite3

    from mine._sessions import webapp_and_reading

    config = MineConfig(embedder="minilm", night="n1")
    path = tmp_path / "a.sqlite3"
    with Archive(path) as archive:
        first = mine(webapp_and_reading(0), archive, config)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE embeddings SET vector = x'0100' WHERE rowid = 1")
    db.close()
    with Archive(path) as archive:
        again = mine(webapp_and_reading(0), archive, config)
        assert again.stats["embedded"] == again.stats["requests"]
        assert [f.requests for f in again.families] == [f.requests for f in first.families]
