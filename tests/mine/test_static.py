"""The static embedder: the shipped table loads without the model, ranks and clusters paraphrases,
and gives the same families whatever the input order, thread count or BLAS kernel."""

from __future__ import annotations

import json
import random

import numpy as np

from mine._labelled import PAIRS, json_from_child, partition, set_a_texts, unshuffle
from skillopt_sleep.mine import cluster_requests
from skillopt_sleep.mine.embed import create_embedder
from skillopt_sleep.mine.embed.static import DATA, load_table, static_available, zipf_prior


def test_shipped_table_matches_its_manifest() -> None:
    assert static_available()
    manifest = json.loads((DATA / "static.json").read_text())
    table = load_table()
    assert table.rows.dtype == np.int8
    assert table.rows.shape == (manifest["vocab"], manifest["dims"])
    assert len(table.tokenizer.vocab) == manifest["vocab"] == len(table.scales)
    assert (DATA / "NOTICE").is_file()


def test_zipf_prior_weighs_frequent_pieces_down() -> None:
    prior = zipf_prior(1000)
    assert np.all(np.diff(prior) >= 0) and 0.0 < prior[0] < prior[-1] < 1.0


def test_similar_requests_rank_first_and_cluster() -> None:
    embedder = create_embedder("static")
    vectors = embedder.embed(PAIRS)
    sims = embedder.similarity(vectors, vectors)
    assert np.allclose(np.diag(sims), 1.0, atol=1e-3) and np.allclose(sims, sims.T, atol=1e-5)
    np.fill_diagonal(sims, -1)
    assert sims[0].argmax() == 1 and sims[2].argmax() == 3
    labels = cluster_requests(PAIRS, embedder)
    assert labels[0] == labels[1] and labels[2] == labels[3]
    assert len({labels[0], labels[2], labels[4]}) == 3


def test_rows_index_like_an_array() -> None:
    vectors = create_embedder("static").embed(PAIRS)
    assert vectors.shape[0] == len(vectors) == 5
    picked = vectors[np.array([4, 0])]
    assert np.array_equal(picked.dense, vectors.dense[[4, 0]])
    assert len(vectors[1:3]) == 2 and picked.lexical.shape[0] == 2


def test_text_without_tokens_is_similar_to_nothing() -> None:
    embedder = create_embedder("static")
    vectors = embedder.embed(["", "fix the login test"])
    assert not np.any(vectors.dense[0])
    assert embedder.similarity(vectors[0:1], vectors[1:2])[0, 0] == 0.0


def test_auto_falls_back_to_static_without_minilm(monkeypatch) -> None:
    import skillopt_sleep.mine.embed.minilm as minilm
    import skillopt_sleep.mine.embed.minilm_numpy as minilm_numpy

    monkeypatch.setattr(minilm_numpy, "numpy_model_dir", lambda model="": None)
    monkeypatch.setattr(minilm_numpy, "shipped_int8_dir", lambda: None)
    monkeypatch.setattr(minilm, "minilm_available", lambda model="": False)
    assert create_embedder("auto").name == "static"
    assert create_embedder("tfidf").name == "tfidf"


def test_same_families_for_shuffled_input() -> None:
    texts = set_a_texts(90)
    base = partition(cluster_requests(texts, "static"))
    assert len(base) < len(texts)  # some families are found at all
    for seed in (1, 2):
        order = random.Random(seed).sample(range(len(texts)), len(texts))
        shuffled = cluster_requests([texts[i] for i in order], "static")
        assert partition(unshuffle(shuffled, order)) == base


_CHILD = """
import json, sys
from skillopt_sleep.mine import cluster_requests
print(json.dumps(cluster_requests(json.loads(sys.stdin.read()), "static")))
"""


def _labels_in(env_changes: dict[str, str | None]) -> list[int]:
    labels: list[int] = json_from_child(_CHILD, set_a_texts(120), env_changes)
    return labels


def test_same_families_across_threads_and_blas_kernels() -> None:
    runs = [
        _labels_in({"OMP_NUM_THREADS": "1", "OPENBLAS_CORETYPE": None}),
        _labels_in({"OMP_NUM_THREADS": "2", "OPENBLAS_CORETYPE": "Haswell"}),
        _labels_in({"OMP_NUM_THREADS": "2", "OPENBLAS_CORETYPE": None}),
    ]
    assert partition(runs[0]) == partition(runs[1]) == partition(runs[2])
