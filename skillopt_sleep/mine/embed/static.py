"""all-MiniLM-L6-v2 distilled into a static token table: ten times faster than running MiniLM.

``auto`` uses it only when no MiniLM model (not even the shipped int8 one) can be loaded; by name
(``--embedder static``) it suits archives too large to embed with a transformer each night.

``scripts/build_static_embedder.py`` ran every vocabulary token through the transformer once
(model2vec's recipe), reduced the vectors with PCA and stored them as int8 rows with scales in
``data/`` (about 8 MB, shipped in the wheel). At run time there is no transformer: the repo's own
``WordPiece`` tokenizes a request, and its vector is the weighted mean of its tokens' rows. The
weight of a token is a Zipf/SIF prior from its vocabulary rank (``SIF / (SIF + p(rank))``, with
``p`` proportional to ``1 / rank``: frequent word pieces count little) times the square of its
smoothed idf in the texts embedded together (``log((n + 1) / (df + 1)) + 1``, as TF-IDF's: a word
every request shares still counts, which is what a first week of two or three requests of one
task needs), so the vectors are recomputed each night, not cached.

Static vectors know which words mean alike ("upgrade" ~ "bump", "summarise" ~ "summary") but not
which words a request turns on; TF-IDF's word and character n-grams know the exact identifiers
and inflections but nothing of meaning. ``similarity`` is the mean of the two cosines: on set A it
puts a same-family request first for 82% of requests (TF-IDF 71%, the static vectors alone 74%)
and, at the precision-first ``default_threshold``, keeps mined families purer than either alone
(``benchmarks/bench_mine.py``).

``default_threshold`` 0.35 and the ``leftovers`` bars were chosen on set A only, on each half of
its families and checked on the other: the largest mean ARI over archives of 30, 60, 120 and all
requests while mean family purity stays at 0.85 or more.

The vocabulary is English (uncased BERT's): it spells Cyrillic, Arabic, Hangul or Devanagari
letter by letter and most Chinese characters as ``[UNK]``, so the mean of those pieces made every
request of one script alike (all Russian requests one family). A request written in a script
other than Latin therefore takes only its vocabulary words (the code words it mixes in:
"customer", "npm audit") into its static vector, and a pair in which either request has none is
compared by the TF-IDF cosine alone (``similarity``). Which pieces those are is ``_scripts``',
shared with the MiniLM embedders.

Needs numpy, scipy and scikit-learn only; a missing data file (a broken install) makes ``auto``
fall back to ``tfidf`` once no MiniLM is there either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from skillopt_sleep.mine.embed import EMBEDDERS
from skillopt_sleep.mine.embed._int8 import dequantise
from skillopt_sleep.mine.embed._scripts import lexical_where, load_pieces, non_latin
from skillopt_sleep.mine.leftovers import Leftovers

DATA = Path(__file__).resolve().parent / "data"
FILES = ("static_vectors.npy", "static_scales.npy", "vocab.txt")
SIF = 1e-4  # model2vec's default SIF coefficient
IDF_POWER = 2.0
LEXICAL_WEIGHT = 0.5  # share of the TF-IDF cosine in ``similarity``


def static_available(data: Path = DATA) -> bool:
    return all((data / name).is_file() for name in FILES)


def zipf_prior(size: int, coefficient: float = SIF) -> np.ndarray:
    """SIF weights from vocabulary rank: ``a / (a + p)``, ``p`` Zipf's ``1 / rank`` normalised."""
    rank = np.arange(1, size + 1, dtype=np.float64)
    p = (1.0 / rank) / np.sum(1.0 / rank)
    return coefficient / (coefficient + p)


@dataclass(frozen=True)
class StaticTable:
    """The shipped table: int8 rows, their scales, the tokenizer and each token's prior weight."""

    rows: np.ndarray  # (vocab, d) int8
    scales: np.ndarray  # (vocab,) float32
    prior: np.ndarray  # (vocab,) float64
    tokenizer: Any  # _bert.WordPiece
    # (vocab,) bool: [UNK], the pieces spelling a letter of another script, and punctuation (all a
    # request in another script keeps otherwise: "，" is no word the two requests share)
    foreign: np.ndarray

    def token_ids(self, text: str) -> np.ndarray:
        ids: np.ndarray = self.tokenizer.encode(text)[1:-1]  # without [CLS]/[SEP]
        return ids[~self.foreign[ids]] if non_latin(text) else ids

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        return dequantise(self.rows[ids], self.scales[ids])


