"""A mining archive an older version wrote is mined by today's rules once opened.

Versions before 873271b archived Claude Code's record of a slash command as the request text
(``<command-message>…</command-message> <command-name>/review</command-name> <command-args>12
</command-args>``) and this engine's own invocations (``/skillopt-sleep status`` typed in a
harness) as requests. The archive is clustered whole every night, so after an upgrade those rows
kept forming a family that was replayed and trained (the bug 873271b fixed for new sessions), and
a slash command kept two request texts, its record and its typed form. The fixture writes the
rows as those versions did: the same tables (unchanged since the archive's first version),
``PRAGMA user_version`` 0, texts whitespace-folded as candidates stored them.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from skillopt_sleep.mine import MineConfig, mine
from skillopt_sleep.mine.archive import (
    Archive,
    candidate_to_json,
    open_archive,
    text_hash,
)
from skillopt_sleep.mine.candidates import Candidate

OWN = (
    "<command-message>skillopt-sleep</command-message> "
    "<command-name>/skillopt-sleep</command-name> <command-args>status</command-args>"
)
REVIEW = (
    "<command-message>review</command-message> "
    "<command-name>/review</command-name> <command-args>12</command-args>"
)
MERGING = "summarise the related work on model merging for chapter two"
DAY = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)


def _candidate(text: str, session: str, day: int) -> Candidate:
    return Candidate(text, session, "claude", "/p", DAY + timedelta(days=day), 0)


def _old_archive(path: Path) -> None:
    """Rows as versions 185f62f .. 873271b~1 left them: four occasions of the engine's own
    command (a family with its judge), a slash command recorded twice and typed once."""
    rows = [
        ("f-own", OWN, ["s1", "s2", "s3"]),
        ("f-review", REVIEW, ["s4", "s5"]),
        ("f-review", "/review 12", ["s6"]),
        ("f-merge", MERGING, ["s7", "s8"]),
        ("f-own", "$skillopt-sleep status", ["s9"]),  # typed in Codex
    ]
    with Archive(path) as fresh:  # today's tables (the same as every version's)
        fresh.close()
    db = sqlite3.connect(path)
    with db:
        db.execute("PRAGMA user_version = 0")
        for day, (family, text, sessions) in enumerate(rows):
            night = f"2026090{day + 1}-031700"
            stamp = (DAY + timedelta(days=day)).isoformat()
            db.execute(
                "INSERT INTO requests VALUES (?, ?, ?, 'train', ?, ?, ?)",
                (text_hash(text), text, family, stamp, night, night),
            )
            for session in sessions:
                db.execute(
                    "INSERT INTO occurrences VALUES (?, ?, ?, ?, ?)",
                    (
                        f"claude:{session}:0",
                        text_hash(text),
                        stamp,
                        night,
                        candidate_to_json(_candidate(text, session, day)),
                    ),
                )
        db.execute(
            "INSERT INTO families VALUES ('f-own', 'fp', ?, '20260901-031700')",
            ('{"checks": [], "intent": "' + OWN + '", "reference": "", "rubric": ""}',),
        )
    db.close()


def test_an_old_archive_keeps_requests_as_todays_miner_does(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    _old_archive(path)
    with open_archive(path) as archive:
        texts = {row[1]: row for row in archive.requests()}
        occurrences = archive.occurrences()
        assert sorted(texts) == ["/review 12", MERGING]
        review = texts["/review 12"]
        assert review[4] == DAY + timedelta(days=1)  # first seen as the record was
        assert sorted(c.session_id for c in occurrences[text_hash("/review 12")]) == [
            "s4",
            "s5",
            "s6",
        ]
        assert {c.text for c in occurrences[text_hash("/review 12")]} == {"/review 12"}
        assert text_hash(OWN) not in occurrences and text_hash(REVIEW) not in occurrences
        assert archive.spec("f-own", "fp") is None
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] >= 1  # upgraded once, not each time
    db.close()


def test_the_engines_own_command_from_an_old_archive_is_never_mined_again(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    _old_archive(path)
    with open_archive(path) as archive:
        mined = mine([], archive, MineConfig(embedder="tfidf", night="20261127-031700"))
    intents = [t.intent for t in mined.tasks]
    assert intents and not any("skillopt-sleep" in i or "<command-" in i for i in intents)


def test_a_resumed_sessions_old_turns_are_stored_as_today(tmp_path: Path) -> None:
    """A session an old version harvested in part resumes from its stored turns, in their old
    form: its own command is not stored, a recorded slash command is stored as typed."""
    with Archive(tmp_path / "a.sqlite3") as archive:
        archive.add([_candidate(OWN, "s1", 0), _candidate(REVIEW, "s2", 0)], "20261127-031700")
        assert [row[1] for row in archive.requests()] == ["/review 12"]
