"""Embedders for real: TF-IDF and Jaccard always; MiniLM loaded offline from the installed package."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from mine._labelled import PAIRS
from skillopt_sleep.mine.cluster import cluster_vectors
from skillopt_sleep.mine.embed import create_embedder, embedder_names
from skillopt_sleep.mine.embed.minilm import minilm_available
from skillopt_sleep.mine.embed.minilm_numpy import encoder_dir

HAS_ST = importlib.util.find_spec("sentence_transformers") is not None


def test_registry_names() -> None:
    assert embedder_names() == ["jaccard", "minilm", "minilm-numpy", "mpnet", "static", "tfidf"]


@pytest.mark.parametrize("name", ["tfidf", "jaccard"])
def test_sparse_embedders_rank_paraphrases_first(name: str) -> None:
    embedder = create_embedder(name)
    sims = embedder.similarity(embedder.embed(PAIRS), embedder.embed(PAIRS))
    np.fill_diagonal(sims, -1)
    assert sims[0].argmax() == 1 and sims[2].argmax() == 3
    assert np.all(sims <= 1.0)


def test_tfidf_clusters_the_two_families() -> None:
    embedder = create_embedder("tfidf")
    labels = cluster_vectors(embedder.embed(PAIRS), embedder.similarity, embedder.default_threshold)
    assert labels[0] == labels[1] and labels[2] == labels[3]
    assert len({labels[0], labels[2], labels[4]}) == 3


def test_minilm_loads_offline_and_clusters(minilm) -> None:
    vectors = minilm.embed(PAIRS)
    assert vectors.shape == (5, 384)
    assert np.allclose(np.linalg.norm(vectors.vectors, axis=1), 1.0, atol=1e-2)
    sims = minilm.similarity(vectors, vectors)
    assert np.allclose(np.diag(sims), 1.0, atol=1e-2) and np.allclose(sims, sims.T, atol=1e-5)
    np.fill_diagonal(sims, -1)
    assert sims[0].argmax() == 1 and sims[2].argmax() == 3
    labels = cluster_vectors(
        vectors, minilm.similarity, minilm.default_threshold, shortlist=minilm.shortlist
    )
    assert labels[0] == labels[1] and labels[2] == labels[3]
    assert len({labels[0], labels[2], labels[4]}) == 3


def test_auto_prefers_the_torch_free_minilm_when_its_files_are_there() -> None:
    expected = (
        "minilm"
        if encoder_dir() is None and minilm_available()
        else "minilm-numpy"  # the shipped model, else the installed float32 one
    )
    assert create_embedder("auto").name == expected
    assert create_embedder("auto", model="/nonexistent/model/dir").name in {"minilm", "static"}


def test_missing_local_model_is_an_error_not_a_download(tmp_path) -> None:
    if not HAS_ST:
        pytest.skip("sentence-transformers is not installed")
    embedder = create_embedder("minilm", model=str(tmp_path / "absent"))
    with pytest.raises(Exception):  # noqa: B017 - any load error; never a network fetch
        embedder.embed(["hello"])


@pytest.mark.parametrize("argv", [["--help"], ["mine", "--help"]])
def test_cli_help_never_imports_torch(argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from skillopt_sleep.cli import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'sklearn') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "HEAVY []" in out
