"""The numpy MiniLM: same tokens and vectors as sentence-transformers, and no torch import."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from skillopt_sleep.mine.embed import create_embedder
from skillopt_sleep.mine.embed.minilm_numpy import numpy_model_dir

TEXTS = [
    "fix the failing login test in tests/test_auth.py",
    'Warning: Prop `className` did not match. Server: "btn-a" Client: "btn-b"',
    "traduce el README al español por favor",
    "db_1 | initdb: error: directory exists but is not empty",
]

pytestmark = pytest.mark.skipif(numpy_model_dir() is None, reason="no packaged MiniLM model files")


def test_numpy_encoder_matches_sentence_transformers(minilm) -> None:
    reference = minilm.encode_rows(TEXTS)
    ours = create_embedder("minilm-numpy", model=str(numpy_model_dir())).encode_rows(TEXTS)
    for ref, row in zip(reference, ours, strict=True):
        assert np.array_equal(ref.ids, row.ids)
        diff = np.abs(ref.vectors.astype(np.float32) - row.vectors.astype(np.float32))
        assert float(diff.max()) < 2e-3  # float16 storage of float32 vectors equal to ~1e-5


def test_numpy_encoder_never_imports_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['sentence_transformers'] = None\n"
        "from skillopt_sleep.mine import cluster_requests\n"
        f"print(cluster_requests({TEXTS[:1] * 2 + TEXTS[2:3]!r}, 'minilm-numpy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[0, 0, 1]"


def test_chunks_encoded_in_workers_give_the_same_rows(monkeypatch) -> None:
    """Chunks go to forked workers (BLAS on one thread everywhere): the same bits as in-process."""
    from skillopt_sleep import _forked
    from skillopt_sleep.mine.embed import minilm_numpy

    texts = [f"{text} (case {i})" for i in range(6) for text in TEXTS]
    embedder = create_embedder("minilm-numpy")
    monkeypatch.setattr(minilm_numpy, "CHUNK", 5)
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 2)
    monkeypatch.setattr(_forked, "available", lambda: True)  # an earlier test's idle thread
    forked = embedder.encode_rows(texts)
    monkeypatch.setattr(_forked, "available", lambda: False)
    alone = embedder.encode_rows(texts)
    assert len(forked) == len(texts)
    for a, b in zip(forked, alone, strict=True):
        assert np.array_equal(a.ids, b.ids) and np.array_equal(a.vectors, b.vectors)
