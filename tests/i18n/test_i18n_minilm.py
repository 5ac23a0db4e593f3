"""The default embedder (the shipped MiniLM) on requests in scripts its English vocabulary lacks.

To the model, unrelated requests of one script looked alike (mostly ``[UNK]`` or letters spelt one
by one): every Russian request one family. Such requests are now compared by their words
(``embed._scripts``); requests the model reads keep their vectors to the bit.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from skillopt_sleep.mine import cluster_requests
from skillopt_sleep.mine.embed import Embedder, create_embedder
from skillopt_sleep.mine.embed._bags import blended_similarity, stack_rows
from skillopt_sleep.mine.embed.minilm_numpy import encoder_dir
from skillopt_sleep.mine.families import compared_text
from tests.i18n._set import rows
from tests.mine._labelled import PAIRS, json_from_child, partition, set_a_texts, unshuffle

pytestmark = pytest.mark.skipif(encoder_dir() is None, reason="no MiniLM model files")

# unrelated requests, four per script: no two are one task
UNRELATED = {
    "zh": [
        "解释一下 Python 的 GIL 是什么",
        "给我写一首关于秋天的短诗",
        "把数据库备份脚本改成每天凌晨运行",
        "统计这个仓库里每个作者的提交数量",
    ],
    "ru": [
        "Объясни, что такое монада",
        "Напиши письмо коллеге о переносе встречи",
        "Настрой автоматическое резервное копирование базы",
        "Почему сборка проекта такая медленная?",
    ],
    "ar": [
        "اشرح لي كيف يعمل هذا الكود",
        "اكتب رسالة إلى فريق التصميم",
        "أضف زر تسجيل الخروج إلى الصفحة الرئيسية",
        "لماذا يفشل الاختبار على الخادم؟",
    ],
    "hi": [
        "इस फ़ंक्शन के लिए यूनिट टेस्ट लिखो",
        "डेटाबेस का बैकअप रोज़ रात को चलाओ",
        "मुझे बताओ कि यह त्रुटि क्यों आ रही है",
        "होमपेज पर एक लॉगआउट बटन जोड़ो",
    ],
    "ja": [
        "Rust の所有権について簡単に説明して",
        "今日の会議のメモを要約して",
        "ログアウトボタンをトップページに追加して",
        "データベースのバックアップを毎晩実行するようにして",
    ],
    "ko": [
        "이 에러 메시지가 무슨 뜻인지 설명해 주세요",
        "데이터베이스 백업을 매일 밤 실행하도록 설정해줘",
        "홈페이지에 로그아웃 버튼을 추가해줘",
        "가을에 관한 짧은 시를 써줘",
    ],
}
OTHER_SCRIPTS = ("ar", "fa", "he", "hi", "ja", "ko", "ru", "zh")
# a paraphrase pair sharing words, beside two requests unrelated to it
PARAPHRASED = {
    "ar": [
        "أضف اختبارات لوحدة تسجيل الدخول",
        "اكتب اختبارات لوحدة تسجيل الدخول من فضلك",
        "اكتب رسالة إلى فريق التصميم",
        "لماذا يفشل البناء على الخادم؟",
    ],
    "hi": [
        "लॉगिन टेस्ट ठीक करो",
        "लॉगिन टेस्ट फिर से फेल हो रहा है, ठीक करो",
        "डेटाबेस का बैकअप रोज़ रात को चलाओ",
        "होमपेज पर एक लॉगआउट बटन जोड़ो",
    ],
}


@pytest.fixture(scope="module")
def default() -> Embedder:
    embedder = create_embedder()
    assert embedder.name == "minilm-numpy"
    return embedder


@pytest.mark.parametrize("lang", sorted(UNRELATED))
def test_unrelated_requests_of_one_script_stay_apart(default: Embedder, lang: str) -> None:
    """Each was a family with another (all four one family in Russian)."""
    assert cluster_requests(UNRELATED[lang], default) == [0, 1, 2, 3]


@pytest.mark.parametrize("lang", sorted(PARAPHRASED))
def test_paraphrases_that_share_words_are_one_family(default: Embedder, lang: str) -> None:
    assert cluster_requests(PARAPHRASED[lang], default) == [0, 0, 1, 2]


def _pure(labels: list[int], families: list[str | None]) -> bool:
    """No mined family (two or more requests) mixes tasks or takes a one-off."""
    for label in set(labels):
        members = {f for f, x in zip(families, labels, strict=True) if x == label}
        if labels.count(label) > 1 and (len(members) > 1 or None in members):
            return False
    return True


@pytest.mark.parametrize("lang", ["ja", "ko", "ru", "zh"])
def test_labelled_families_in_a_script_the_vocabulary_lacks_are_pure(
    default: Embedder, lang: str
) -> None:
    """The hand-written set: families found, and none mixes tasks or takes a one-off."""
    found = rows("request", lang)
    labels = cluster_requests([r["text"] for r in found], default)
    assert _pure(labels, [r["family"] for r in found])
    assert len([x for x in set(labels) if labels.count(x) > 1]) >= 1


def test_no_family_of_requests_in_other_scripts_mixes_tasks(default: Embedder) -> None:
    """All of the set's requests at once: every family with a request in a script other than
    Latin is one labelled task (tfidf finds the same families of these scripts)."""
    found = rows("request")
    labels = cluster_requests([r["text"] for r in found], default)
    for label in {x for r, x in zip(found, labels, strict=True) if r["lang"] in OTHER_SCRIPTS}:
        members = [r for r, x in zip(found, labels, strict=True) if x == label]
        tasks = {r["family"] for r in members}
        assert len(members) == 1 or (len(tasks) == 1 and None not in tasks), members


def test_english_vectors_are_the_plain_minilm_vectors_to_the_bit(default: Embedder) -> None:
    texts = [compared_text(t) for t in PAIRS + set_a_texts(30)]
    plain = stack_rows(default.encode_rows(texts))  # type: ignore[attr-defined]
    vectors = default.embed(texts)
    for name in ("vectors", "weights", "offsets", "pooled"):
        assert np.array_equal(getattr(vectors, name), getattr(plain, name)), name
    assert not vectors.unreadable.any() and vectors.lexical is None
    assert np.array_equal(default.similarity(vectors, vectors), blended_similarity(plain, plain))


def test_readable_pairs_keep_their_similarity_beside_unreadable_requests(
    default: Embedder,
) -> None:
    """In a mixed list, English pairs score as the plain bags of that list do; a pair of an
    English and a Chinese request never scores above its words' evidence (tfidf's cosine on the
    embedder's scale), nor above what MiniLM says of it."""
    from skillopt_sleep.mine.embed._scripts import on_scale
    from skillopt_sleep.mine.embed.tfidf import TfidfEmbedder

    english = [compared_text(t) for t in set_a_texts(30)]
    chinese = [compared_text(r["text"]) for r in rows("request", "zh")]
    texts = english + chinese
    vectors = default.embed(texts)
    plain = stack_rows(default.encode_rows(texts))  # type: ignore[attr-defined]
    assert vectors.unreadable.tolist() == [False] * len(english) + [True] * len(chinese)
    sims = default.similarity(vectors, vectors)
    n = len(english)
    assert np.array_equal(sims[:n, :n], blended_similarity(plain, plain)[:n, :n])
    cosine = TfidfEmbedder().embed(texts)
    words = on_scale(
        TfidfEmbedder().similarity(cosine, cosine),
        TfidfEmbedder.default_threshold,
        default.default_threshold,
    )
    blended = blended_similarity(plain, plain)
    assert np.all(sims[:n, n:] <= words[:n, n:]) and np.all(sims[:n, n:] <= blended[:n, n:])
    assert np.array_equal(sims[n:, n:], words[n:, n:])


