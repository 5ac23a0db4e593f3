"""The MiniLM embedders on requests in scripts their vocabulary lacks: which requests those are,
that the archive's cache keeps the decision, and that their neighbours are shortlisted by words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mine._labelled import PAIRS, set_a_texts
from skillopt_sleep.mine import Archive
from skillopt_sleep.mine.embed import CachedEmbedder, create_embedder
from skillopt_sleep.mine.embed._bags import pooled_shortlist
from skillopt_sleep.mine.embed._scripts import load_pieces
from skillopt_sleep.mine.embed.minilm import UNCASED_VOCAB
from skillopt_sleep.mine.embed.minilm_numpy import encoder_dir
from skillopt_sleep.mine.families import compared_text
from skillopt_sleep.mine.vectors import embed_with_cache
from tests.i18n._set import rows

needs_model = pytest.mark.skipif(encoder_dir() is None, reason="no MiniLM model files")

OTHER = [
    "修复一下失败的登录单元测试",
    "test_auth.py 里的登录测试一直失败，请修好它",
    "Переименуй customer в account во всём коде",
    "Обнови зависимости с уязвимостями",
    "اشرح لي كيف يعمل هذا الكود",
    "이 에러 메시지가 무슨 뜻인지 설명해 주세요",
]


@pytest.mark.parametrize(
    ("text", "unreadable"),
    [
        ("fix the failing login test in test_auth.py", False),
        ("fix the 登录 test in test_auth.py, it fails on CI again", False),  # a word, not a script
        ("compute the σ of the λ values in stats.py", False),
        ("Schreib Unit-Tests für die Datumsfunktionen", False),  # Latin: the vocabulary's
        ("— “quoted” … ✓", False),
        ("修复一下失败的登录单元测试", True),
        ("Переименуй customer в account во всём коде", True),  # two code words among Russian
        ("इस फ़ंक्शन के लिए यूनिट टेस्ट लिखो", True),
        ("utils.py の関数に型ヒントを付けてください", True),
    ],
)
def test_which_requests_the_vocabulary_cannot_read(text: str, unreadable: bool) -> None:
    pieces = load_pieces(UNCASED_VOCAB)
    assert pieces.unreadable([compared_text(text)]).tolist() == [unreadable]


@needs_model
def test_cached_vectors_carry_the_decision_and_the_words(tmp_path: Path) -> None:
    """A night whose vectors all come from the archive scores every pair as one that encodes
    them afresh (the cache holds token vectors; the texts come beside them)."""
    texts = [compared_text(t) for t in [*PAIRS, *OTHER]]
    hashes = [f"h{n:02d}" for n in range(len(texts))]
    embedder = create_embedder()
    assert isinstance(embedder, CachedEmbedder)
    fresh = embedder.embed(texts)
    assert fresh.unreadable.tolist() == [False] * len(PAIRS) + [True] * len(OTHER)
    with Archive(tmp_path / "a.sqlite3") as archive:
        first, computed = embed_with_cache(embedder, hashes, texts, archive)
        again, cached = embed_with_cache(embedder, hashes, texts, archive)
    assert (computed, cached) == (len(texts), 0)
    expected = embedder.similarity(fresh, fresh)
    for vectors in (first, again):
        assert np.array_equal(vectors.unreadable, fresh.unreadable)
        assert np.array_equal(embedder.similarity(vectors, vectors), expected)


@needs_model
def test_an_unreadable_request_shortlists_the_requests_sharing_its_words() -> None:
    """Its pooled vector is the mean of pieces the model cannot tell apart: the few requests
    shortlisted beside an archive's English ones are found by words (by pooled vectors, the two
    nearest "修复一下失败的登录单元测试" were two one-offs, neither about the login test)."""
    chinese = rows("request", "zh")
    texts = [compared_text(t) for t in set_a_texts(100)] + [
        compared_text(r["text"]) for r in chinese
    ]
    embedder = create_embedder()
    vectors = embedder.embed(texts)
    shortlist = embedder.shortlist(vectors, 2)  # type: ignore[misc]
    row = 100 + [r["id"] for r in chinese].index("i006")
    assert [chinese[i - 100]["family"] for i in shortlist[row]] == ["zh-login-test"] * 2
    assert np.array_equal(shortlist[:100], pooled_shortlist(vectors, 2)[:100])  # as before


def test_a_multilingual_or_unknown_vocabulary_keeps_the_models_own_vectors(
    tmp_path: Path,
) -> None:
    """Every non-Latin piece was taken for one the model cannot read, and a model configured by
    name fell back to the English vocabulary: a multilingual model's vectors for Chinese or
    Russian requests were replaced by word counts."""
    from skillopt_sleep.mine.embed.minilm import MiniLMEmbedder

    assert load_pieces(UNCASED_VOCAB).english
    words = [chr(code) for code in range(0x4E00, 0x4E00 + 3000)]  # CJK, as mBERT's has them
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "fix", "the", *words]) + "\n")
    pieces = load_pieces(vocab)
    assert not pieces.english
    assert pieces.unreadable(["修复登录测试"]).tolist() == [True]  # the decision, were it asked
    named = MiniLMEmbedder("some-org/multilingual-minilm-not-on-disk")
    assert named.vocab_file() is None
    assert MiniLMEmbedder().vocab_file() is not None  # the default model's is known
