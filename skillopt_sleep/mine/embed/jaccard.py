"""Word-overlap (Jaccard) similarity: the baseline the benchmark compares embeddings against.

This is what recall by word overlap amounts to; it is kept so the benchmark can show what the
embedders add over it. Rows are binary bag-of-words vectors; similarity is |A ∩ B| / |A ∪ B|. Not cached:
the column space is the vocabulary of the texts embedded together.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from skillopt_sleep.mine.embed import EMBEDDERS
from skillopt_sleep.mine.embed._sparse import blocked_dot

_WORD = re.compile(r"\w+")


class JaccardEmbedder:
    name = "jaccard"
    shortlist = None
    default_threshold = 0.07

    def embed(self, texts: Sequence[str]) -> Any:
        from sklearn.feature_extraction.text import CountVectorizer

        if not texts:
            from scipy.sparse import csr_matrix

            return csr_matrix((0, 1), dtype=np.float32)
        vectorizer = CountVectorizer(
            binary=True, lowercase=True, token_pattern=r"(?u)\b\w+\b", dtype=np.float32
        )
        return vectorizer.fit_transform(texts)

    def similarity(self, a: Any, b: Any) -> np.ndarray:
        inter = blocked_dot(a, b)
        size_a = np.asarray(a.sum(axis=1), dtype=np.float32).reshape(-1, 1)
        size_b = np.asarray(b.sum(axis=1), dtype=np.float32).reshape(1, -1)
        union = size_a + size_b - inter
        return np.asarray(np.divide(inter, union, out=np.zeros_like(inter), where=union > 0))


EMBEDDERS.add("jaccard", lambda **_: JaccardEmbedder())
