"""A secret kind the redaction rules learnt after a request was archived leaves the archive: opened
under other rules, the archive redacts every text it holds again, once, in one transaction, and
the SQLite file keeps no copy of what it replaced."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from skillopt_core import redaction
from skillopt_core.redaction import Redactor, rules_fingerprint
from skillopt_sleep.mine import Archive, MineConfig
from skillopt_sleep.mine.archive import text_hash
from skillopt_sleep.mine.candidates import Candidate
from skillopt_sleep.mine.pipeline import mine_candidates
from skillopt_sleep.mine.synth import JudgeSpec
from skillopt_sleep.records import Check, Signal, SignalKind

T0 = datetime(2026, 11, 2, 10, tzinfo=timezone.utc)
SECRET = "Tr0ub4dorHorse77"
OTHER_SECRET = "CorrectBattery42"
REQUEST = f"clone https://deploy:{SECRET}@git.example.com/app.git then run the tests"
REDACTED = "clone https://[REDACTED:url-credentials]@git.example.com/app.git then run the tests"


@contextlib.contextmanager
def previous_rules() -> Iterator[None]:
    """The rules of a version that did not know URL credentials yet."""
    rules = vars(redaction)  # the scanner reads its RULES global at each call
    current = rules["RULES"]
    rules["RULES"] = tuple(r for r in current if r.kind != "url-credentials")
    try:
        yield
    finally:
        rules["RULES"] = current


@pytest.fixture
def insecure_sqlite_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite as most platforms build it (Debian's turns ``secure_delete`` on by default): a
    deleted row's bytes stay in the file unless the archive asks for them to be overwritten."""
    connect = sqlite3.connect

    def connect_insecure(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db: sqlite3.Connection = connect(*args, **kwargs)
        db.execute("PRAGMA secure_delete = OFF")
        return db

    monkeypatch.setattr(sqlite3, "connect", connect_insecure)


def _asked(text: str, session: str, day: int = 0, secret: str = SECRET) -> Candidate:
    return Candidate(
        text,
        session,
        "claude",
        "/p",
        T0 + timedelta(days=day),
        0,
        signals=(Signal(SignalKind.CORRECTION, 1, f"no, use https://ci:{secret}@git.example.com"),),
        outcome="failed",
        feedback=(f"no, use https://ci:{secret}@git.example.com",),
        context=f"remote: https://deploy:{secret}@git.example.com/app.git",
        reply=f"cloned https://deploy:{secret}@git.example.com/app.git",
        tools=("Bash",),
    )


def _file_bytes(path: Path) -> bytes:
    """The database and any journal or WAL beside it."""
    return b"".join(
        p.read_bytes() for p in (path, *path.parent.glob(path.name + "-*")) if p.is_file()
    )


def _archived_under_previous_rules(path: Path) -> None:
    with previous_rules(), Archive(path) as archive:
        archive.add([_asked(REQUEST, "s1", 0), _asked(REQUEST, "s2", 3)], "2026-11-05")
        archive.set_families({text_hash(REQUEST): "f-deploy"})
        archive.set_splits({text_hash(REQUEST): "train"})
        archive.put_embeddings("jaccard", {text_hash(REQUEST): b"\x01\x02"})
        spec = JudgeSpec(REQUEST, (Check("contains", SECRET, "uses the key"),), "rubric", "")
        archive.put_spec("f-deploy", "members", spec, "2026-11-05")
        archive.put_spec("f-other", "members", JudgeSpec("list the open issues"), "2026-11-05")
    assert SECRET.encode() in _file_bytes(path)


@pytest.mark.usefixtures("insecure_sqlite_default")
def test_a_secret_the_rules_learnt_since_is_nowhere_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    _archived_under_previous_rules(path)

    with Archive(path) as archive:
        (row,) = archive.requests()
        assert row[1:4] == (REDACTED, "f-deploy", "train")
        occurrences = archive.occurrences()
        assert list(occurrences) == [text_hash(REDACTED)]
        assert [c.session_id for c in occurrences[text_hash(REDACTED)]] == ["s1", "s2"]
        first = occurrences[text_hash(REDACTED)][0]
        assert first.text == REDACTED and first.outcome == "failed"
        assert "[REDACTED:url-credentials]" in first.context + first.reply + first.feedback[0]
        assert "[REDACTED:url-credentials]" in first.signals[0].excerpt
        assert archive.embeddings([text_hash(REQUEST)], "jaccard") == {}
        assert archive.spec("f-deploy", "members") is None  # its judge quoted the secret
        assert archive.spec("f-other", "members") == JudgeSpec("list the open issues")
    assert SECRET.encode() not in _file_bytes(path)


def test_the_redacted_archive_mines_no_secret(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    _archived_under_previous_rules(path)
    config = MineConfig(embedder="jaccard", night="2026-11-20")
    with Archive(path) as archive:
        result = mine_candidates([], 0, archive, config)
    assert [t.intent for t in result.tasks] == [REDACTED]
    assert SECRET not in repr(result)


def test_requests_that_differ_only_by_the_secret_become_one(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    other = REQUEST.replace(SECRET, OTHER_SECRET)
    with previous_rules(), Archive(path) as archive:
        archive.add([_asked(REQUEST, "s1", 0)], "2026-11-02")
        archive.add([_asked(other, "s2", 4, OTHER_SECRET)], "2026-11-09")
        archive.set_families({text_hash(REQUEST): "f-a", text_hash(other): "f-b"})
        assert len(archive.requests()) == 2

    with Archive(path) as archive:
        ((digest, text, family, _, first_seen, last_night),) = archive.requests()
        assert (digest, text) == (text_hash(REDACTED), REDACTED)
        assert family in ("f-a", "f-b")
        assert (first_seen, last_night) == (T0, "2026-11-09")
        grouped = archive.occurrences()
        assert [c.session_id for c in grouped[digest]] == ["s1", "s2"]
    data = _file_bytes(path)
    assert SECRET.encode() not in data and OTHER_SECRET.encode() not in data


def test_an_occurrence_whose_text_redacts_otherwise_keeps_a_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same request in another case (one text hash) that a case-sensitive rule tells apart."""
    path = tmp_path / "mine-archive.sqlite3"
    upper = "upload the build with key AKIAIOSFODNN7EXAMPL3 tonight"
    lower = upper.replace("AKIAIOSFODNN7EXAMPL3", "akiaiosfodnn7exampl3")
    rules = vars(redaction)
    known = rules["RULES"]
    monkeypatch.setitem(rules, "RULES", tuple(r for r in known if r.kind != "aws-access-key-id"))
    with Archive(path) as archive:
        archive.add([_asked(upper, "s1", 0), _asked(lower, "s2", 2)], "2026-11-04")
        assert len(archive.requests()) == 1
    monkeypatch.setitem(rules, "RULES", known)

    with Archive(path) as archive:
        redacted = upper.replace("AKIAIOSFODNN7EXAMPL3", "[REDACTED:aws-access-key-id]")
        assert {row[1] for row in archive.requests()} == {redacted, lower}
        grouped = archive.occurrences()
        assert {h: [c.session_id for c in found] for h, found in grouped.items()} == {
            text_hash(redacted): ["s1"],
            text_hash(lower): ["s2"],
        }
    assert b"AKIAIOSFODNN7EXAMPL3" not in _file_bytes(path)


def test_an_archive_is_redacted_again_only_once(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    _archived_under_previous_rules(path)
    with Archive(path) as archive:
        assert archive.requests()[0][1] == REDACTED
    with Archive(path) as archive:
        assert archive._db.total_changes == 0  # same rules: nothing read again, nothing written
        assert archive.requests()[0][1] == REDACTED


def test_an_archive_from_before_the_rules_were_recorded_is_redacted(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    _archived_under_previous_rules(path)
    db = sqlite3.connect(path)
    db.execute("DROP TABLE meta")  # as every version before this one wrote it
    db.commit()
    db.close()
    with Archive(path) as archive:
        assert archive.requests()[0][1] == REDACTED


def test_a_run_killed_while_redacting_leaves_the_archive_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    _archived_under_previous_rules(path)
    with previous_rules(), Archive(path) as archive:  # pages enough to spill mid-transaction
        archive.add(
            [_asked(f"{REQUEST} in folder {i} {'x' * 400}", f"p{i}", 1) for i in range(300)],
            "2026-11-06",
        )
        before = archive.requests()
    killed = textwrap.dedent(
        """
        import os, sqlite3, sys
        from skillopt_sleep.mine import _reredact
        from skillopt_sleep.mine.archive import Archive

        connect = sqlite3.connect
        def small_cache(*args, **kwargs):
            db = connect(*args, **kwargs)
            db.execute("PRAGMA cache_size = 1")
            return db
        sqlite3.connect = small_cache
        _reredact._families = lambda db, redacted: os._exit(9)
        Archive(sys.argv[1])
        """
    )
    done = subprocess.run([sys.executable, "-c", killed, str(path)], check=False, timeout=60)
    assert done.returncode == 9

    with previous_rules(), Archive(path) as archive:  # the old rules: opened as it was
        assert archive.requests() == before
    with Archive(path) as archive:
        assert {row[1] for row in archive.requests()} == {
            row[1].replace(f"deploy:{SECRET}", "[REDACTED:url-credentials]") for row in before
        }
    assert SECRET.encode() not in _file_bytes(path)


@pytest.mark.usefixtures("insecure_sqlite_default")
def test_a_moved_request_leaves_no_copy_of_its_old_text(tmp_path: Path) -> None:
    path = tmp_path / "mine-archive.sqlite3"
    with Archive(path) as archive:
        archive.add([Candidate(REQUEST, "s1", "claude", "/p", T0, 0)], "2026-11-02")
        archive.add([Candidate(REDACTED, "s1", "claude", "/p", T0, 0)], "2026-11-20")
        assert [row[1] for row in archive.requests()] == [REDACTED]
    assert SECRET.encode() not in _file_bytes(path)


def test_the_fingerprint_follows_the_rules_and_the_user_patterns() -> None:
    assert rules_fingerprint() == rules_fingerprint(Redactor())
    with previous_rules():
        older = rules_fingerprint()
    assert older != rules_fingerprint()
    assert rules_fingerprint(Redactor({"ticket": r"TCK-\d+"})) != rules_fingerprint(Redactor())
    assert rules_fingerprint(Redactor(allowlist=["AKIAIOSFODNN7EXAMPLE"])) != rules_fingerprint()
    assert rules_fingerprint(Redactor(entropy=False)) != rules_fingerprint()


def test_a_new_archive_records_its_rules() -> None:
    with Archive(":memory:") as archive:
        row = archive._db.execute("SELECT value FROM meta").fetchone()
        assert row == (rules_fingerprint(),)
