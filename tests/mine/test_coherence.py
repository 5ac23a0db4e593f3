"""A family whose members' corrections contradict each other is withheld, not trained on."""

from __future__ import annotations

from pathlib import Path

from mine._sessions import session
from skillopt_sleep.mine import Archive, MineConfig, mine
from skillopt_sleep.mine.coherence import contradictions
from skillopt_sleep.records import Check


def test_contradictions_pairs_wanted_and_banned() -> None:
    checks = [
        Check("contains", "session cookie", ""),
        Check("not_contains", "Session Cookie", ""),
        Check("regex", r"arXiv:\d+", ""),
        Check("max_chars", "400", ""),
    ]
    assert [(a.kind, b.kind) for a, b in contradictions(checks)] == [("contains", "not_contains")]
    assert contradictions(checks[2:]) == []


def test_contradictory_family_is_withheld(tmp_path: Path) -> None:
    request = "write the release notes for this version"
    sessions = [
        session("a", "/p", [request, "no, mention the migration guide"], day=0),
        session("b", "/p", [request, "no, don't mention the migration guide"], day=1),
    ]
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(sessions, archive, MineConfig(embedder="tfidf"))
    assert result.families == () and result.tasks == ()
    assert result.stats["withheld_contradictory"] == 1


def test_consistent_family_is_mined(tmp_path: Path) -> None:
    request = "write the release notes for this version"
    sessions = [
        session("a", "/p", [request, "no, mention the migration guide"], day=0),
        session("b", "/p", [request, "no, mention the migration guide please"], day=1),
    ]
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(sessions, archive, MineConfig(embedder="tfidf"))
    assert len(result.families) == 1 and result.stats["withheld_contradictory"] == 0
