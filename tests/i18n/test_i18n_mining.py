"""Masking and the lexical embedders on text in other scripts (each test failed before the fix)."""

from __future__ import annotations

import pytest

from skillopt_sleep.mine import cluster_requests
from skillopt_sleep.mine.embed.tfidf import words_of
from skillopt_sleep.mine.masking import mask
from tests.i18n._set import rows


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("发布2.4.0版本的更新日志", "发布 版本的更新日志"),  # the version's tail ate the sentence
        ("コミット3f2a9c1d7eを見て", "コミット を見て"),  # the hash left "f a c d e"
        ("请修复tests/test_auth.py里的登录测试", "请修复 test_auth 里的登录测试"),
        ("看看 https://x.com/a，然后修复", "看看 ，然后修复"),
        ("버전 2.4.0으로 올려줘", "버전 으로 올려줘"),
        ("/home/ana/项目/churn/报告.ipynb を見て", "报告 を見て"),
        ("Überprüfe /home/jörg/Projekte/daten/auswertung.py bitte", "Überprüfe auswertung bitte"),
    ],
)
def test_masking_finds_ids_versions_paths_glued_to_cjk_text(text: str, masked: str) -> None:
    assert mask(text) == masked


def test_tfidf_reads_a_cjk_run_as_character_bigrams() -> None:
    assert words_of("test_auth.py 里的登录测试") == [
        "test_auth", "py", "里的", "的登", "登录", "录测", "测试"
    ]  # fmt: skip
    assert words_of("fix the a test_auth.py") == ["fix", "the", "a", "test_auth", "py"]


def _labels(lang: str, embedder: str) -> tuple[list[int], list[str | None]]:
    found = rows("request", lang)
    labels = cluster_requests([r["text"] for r in found], embedder=embedder)
    return labels, [r["family"] for r in found]


def _pure(labels: list[int], families: list[str | None]) -> bool:
    """No mined family (two or more requests) mixes tasks or takes a one-off."""
    for label in set(labels):
        members = {f for f, x in zip(families, labels, strict=True) if x == label}
        if labels.count(label) > 1 and (len(members) > 1 or None in members):
            return False
    return True


def test_tfidf_groups_korean_paraphrases() -> None:
    labels, _ = _labels("ko", "tfidf")
    assert labels[0] == labels[1] and labels[3] not in labels[:3]


@pytest.mark.parametrize("lang", ["ru", "ja", "ko", "zh"])
def test_static_families_in_a_script_the_vocabulary_lacks_are_pure(lang: str) -> None:
    """Spelt letter by letter or as [UNK], every Russian request was one family."""
    labels, families = _labels(lang, "static")
    assert _pure(labels, families)
    assert len([x for x in set(labels) if labels.count(x) > 1]) >= 1


def test_static_keeps_one_offs_of_different_scripts_apart() -> None:
    texts = [
        "اشرح لي كيف يعمل هذا الكود",
        "תסביר לי מה עושה הפונקציה הזאת",
        "می‌خواهم این تابع را بازنویسی کنم",
        "इस फ़ंक्शन के लिए यूनिट टेस्ट लिखो",
        "이 에러 메시지가 무슨 뜻인지 설명해 주세요",
    ]
    assert cluster_requests(texts, embedder="static") == [0, 1, 2, 3, 4]
