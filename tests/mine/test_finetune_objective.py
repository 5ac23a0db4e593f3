"""The fine-tuning script trains on the very score the miner clusters with, and its cross-fitting
halves of set A never share a family."""

from __future__ import annotations

import numpy as np
import pytest

from scripts import finetune_minilm as script
from skillopt_sleep.mine.embed._bags import TokenRow, blended_similarity, stack_rows


def test_the_halves_split_set_a_by_family_and_cover_it() -> None:
    rows = script.labelled_rows()
    first, second = script.half_of(rows, 1), script.half_of(rows, 2)
    assert len(first) + len(second) == len(rows)
    assert {r["id"] for r in first}.isdisjoint({r["id"] for r in second})
    families = [{r["family"] for r in half if r["family"]} for half in (first, second)]
    assert families[0].isdisjoint(families[1])
    assert min(len(f) for f in families) >= 20
    assert all(any(not r["family"] for r in half) for half in (first, second))  # one-offs too


def test_the_training_score_is_the_miners_blended_similarity() -> None:
    torch = pytest.importorskip("torch", reason="the embeddings extra (torch) is not installed")
    rng = np.random.default_rng(3)
    lengths, dim, vocab = [3, 7, 5, 1, 6], 16, 12
    rows = []
    for length in lengths:
        vectors = rng.normal(size=(length, dim))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        ids = rng.integers(0, vocab, size=length)
        rows.append(TokenRow(ids.astype(np.int32), vectors.astype(np.float16)))
    bags = stack_rows(rows, dim=dim)
    expected = blended_similarity(bags, bags)

    width = max(lengths)
    padded = torch.zeros(len(rows), width, dim)
    mask = torch.zeros(len(rows), width)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    for i, row in enumerate(rows):
        n = len(row.ids)
        padded[i, :n] = torch.from_numpy(row.vectors.astype(np.float32))
        mask[i, :n] = 1.0
        ids[i, :n] = torch.from_numpy(row.ids.astype(np.int64))
    idf = script.idf_weights([list(r.ids) for r in rows], vocab)
    view = (padded, mask, idf[ids])
    np.testing.assert_allclose(
        idf[torch.from_numpy(np.concatenate([r.ids for r in rows]).astype(np.int64))].numpy(),
        bags.weights,
        rtol=1e-5,
    )
    got = script.blended(view, view).detach().numpy()
    np.testing.assert_allclose(got, expected, atol=2e-5)


def test_the_persona_option_adds_labelled_families_of_their_own() -> None:
    rows = script.persona_rows(seed=1)
    families: dict[str, int] = {}
    for row in rows:
        if row["family"]:
            families[row["family"]] = families.get(row["family"], 0) + 1
    assert len(families) >= 20 and min(families.values()) >= 2
    assert len({r["id"] for r in rows}) == len(rows)
    set_a = {r["family"] for r in script.labelled_rows() if r["family"]}
    assert set_a.isdisjoint(families)  # namespaced by persona: never merged with set A's
    assert rows == script.persona_rows(seed=1)  # a fixed draw


def test_freezing_keeps_the_embeddings_and_the_lowest_layers() -> None:
    """``--freeze N`` (an experiment of bench_mine.py --crossfit --recipe): the embeddings and
    the N lowest layers keep the source weights; the layers above them train."""
    pytest.importorskip("torch", reason="the embeddings extra (torch) is not installed")
    pytest.importorskip("transformers", reason="the embeddings extra is not installed")
    from skillopt_sleep.mine.embed.minilm import bundled_model_dir

    source = bundled_model_dir()
    if source is None:
        pytest.skip("the original MiniLM files are not installed")
    recipe = script.Recipe(steps=2, families=4, freeze=2, lr=1e-3)
    before = script._Encoder(source).model.state_dict()
    after = script.train(source, script.labelled_rows(), recipe).model.state_dict()
    for name, weights in after.items():
        same = bool((weights == before[name]).all())
        frozen = name.startswith(("embeddings.", "encoder.layer.0.", "encoder.layer.1."))
        trained_by_the_loss = name.startswith(("embeddings.", "encoder.layer."))  # no pooler
        if trained_by_the_loss and name.endswith("weight") and "LayerNorm" not in name:
            assert same == frozen, name


def test_the_threshold_hinge_counts_only_pairs_on_the_wrong_side() -> None:
    """``--calibrate`` (an experiment of bench_mine.py --crossfit --recipe): same-family pairs
    (the diagonal) below threshold + margin and other pairs above threshold - margin cost, each
    by how far they are over; pairs on the right side cost nothing."""
    torch = pytest.importorskip("torch", reason="the embeddings extra (torch) is not installed")
    apart = torch.tensor([[0.9, 0.1, 0.2], [0.3, 0.8, 0.4]])  # two pairs and a one-off column
    assert script.threshold_hinge(apart, 2, threshold=0.5, margin=0.05).item() == 0.0
    close = torch.tensor([[0.5, 0.1, 0.2], [0.6, 0.8, 0.4]])
    cost = script.threshold_hinge(close, 2, threshold=0.5, margin=0.05).item()
    assert cost == pytest.approx(0.05 / 2 + 0.15 / 4)
