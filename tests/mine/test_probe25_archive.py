"""A turn delivered again under another text (a later version redacts or cuts it otherwise) moves
its occurrence; the old text, no longer asked by anyone, is forgotten, never replayed."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from skillopt_sleep.mine import Archive, MineConfig
from skillopt_sleep.mine.candidates import Candidate
from skillopt_sleep.mine.pipeline import mine_candidates

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
OLD = "deploy the api to staging, the registry password is hunter2-Zq81-kept-raw"
NEW = "deploy the api to staging, the registry password is [REDACTED]"


def _asked(text: str, session: str, day: int) -> Candidate:
    return Candidate(text, session, "claude", "/p", T0 + timedelta(days=day), 0)


def test_the_old_text_of_a_moved_occurrence_is_forgotten() -> None:
    with Archive(":memory:") as archive:
        archive.add([_asked(OLD, "s1", 0)], "2026-11-02")
        archive.add([_asked(NEW, "s1", 0)], "2026-11-20")
        assert [row[1] for row in archive.requests()] == [NEW]


def test_a_request_another_session_still_asks_is_kept() -> None:
    with Archive(":memory:") as archive:
        archive.add([_asked(OLD, "s1", 0), _asked(OLD, "s2", 3)], "2026-11-05")
        archive.add([_asked(NEW, "s1", 0)], "2026-11-20")
        assert sorted(row[1] for row in archive.requests()) == sorted([OLD, NEW])


def test_a_text_redacted_since_is_never_replayed() -> None:
    config = MineConfig(embedder="jaccard", night="2026-11-20")
    with Archive(":memory:") as archive:
        first = mine_candidates([_asked(OLD, "s1", 0), _asked(OLD, "s2", 7)], 2, archive, config)
        assert {t.intent for t in first.tasks} == {OLD}
        again = [_asked(NEW, "s1", 0), _asked(NEW, "s2", 7)]  # both sessions resumed since
        second = mine_candidates(again, 2, archive, config)
        assert {t.intent for t in second.tasks} == {NEW}
        assert second.stats["requests"] == 1
