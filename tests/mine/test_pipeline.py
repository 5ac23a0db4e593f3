"""Mining hand-built sessions: candidates, families, judges, splits, archive, recall, dreaming."""

from __future__ import annotations

import re

import pytest

from mine._sessions import BASE, session, webapp_and_reading
from skillopt_sleep.mine import Archive, MineConfig, mine
from skillopt_sleep.mine.candidates import candidates_from_session
from skillopt_sleep.mine.dream import dream
from skillopt_sleep.mine.recall import RecallItem, recall_k
from skillopt_sleep.mine.splits import Member, SplitPolicy, assign_family


def test_followups_are_evidence_not_requests() -> None:
    s = session(
        "x",
        "/p",
        [
            "fix the failing login test",
            "no, that's wrong, the test still fails",
            "continue",
            "thanks, that works",
            "now add a --json flag to export",
        ],
    )
    found = candidates_from_session(s)
    assert [c.text for c in found] == [
        "fix the failing login test",
        "now add a --json flag to export",
    ]
    first = found[0]
    assert first.outcome == "failed" and "still fails" in first.feedback[0]
    assert {sig.kind.value for sig in first.signals} >= {"correction", "approval"}
    assert found[1].outcome == "unknown"


def test_secrets_in_requests_are_redacted() -> None:
    s = session(
        "k",
        "/p",
        ["my key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd add it to the env example"],
    )
    (candidate,) = candidates_from_session(s)
    assert "sk-proj-AbCd" not in candidate.text


@pytest.fixture()
def archive(tmp_path):
    with Archive(tmp_path / "archive.sqlite3") as handle:
        yield handle


def _family_with(result, needle: str):
    return next(f for f in result.families if any(needle in r for r in f.requests))


def test_families_checks_and_no_leak(archive) -> None:
    result = mine(webapp_and_reading(), archive, MineConfig(embedder="tfidf"))
    assert result.embedder_name == "tfidf"
    login = _family_with(result, "login test")
    arxiv = _family_with(result, "arXiv")
    assert login.size == 2 and arxiv.size == 2
    assert login.outcomes == {"failed": 1, "succeeded": 1}
    assert any(c.kind == "contains" and "session cookie" in c.value for c in login.checks)
    (regex,) = [c for c in arxiv.checks if c.kind == "regex"]
    assert re.search(regex.value, "Summary...\narXiv:2510.04618\n")
    assert not re.search(regex.value, "Summary... (arXiv id 2510.04618)")
    assert not any(
        "tcp" in r for f in result.families for r in f.requests
    )  # a one-off is not replayed
    for task in result.tasks:
        assert "wrong" not in task.intent and "thanks" not in task.intent
    login_task = next(t for t in result.tasks if t.family == login.id)
    assert any(s.kind.value == "correction" for e in login_task.evidence for s in e.signals)


def test_second_night_merges_and_keeps_splits(archive) -> None:
    first = mine(webapp_and_reading(0), archive, MineConfig(embedder="tfidf", night="n1"))
    again = mine(webapp_and_reading(0), archive, MineConfig(embedder="tfidf", night="n1"))
    assert archive.counts()["occurrences"] == 6 and again.stats["new_occurrences"] == 0
    assert {t.id: t.split for t in again.tasks} == {t.id: t.split for t in first.tasks}
    later = mine(webapp_and_reading(1), archive, MineConfig(embedder="tfidf", night="n2"))
    assert later.stats["new_occurrences"] == 6
    assert _family_with(later, "login test").size == 4
    assert {f.id for f in first.families} <= {f.id for f in later.families}


def test_include_one_offs_and_dreaming(archive) -> None:
    result = mine(
        webapp_and_reading(),
        archive,
        MineConfig(embedder="tfidf", include_one_offs=True, dream_factor=2, dream_rollouts=3),
    )
    assert any("tcp" in t.intent for t in result.tasks)
    assert (
        result.stats["dreamed"] == 2 * len(result.split("train")) - result.stats["dreamed"]
        or result.stats["dreamed"] > 0
    )
    assert result.dream_rollouts == 3
    dreamed = [t for t in result.tasks if "~d" in t.id]
    assert dreamed and all(t.split == "train" and not t.evidence for t in dreamed)


def test_splits_order_sticky_and_small_families_train() -> None:
    policy = SplitPolicy()
    stamps = [BASE.replace(hour=h) for h in range(1, 11)]
    assert set(
        assign_family([Member("a", stamps[0]), Member("b", stamps[1])], policy).values()
    ) == {"train"}
    ten = [Member(str(i), stamps[i]) for i in range(10)]
    splits = assign_family(ten, policy)
    assert [splits[str(i)] for i in range(10)] == ["train"] * 7 + ["val"] * 2 + ["test"]
    assert assign_family(list(reversed(ten)), policy) == splits
    grown = assign_family(
        [Member(k, m.first_seen, splits[k]) for k, m in zip(splits, ten, strict=True)]
        + [Member("new", stamps[9])],
        policy,
    )
    assert all(grown[k] == v for k, v in splits.items())


def test_recall_prefers_contrast_and_never_recalls_eval() -> None:
    import numpy as np

    items = [
        RecallItem("a", "f1", "failed", "train"),
        RecallItem("b", "f1", "succeeded", "train"),
        RecallItem("c", "f2", "failed", "train"),
        RecallItem("d", "f1", "succeeded", "val"),
    ]
    sims = np.array(
        [[1, 0.5, 0.9, 0.99], [0.5, 1, 0.2, 0.9], [0.9, 0.2, 1, 0.1], [0.99, 0.9, 0.1, 1]]
    )
    out = recall_k(items, sims, k=2)
    assert out["a"] == ("b", "c")
    assert "d" not in out and all("d" not in v for v in out.values())


def test_dream_is_deterministic_for_mock() -> None:
    from skillopt_sleep.records import Task

    task = Task("t1", "f", "Fix the login test", "", split="train")
    assert [t.intent for t in dream([task], 2)] == [t.intent for t in dream([task], 2)]
    assert dream([Task("t2", "f", "x", "", split="val")], 3) == []


def test_a_bare_keep_going_never_opens_a_new_request() -> None:
    texts = ["fix the failing login test in tests/test_auth.py", "please continue", "keep going"]
    found = candidates_from_session(session("k1", "/home/dev/webapp", texts))
    assert [c.text for c in found] == ["fix the failing login test in tests/test_auth.py"]
