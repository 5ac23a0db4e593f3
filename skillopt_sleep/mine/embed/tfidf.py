"""TF-IDF over word 1-2-grams and character 3-5-grams (scikit-learn): the always-present default.

Word n-grams carry the vocabulary of a request; character n-grams absorb inflections, typos and
identifiers (``test_auth.py`` vs ``auth tests``). The two blocks are L2-normalised separately and
mixed so neither dominates. TF-IDF vectors are *not* stable: the idf weights and vocabulary depend
on the corpus the vectorizer is fitted on, so a vector cached on one night would not be comparable
with the next night's. The miner therefore refits on the archive plus tonight's texts every night
(about a second for 10,000 requests) and never caches these vectors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from skillopt_sleep.mine.embed import EMBEDDERS
from skillopt_sleep.mine.embed._sparse import blocked_dot

WORD_WEIGHT = 0.5
_DIGITS = re.compile(r"\d+")  # ids and versions vary between occurrences of one task


class TfidfEmbedder:
    name = "tfidf"
    shortlist = None
    default_threshold = 0.175  # chosen on set A like minilm's; see benchmarks/bench_mine.py

    def embed(self, texts: Sequence[str]) -> Any:
        from scipy.sparse import hstack
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.preprocessing import normalize

        docs = [_DIGITS.sub("0", t.lower()) for t in texts]
        if not docs:
            from scipy.sparse import csr_matrix

            return csr_matrix((0, 1), dtype=np.float32)
        words = TfidfVectorizer(
            ngram_range=(1, 2),
            sublinear_tf=True,
            min_df=1,
            dtype=np.float32,
            token_pattern=r"(?u)\b\w+\b",
        )
        chars = TfidfVectorizer(
            analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=1, dtype=np.float32
        )
        w = words.fit_transform(docs) * np.float32(np.sqrt(WORD_WEIGHT))
        c = chars.fit_transform(docs) * np.float32(np.sqrt(1.0 - WORD_WEIGHT))
        return normalize(hstack([w, c], format="csr"), copy=False)

    def similarity(self, a: Any, b: Any) -> np.ndarray:
        return np.asarray(np.clip(blocked_dot(a, b), 0.0, 1.0))


EMBEDDERS.add("tfidf", lambda **_: TfidfEmbedder())