@lru_cache(maxsize=2)
def load_table(data: Path = DATA) -> StaticTable:
    if not static_available(data):
        raise RuntimeError(f"static embedder unavailable: {data} lacks {', '.join(FILES)}")
    rows = np.load(data / "static_vectors.npy", mmap_mode="r")
    scales = np.load(data / "static_scales.npy")
    pieces = load_pieces(data / "vocab.txt")
    if rows.shape[0] != len(scales) or len(pieces.tokenizer.vocab) != len(scales):
        raise RuntimeError(f"static embedder data in {data} is inconsistent")
    return StaticTable(rows, scales, zipf_prior(len(scales)), pieces.tokenizer, pieces.foreign)


@dataclass(frozen=True)
class StaticRows:
    """Embedded requests: unit mean-token vectors and TF-IDF rows; row-indexable like an array."""

    dense: np.ndarray  # (n, d) float32, unit rows (all zero for a text without tokens)
    lexical: Any  # (n, m) scipy CSR, unit rows

    @property
    def shape(self) -> tuple[int, int]:
        rows, columns = self.dense.shape
        return int(rows), int(columns)

    def __len__(self) -> int:
        return len(self.dense)

    def __getitem__(self, index: Any) -> StaticRows:
        rows = np.atleast_1d(np.arange(len(self))[index])
        return StaticRows(self.dense[rows], self.lexical[rows])


TOKEN_CHUNK = 1 << 15  # token rows dequantised at once (64 MiB of float64 at 256 dimensions)


def mean_token_vectors(table: StaticTable, texts: Sequence[str]) -> np.ndarray:
    """Unit weighted means of each text's token rows (prior x idf ** ``IDF_POWER``)."""
    ids = [table.token_ids(t) for t in texts]
    lengths = np.array([len(i) for i in ids], dtype=np.int64)
    out = np.zeros((len(texts), table.rows.shape[1]), dtype=np.float64)
    if lengths.sum() == 0:
        return out.astype(np.float32)
    flat = np.concatenate(ids).astype(np.int64)
    owner = np.repeat(np.arange(len(texts)), lengths)
    vocab, df = np.unique(np.unique(np.stack([flat, owner]), axis=1)[0], return_counts=True)
    idf = np.log((len(texts) + 1) / (df + 1.0)) + 1.0  # smoothed as TF-IDF's: never zero
    weights = table.prior[flat] * idf[np.searchsorted(vocab, flat)] ** IDF_POWER
    for start in range(0, len(flat), TOKEN_CHUNK):  # the same sums, in the same order
        part = slice(start, start + TOKEN_CHUNK)
        np.add.at(out, owner[part], table.vectors(flat[part]) * weights[part, None])
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return out.astype(np.float32)


class StaticEmbedder:
    name = "static"
    shortlist = None
    default_threshold = 0.35
    leftovers = Leftovers(attach=0.25, pair=0.28, margin=0.08)

    def __init__(self, data: Path = DATA) -> None:
        self.data = data

    def embed(self, texts: Sequence[str]) -> StaticRows:
        from skillopt_sleep.mine.embed.tfidf import TfidfEmbedder

        dense = mean_token_vectors(load_table(self.data), texts)
        return StaticRows(dense, TfidfEmbedder().embed(texts))

    def similarity(self, a: StaticRows, b: StaticRows) -> np.ndarray:
        from skillopt_sleep.mine.embed._sparse import blocked_dot

        semantic = np.clip(a.dense @ b.dense.T, 0.0, 1.0)
        lexical = np.clip(np.asarray(blocked_dot(a.lexical, b.lexical)), 0.0, 1.0)
        mixed = (1.0 - LEXICAL_WEIGHT) * semantic + LEXICAL_WEIGHT * lexical
        # a request with no vocabulary word has no static vector: the lexical cosine alone
        return lexical_where(~_has_vector(a.dense), ~_has_vector(b.dense), lexical, mixed)


def _has_vector(dense: np.ndarray) -> np.ndarray:
    return np.asarray(np.any(dense != 0.0, axis=1))


EMBEDDERS.add("static", lambda **_: StaticEmbedder())
