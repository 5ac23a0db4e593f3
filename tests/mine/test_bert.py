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
