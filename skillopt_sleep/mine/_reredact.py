"""Redact the archive again when the redaction rules changed since it was written.

The archive keeps every request ever mined, redacted by the rules of the version that archived
it; a secret kind learnt since would stay in clear forever (clustered, reported, quoted in a
judge, replayed). So the archive records :func:`~skillopt_core.redaction.rules_fingerprint` in
its ``meta`` table, and when it opens under other rules every stored text passes the redactor
again, in one transaction (a kill mid-way leaves the archive as it was): request texts (a text
that changes moves to its new text hash, merged with a request that has that text already; its
cached encodings are dropped), every text of every occurrence, and a family's judge that quoted
a secret is dropped (made afresh from the redacted members). Confirmations hold only hashes.
Deleted content is overwritten (``secure_delete``, set by the archive), so the file keeps no copy.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import replace

from skillopt_core.redaction import Redactor
from skillopt_sleep._sqlite import FINGERPRINT_KEY, WIPE_KEY, stored_fingerprint
from skillopt_sleep.mine.archive import (
    candidate_from_json,
    candidate_to_json,
    forget_unasked,
    spec_from_json,
    text_hash,
)
from skillopt_sleep.mine.candidates import Candidate
from skillopt_sleep.mine.synth import JudgeSpec

_BATCH = 16  # texts per redaction scan, as the harvest seals them
_PAGE = 1000  # occurrences read at a time


class _Redacted:
    """Each distinct text redacted once: a request's text, kept for the whole run (it is also
    its occurrences' text), or another text of the page of occurrences read now."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._lasting: dict[str, str] = {"": ""}
        self._page: dict[str, str] = {}

    def prepare(self, texts: Iterable[str], *, lasting: bool = False) -> None:
        known = self._lasting if lasting else self._page
        todo = list(
            dict.fromkeys(t for t in texts if t not in self._lasting and t not in self._page)
        )
        for start in range(0, len(todo), _BATCH):
            batch = todo[start : start + _BATCH]
            known.update(zip(batch, self._redactor.redact_many(batch), strict=True))

    def end_page(self) -> None:
        self._page = {}

    def __getitem__(self, text: str) -> str:
        found = self._lasting.get(text)
        if found is None:
            if text not in self._page:
                self.prepare([text])
            found = self._page[text]
        return found


def reredact(db: sqlite3.Connection, redactor: Redactor, fingerprint: str) -> bool:
    """Redact every stored text with ``redactor`` unless the archive was written under
    ``fingerprint`` (its rules); True when it was redacted again."""
    if stored_fingerprint(db) == fingerprint:
        return False
    with db:
        db.execute("BEGIN IMMEDIATE")  # read and rewrite under one lock: no night in between
        if stored_fingerprint(db) == fingerprint:
            return False
        redacted = _Redacted(redactor)
        _requests(db, redacted)
        _occurrences(db, redacted)
        _keep_asked(db)
        _families(db, redacted)
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (FINGERPRINT_KEY, fingerprint))
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (WIPE_KEY,))
    return True


def _requests(db: sqlite3.Connection, redacted: _Redacted) -> None:
    rows = db.execute(
        "SELECT text_hash, text, family, split, first_seen, first_night, last_night FROM requests"
    ).fetchall()
    redacted.prepare((row[1] for row in rows), lasting=True)
    moved = [(row, redacted[row[1]]) for row in rows if redacted[row[1]] != row[1]]
    old = [(row[0],) for row, _ in moved]
    db.executemany("DELETE FROM embeddings WHERE text_hash = ?", old)
    db.executemany("DELETE FROM requests WHERE text_hash = ?", old)
    db.executemany(  # every old row is gone first: a new hash only meets a kept request
        "INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(text_hash) DO UPDATE SET "
        "family = coalesce(family, excluded.family), split = coalesce(split, excluded.split), "
        "first_seen = min(first_seen, excluded.first_seen), "
        "first_night = min(first_night, excluded.first_night), "
        "last_night = max(last_night, excluded.last_night)",
        [(text_hash(text), text, *row[2:]) for row, text in moved],
    )


def _occurrences(db: sqlite3.Connection, redacted: _Redacted) -> None:
    """Every occurrence's texts, a page of occurrences at a time (a whole archive's candidates
    are never held at once)."""
    after = ""
    while rows := db.execute(
        "SELECT key, candidate FROM occurrences WHERE key > ? ORDER BY key LIMIT ?",
        (after, _PAGE),
    ).fetchall():
        after = rows[-1][0]
        candidates = [candidate_from_json(blob) for _, blob in rows]
        redacted.prepare(text for c in candidates for text in _texts(c))
        updates = []
        for (key, _), candidate in zip(rows, candidates, strict=True):
            if any(redacted[t] != t for t in _texts(candidate)):
                again = _redact_candidate(candidate, redacted)
                updates.append((text_hash(again.text), candidate_to_json(again), key))
        db.executemany("UPDATE occurrences SET text_hash = ?, candidate = ? WHERE key = ?", updates)
        redacted.end_page()


def _texts(candidate: Candidate) -> list[str]:
    return [
        candidate.text,
        candidate.project,
        candidate.context,
        candidate.reply,
        *candidate.feedback,
        *candidate.tools,
        *(s.excerpt for s in candidate.signals),
    ]


def _redact_candidate(candidate: Candidate, redacted: _Redacted) -> Candidate:
    return replace(
        candidate,
        text=redacted[candidate.text],
        project=redacted[candidate.project],
        context=redacted[candidate.context],
        reply=redacted[candidate.reply],
        feedback=tuple(redacted[t] for t in candidate.feedback),
        tools=tuple(redacted[t] for t in candidate.tools),
        signals=tuple(replace(s, excerpt=redacted[s.excerpt]) for s in candidate.signals),
    )


def _keep_asked(db: sqlite3.Connection) -> None:
    """Every occurrence's request exists, and only those: an occurrence whose text redacts
    otherwise than its request's (the same text in another case, which a case-sensitive rule
    tells apart) gets a request of its own; a request no occurrence asks is forgotten."""
    orphans = db.execute(
        "SELECT text_hash, candidate, timestamp, night FROM occurrences "
        "WHERE text_hash NOT IN (SELECT text_hash FROM requests) ORDER BY timestamp, key"
    ).fetchall()
    db.executemany(
        "INSERT INTO requests VALUES (?, ?, NULL, NULL, ?, ?, ?) ON CONFLICT(text_hash) DO UPDATE "
        "SET last_night = max(last_night, excluded.last_night)",
        [(h, candidate_from_json(blob).text, ts, night, night) for h, blob, ts, night in orphans],
    )
    forget_unasked(db)


def _families(db: sqlite3.Connection, redacted: _Redacted) -> None:
    """Drop each judge that quotes what the rules redact now: its family's next night designs
    it again from the redacted requests (a check's regex cannot simply be redacted)."""
    quoting = [
        (family,)
        for family, blob in db.execute("SELECT id, spec FROM families").fetchall()
        if any(redacted[t] != t for t in _spec_texts(spec_from_json(blob)))
    ]
    db.executemany("DELETE FROM families WHERE id = ?", quoting)


def _spec_texts(spec: JudgeSpec) -> list[str]:
    return [
        spec.intent,
        spec.rubric,
        spec.reference,
        *(text for check in spec.checks for text in (check.value, check.description)),
    ]
