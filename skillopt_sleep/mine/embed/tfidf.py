"""TF-IDF over word 1-2-grams and character 3-5-grams (scikit-learn): the always-present default.

Word n-grams carry the vocabulary of a request; character n-grams absorb inflections, typos and
identifiers (``test_auth.py`` vs ``auth tests``). Scripts written without spaces (Chinese,
Japanese, Thai) and Korean, which glues particles to its words, have no word boundaries a
``\\w+`` token could follow: "修复一下失败的登录单元测试" was one word, shared by nothing. Their runs
are read as overlapping character bigrams instead (the usual unit of CJK retrieval: "登录", "测试"),
so a paraphrase shares words with the request it rewords. The two blocks are L2-normalised separately and
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
from skillopt_sleep.mine.masking import NOSPACE

WORD_WEIGHT = 0.5
_DIGITS = re.compile(r"\d+")  # ids and versions vary between occurrences of one task
_TOKEN = re.compile(r"(?u)\b\w+\b")  # scikit-learn's default, with one-letter words kept
_RUN = re.compile(f"[{NOSPACE}]+")


def words_of(doc: str) -> list[str]:
    """The word tokens of ``doc``: ``_TOKEN``'s, a run of a script without spaces as its character
    bigrams (a lone character as itself), what surrounds the run as words of their own."""
    if not _RUN.search(doc):  # most requests: one C-level pass, no per-token work
        return _TOKEN.findall(doc)
    found: list[str] = []
    for token in _TOKEN.findall(doc):
        if not _RUN.search(token):
            found.append(token)
            continue
        rest = 0
        for run in _RUN.finditer(token):
            found.extend(_TOKEN.findall(token[rest : run.start()]))
            text = run.group()
            found.extend(
                [text] if len(text) == 1 else [text[i : i + 2] for i in range(len(text) - 1)]
            )
            rest = run.end()
        found.extend(_TOKEN.findall(token[rest:]))
    return found


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
            tokenizer=words_of,
            token_pattern=None,
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
