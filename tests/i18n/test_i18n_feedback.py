"""Feedback written in other languages is feedback (each test failed before the fix)."""

from __future__ import annotations

import pytest

from skillopt_sleep.harvest.signals import _words, classify
from skillopt_sleep.mine.candidates import candidates_from_session
from skillopt_sleep.mine.feedback import (
    classify_followup,
    is_followup,
    opens_as_feedback,
    word_count,
)
from skillopt_sleep.records import SignalKind
from tests.i18n._set import rows
from tests.mine._sessions import session

FEEDBACK = [r for r in rows() if r["kind"] != "request"]


@pytest.mark.parametrize("row", FEEDBACK, ids=[r["id"] for r in FEEDBACK])
def test_corrections_and_approvals_are_read_in_every_language(row: dict[str, str]) -> None:
    want = SignalKind(row["kind"])
    assert classify(row["text"]) == want
    assert classify_followup(row["text"]) == want
    assert is_followup(row["text"])


def test_no_request_of_the_set_reads_as_feedback() -> None:
    for row in rows("request"):
        assert classify(row["text"]) is None, row["text"]
        assert not is_followup(row["text"]), row["text"]
        assert not opens_as_feedback(row["text"]), row["text"]


@pytest.mark.parametrize(
    "text",
    [
        "Нет ли способа ускорить сборку?",
        "Nein-Stimmen zählen im Abstimmungsmodul",
        "لا تعمل الأزرار",
    ],
)
def test_a_request_opening_with_a_no_word_is_no_correction(text: str) -> None:
    assert not opens_as_feedback(text)


def test_a_chinese_correction_is_evidence_on_its_request_not_a_new_one() -> None:
    s = session(
        "zh1",
        "/home/dev/app",
        ["帮我根据最近的提交更新 CHANGELOG.md", "不对，标题要用 Keep a Changelog 格式"],
    )
    (found,) = candidates_from_session(s)
    assert found.outcome == "failed"
    assert found.feedback == ("不对，标题要用 Keep a Changelog 格式",)


def test_a_german_approval_makes_a_success() -> None:
    s = session(
        "de1",
        "/home/dev/app",
        ["Schreib die Release Notes für Version 2.4.0", "Danke, funktioniert"],
    )
    (found,) = candidates_from_session(s)
    assert found.outcome == "succeeded"


def test_a_second_request_without_spaces_is_a_request() -> None:
    """A CJK sentence was one word, under the two a later request needs."""
    s = session(
        "zh2", "/home/dev/app", ["优化 Dockerfile，减小镜像体积", "修复一下失败的登录单元测试"]
    )
    assert [c.text for c in candidates_from_session(s)] == [
        "优化 Dockerfile，减小镜像体积",
        "修复一下失败的登录单元测试",
    ]


def test_words_are_counted_in_scripts_without_spaces() -> None:
    assert word_count("修复一下失败的登录单元测试") == 7
    assert word_count("fix the login test") == 4


def test_a_reworded_chinese_request_is_a_retry_by_its_words() -> None:
    a = _words("登录测试又失败了，请修复 tests/test_auth.py")
    b = _words("登录测试又失败了，请修复一下 tests/test_auth.py")
    assert len(a) >= 3 and len(a & b) / len(a | b) >= 0.6
    assert "café" in _words("the café menu")