def _mixed() -> list[str]:
    """The set's requests and feedback in scripts other than Latin, and a few of set A."""
    return [r["text"] for r in rows() if r["lang"] in OTHER_SCRIPTS] + set_a_texts(12)


def test_same_families_for_shuffled_input(default: Embedder) -> None:
    """Embedded and fitted afresh in another order (the TF-IDF vocabulary comes out in another
    order too), the same families."""
    texts = _mixed()
    base = partition(cluster_requests(texts, default))
    order = random.Random(1).sample(range(len(texts)), len(texts))
    shuffled = cluster_requests([texts[i] for i in order], default)
    assert partition(unshuffle(shuffled, order)) == base


_CHILD = """
import json, sys
from skillopt_sleep.mine import cluster_requests
print(json.dumps(cluster_requests(json.loads(sys.stdin.read()))))
"""


def test_same_families_across_blas_kernels_and_threads() -> None:
    texts = _mixed()
    runs = [
        json_from_child(_CHILD, texts, {"OMP_NUM_THREADS": "1", "OPENBLAS_CORETYPE": None}),
        json_from_child(_CHILD, texts, {"OMP_NUM_THREADS": "2", "OPENBLAS_CORETYPE": "Haswell"}),
    ]
    assert partition(runs[0]) == partition(runs[1])
