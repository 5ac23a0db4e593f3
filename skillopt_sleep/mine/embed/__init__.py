"""Sentence embedders behind one protocol and one registry, with automatic selection.

``minilm`` (sentence-transformers all-MiniLM-L6-v2, loaded offline) is preferred when it is
importable and its model files are found; ``tfidf`` (scikit-learn) is the always-present default;
``jaccard`` (word overlap) is the baseline the benchmark measures the others against. Nothing heavy
is imported here: each embedder imports its library on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from skillopt_core.registry import Registry


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to vectors and compares them.

    ``stable`` is true when a text's vector depends on that text alone (not on the other texts
    embedded with it), which is what makes a persistent cache valid. ``default_threshold`` is the
    lowest average similarity at which two groups of requests may join one task (the clustering
    is stricter where requests are densely packed; tuned per embedder on half of the labelled
    families by ``benchmarks/bench_mine.py``).
    """

    name: str
    stable: bool
    default_threshold: float

    def embed(self, texts: Sequence[str]) -> Any:
        """A row per text (a dense array or a scipy sparse matrix)."""
        ...

    def similarity(self, a: Any, b: Any) -> np.ndarray:
        """Dense ``len(a) x len(b)`` similarities in [0, 1] (higher is closer)."""
        ...


EmbedderFactory = Callable[..., Embedder]

EMBEDDERS: Registry[EmbedderFactory] = Registry("embedder")


def _load_builtin() -> None:
    from skillopt_sleep.mine.embed import jaccard, minilm, tfidf  # noqa: F401


def create_embedder(name: str = "auto", *, model: str = "") -> Embedder:
    """Build an embedder by name; ``auto`` picks minilm when available, else tfidf.

    ``model`` is a local model directory (or a model name already in the local HF cache) for
    minilm; it is ignored by the others.
    """
    _load_builtin()
    if name == "auto":
        from skillopt_sleep.mine.embed.minilm import minilm_available

        name = "minilm" if minilm_available(model) else "tfidf"
    factory = EMBEDDERS.get(name)
    return factory(model=model) if name == "minilm" else factory()


def embedder_names() -> list[str]:
    _load_builtin()
    return EMBEDDERS.names()


__all__ = ["EMBEDDERS", "Embedder", "create_embedder", "embedder_names"]
