"""The miner's SQLite archive in the project state dir: every request seen, across nights.

Tables: ``occurrences`` (one per session request; a re-harvested session updates its row, never
adds a duplicate), ``requests`` (one per distinct request text some occurrence asks: family,
split, nights seen),
``embeddings`` (an encoded request per text hash and embedder cache key — only for embedders
whose encoding depends on the text alone), ``families`` (the synthesised judge, with a fingerprint of the members it
was made from so it is re-synthesised only when the family changed) and ``confirmations`` (the
optimizer's answer on whether a candidate family is one task, by the hash of its request texts);
``meta`` records the redaction rules the texts were redacted with: an archive opened under other
rules redacts what it holds again (see ``_reredact``). Deleted text is overwritten on disk
(``secure_delete``): a request forgotten for a secret leaves no copy in the file.

Retention of ``confirmations``: a family's hash changes whenever its members do, so verdicts on
families that no longer exist pile up. Each archive opened that asks for or stores a verdict is
a *run*; when it closes, the verdicts it used are stamped with that run in ``confirmations_used``
(its own table: an older version's two-column inserts still work). A night then drops, in one
transaction, the verdicts no run used for ``CONFIRM_KEEP_RUNS`` runs and, beyond
``CONFIRM_CAP``, the longest unused ones; a verdict the last run used is never dropped (see
:mod:`._retention`). A dropped verdict only costs one model call, within the night's budget.

``PRAGMA user_version`` is :data:`ARCHIVE_VERSION` once every archived request is kept as the miner
keeps requests now (:func:`kept_text`); an archive of an older version is brought up to it when
it is opened, so what those versions archived under older rules is never mined again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_sleep._sqlite import guarded
from skillopt_sleep.mine.candidates import Candidate, candidates_from_session, normalize
from skillopt_sleep.mine.synth import JudgeSpec
from skillopt_sleep.records import Check, Session, Signal, SignalKind, Turn

ARCHIVE_NAME = "mine-archive.sqlite3"
ARCHIVE_VERSION = 1  # 0: written before slash commands were kept as typed (see kept_text)
EMBEDDING_BLOCK = 500  # cached encodings read per query (about 12 MB of MiniLM token vectors)

# Claude Code's record of a slash command, which versions before 873271b archived as a request
_RECORDED_COMMAND = ("<command-message>", "<command-name>")
_COMMAND_TAG = re.compile(r"<command-(name|args)>(.*?)</command-\1>", re.DOTALL)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS occurrences (
    key TEXT PRIMARY KEY, text_hash TEXT NOT NULL, timestamp TEXT NOT NULL,
    night TEXT NOT NULL, candidate TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS occurrences_hash ON occurrences(text_hash);
CREATE TABLE IF NOT EXISTS requests (
    text_hash TEXT PRIMARY KEY, text TEXT NOT NULL, family TEXT, split TEXT,
    first_seen TEXT NOT NULL, first_night TEXT NOT NULL, last_night TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embeddings (
    text_hash TEXT NOT NULL, embedder TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (text_hash, embedder));
CREATE TABLE IF NOT EXISTS families (
    id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, spec TEXT NOT NULL, updated_night TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS confirmations (family_hash TEXT PRIMARY KEY, groups TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS confirmations_used (family_hash TEXT PRIMARY KEY, run INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def text_hash(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()[:20]


def kept_text(text: str) -> str | None:
    """An archived request's text as the miner keeps it since 873271b, or None when it keeps no
    request of it. Before, a slash command was archived as Claude Code's record of it
    (``<command-name>/review</command-name> <command-args>12</command-args>``): it is the
    command as typed (``/review 12``); and a command today's rules never make a request of
    (this engine's own ``/skillopt-sleep status`` or ``$skillopt-sleep``) was archived too: None.
    A session resumed from such a version's harvest index brings its old turns back that way."""
    typed = text
    if text.startswith(_RECORDED_COMMAND):
        tags = dict(_COMMAND_TAG.findall(text))
        name = tags.get("name", "").strip()
        typed = f"{name} {tags.get('args', '').strip()}".strip() if name else text
    if not typed.lstrip().startswith(("/", "$")):  # no command: no rule about it changed
        return typed
    opening = Session("claude", "", "", "", _EPOCH, _EPOCH, (Turn("user", typed),))
    return typed if candidates_from_session(opening) else None


_CANDIDATE_FIELDS = fields(Candidate)


def forget_unasked(db: sqlite3.Connection) -> None:
    """Forget the requests no occurrence asks any more (and their cached encodings): a turn
    delivered again (its session resumed) under another text (a later version redacts or cuts
    it otherwise) moved its occurrence, and its old text, maybe with a secret the new rules
    redact, must not be clustered or replayed again."""
    unasked = "SELECT text_hash FROM requests EXCEPT SELECT text_hash FROM occurrences"
    db.execute(f"DELETE FROM embeddings WHERE text_hash IN ({unasked})")
    db.execute(f"DELETE FROM requests WHERE text_hash IN ({unasked})")


def candidate_to_json(candidate: Candidate) -> str:
    # a shallow dict (``asdict`` deep-copies every field: most of a first night's archiving)
    data: dict[str, Any] = {f.name: getattr(candidate, f.name) for f in _CANDIDATE_FIELDS}
    data["timestamp"] = candidate.timestamp.isoformat()
    data["signals"] = [
        {"kind": s.kind.value, "turn_index": s.turn_index, "excerpt": s.excerpt}
        for s in candidate.signals
    ]
    return json.dumps(data, sort_keys=True)


def candidate_from_json(text: str) -> Candidate:
    data: dict[str, Any] = json.loads(text)
    data["timestamp"] = datetime.fromisoformat(data["timestamp"])
    data["signals"] = tuple(
        Signal(SignalKind(s["kind"]), s["turn_index"], s["excerpt"]) for s in data["signals"]
    )
    for name in ("feedback", "tools"):
        data[name] = tuple(data[name])
    return Candidate(**data)


def spec_to_json(spec: JudgeSpec) -> str:
    return json.dumps(asdict(spec), sort_keys=True)


def spec_from_json(text: str) -> JudgeSpec:
    data = json.loads(text)
    data["checks"] = tuple(Check(**c) for c in data["checks"])
    return JudgeSpec(**data)


@contextlib.contextmanager
def open_archive(path: str | os.PathLike[str]) -> Iterator[Archive]:
    """The archive at ``path`` for one night's mining; a damaged or unusable file is a
    StorageError with the way out (a BusyError when another run holds it), never a traceback."""
    location = str(path)
    hint = (
        f"move {location} aside and run again: mining starts a fresh archive (the requests of "
        "earlier nights are then forgotten; delete the harvest index too to re-read them)"
    )
    with guarded(location, "the mining archive", hint), Archive(path) as archive:
        yield archive


class Archive:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        from skillopt_sleep.paths import private_dir, private_file

        self.path = Path(path)
        if str(path) != ":memory:":  # it holds the requests themselves: the owner's only
            private_dir(self.path.parent)
            private_file(self.path)
        self._used: set[str] = set()  # verdicts asked for or stored (stamped at close)
        self._db = sqlite3.connect(str(self.path))
        self._db.execute("PRAGMA secure_delete = ON")
        self._db.executescript(_SCHEMA)
        self._upgrade()
        self._redact_again()

    def _redact_again(self) -> None:
        """Redact every stored text again when the redaction rules changed since it was stored."""
        from skillopt_core.redaction import default_redactor, rules_fingerprint
        from skillopt_sleep._sqlite import wipe_free_pages
        from skillopt_sleep.mine._reredact import reredact

        redactor = default_redactor()
        reredact(self._db, redactor, rules_fingerprint(redactor))
        wipe_free_pages(self._db)

    def _upgrade(self) -> None:
        """Keep every request of an older version's archive as :func:`kept_text` says, in one
        transaction: one in its old form moves to its typed form (merged with that request when
        it was archived too, its family's judge made afresh), one never kept is forgotten."""
        db = self._db
        if db.execute("PRAGMA user_version").fetchone()[0] >= ARCHIVE_VERSION:
            return
        with db:
            for digest, text, family in db.execute(
                "SELECT text_hash, text, family FROM requests"
            ).fetchall():
                kept = kept_text(text)
                if kept == text:
                    continue
                db.execute("DELETE FROM families WHERE id = ?", (family,))
                db.execute("DELETE FROM embeddings WHERE text_hash = ?", (digest,))
                if kept is None:
                    db.execute("DELETE FROM occurrences WHERE text_hash = ?", (digest,))
                else:
                    self._move(digest, kept)
                db.execute("DELETE FROM requests WHERE text_hash = ?", (digest,))
            db.execute(f"PRAGMA user_version = {ARCHIVE_VERSION}")

    def _move(self, digest: str, text: str) -> None:
        """Store the request ``digest`` and its occurrences under ``text`` (the caller removes
        the old request row)."""
        moved = text_hash(text)
        self._db.execute(
            "INSERT INTO requests SELECT ?, ?, family, split, first_seen, first_night, last_night "
            "FROM requests WHERE text_hash = ? ON CONFLICT(text_hash) DO UPDATE SET "
            "first_seen = min(first_seen, excluded.first_seen), "
            "first_night = min(first_night, excluded.first_night), "
            "last_night = max(last_night, excluded.last_night)",
            (moved, text, digest),
        )
        for key, blob in self._db.execute(
            "SELECT key, candidate FROM occurrences WHERE text_hash = ?", (digest,)
        ).fetchall():
            self._db.execute(
                "UPDATE occurrences SET text_hash = ?, candidate = ? WHERE key = ?",
                (moved, candidate_to_json(replace(candidate_from_json(blob), text=text)), key),
            )

    @classmethod
    def for_project(cls, project: str | Path) -> Archive:
        from skillopt_sleep.paths import project_state_dir

        return cls(project_state_dir(project) / ARCHIVE_NAME)

    def close(self) -> None:
        from skillopt_sleep.mine._retention import stamp_used

        if self._used:  # a stamp that cannot be written only costs a model call later
            with contextlib.suppress(sqlite3.Error):
                stamp_used(self._db, self._used)
            self._used.clear()
        self._db.close()

    def retain_confirmations(self) -> int:
        """Drop the verdicts no recent run used (see the module doc); returns how many."""
        from skillopt_sleep.mine._retention import retain_confirmations

        return retain_confirmations(self._db)

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def add(self, candidates: Iterable[Candidate], night: str) -> int:
        """Store tonight's candidates; returns how many occurrences were new (not merged)."""
        new = 0
        with self._db:
            for c in candidates:
                if c.text.startswith(_RECORDED_COMMAND):  # an old turn of a resumed session
                    text = kept_text(c.text)
                    if text is None:
                        continue
                    c = replace(c, text=text)
                key = f"{c.harness}:{c.session_id}:{c.turn_index}"
                digest = text_hash(c.text)
                stamp = c.timestamp.isoformat()
                exists = self._db.execute(
                    "SELECT 1 FROM occurrences WHERE key = ?", (key,)
                ).fetchone()
                new += exists is None
                self._db.execute(
                    "INSERT INTO occurrences VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET "
                    "text_hash = excluded.text_hash, candidate = excluded.candidate",
                    (key, digest, stamp, night, candidate_to_json(c)),
                )
                self._db.execute(
                    "INSERT INTO requests VALUES (?, ?, NULL, NULL, ?, ?, ?) ON CONFLICT(text_hash) DO UPDATE SET "
                    "last_night = max(last_night, excluded.last_night), first_seen = min(first_seen, excluded.first_seen)",
                    (digest, c.text, stamp, night, night),
                )
            forget_unasked(self._db)
        return new

    def requests(self) -> list[tuple[str, str, str | None, str | None, datetime, str]]:
        """(text hash, text, family, split, first seen, last night) for every request, oldest first."""
        rows = self._db.execute(
            "SELECT text_hash, text, family, split, first_seen, last_night FROM requests ORDER BY first_seen, text_hash"
        ).fetchall()
        return [
            (h, t, f, s, datetime.fromisoformat(seen), night) for h, t, f, s, seen, night in rows
        ]

    def occurrences(self) -> dict[str, list[Candidate]]:
        """Every stored attempt, grouped by request text hash, in time order."""
        grouped: dict[str, list[Candidate]] = {}
        for digest, blob in self._db.execute(
            "SELECT text_hash, candidate FROM occurrences ORDER BY timestamp, key"
        ):
            grouped.setdefault(digest, []).append(candidate_from_json(blob))
        return grouped

    def set_families(self, families: dict[str, str]) -> None:
        with self._db:
            self._db.executemany(
                "UPDATE requests SET family = ? WHERE text_hash = ?",
                [(f, h) for h, f in families.items()],
            )

    def set_splits(self, splits: Mapping[str, str]) -> None:
        with self._db:
            self._db.executemany(
                "UPDATE requests SET split = ? WHERE text_hash = ?",
                [(s, h) for h, s in splits.items()],
            )

    def embeddings(self, hashes: Sequence[str], cache_key: str) -> dict[str, bytes]:
        """Cached encodings of ``hashes`` under an embedder's ``cache_key`` (missing ones absent)."""
        return dict(self._embedding_rows(hashes, cache_key, "vector"))

    def embedding_sizes(self, hashes: Sequence[str], cache_key: str) -> dict[str, int]:
        """The byte length of each cached encoding of ``hashes`` (missing ones absent), read
        without the encodings themselves."""
        return dict(self._embedding_rows(hashes, cache_key, "length(vector)"))

    def embedding_stream(self, hashes: Sequence[str], cache_key: str) -> Iterator[bytes]:
        """The cached encodings of ``hashes`` in their order (``b""`` for a missing one), read
        a block at a time: a whole archive's encodings are never held at once."""
        for start in range(0, len(hashes), EMBEDDING_BLOCK):
            chunk = hashes[start : start + EMBEDDING_BLOCK]
            found = dict(self._embedding_rows(chunk, cache_key, "vector"))
            yield from (found.pop(h, b"") for h in chunk)

    def _embedding_rows(
        self, hashes: Sequence[str], cache_key: str, column: str
    ) -> Iterator[tuple[str, Any]]:
        for start in range(0, len(hashes), EMBEDDING_BLOCK):
            chunk = list(hashes[start : start + EMBEDDING_BLOCK])
            marks = ",".join("?" * len(chunk))
            for digest, value in self._db.execute(
                f"SELECT text_hash, {column} FROM embeddings "
                f"WHERE embedder = ? AND text_hash IN ({marks})",
                (cache_key, *chunk),
            ):
                yield digest, bytes(value) if isinstance(value, (bytes, memoryview)) else value

    def put_embeddings(
        self, cache_key: str, encodings: dict[str, bytes], *, purge: bool = True
    ) -> None:
        """Store encodings; entries under any other key (an older encoding) are dropped, unless
        ``purge`` is false (a later part of encodings stored in parts: already done)."""
        with self._db:
            if purge:
                self._db.execute("DELETE FROM embeddings WHERE embedder != ?", (cache_key,))
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                [(h, cache_key, blob) for h, blob in encodings.items()],
            )

    def drop_embeddings(self, cache_key: str) -> None:
        with self._db:
            self._db.execute("DELETE FROM embeddings WHERE embedder = ?", (cache_key,))

    def spec(self, family: str, fingerprint: str) -> JudgeSpec | None:
        row = self._db.execute(
            "SELECT fingerprint, spec FROM families WHERE id = ?", (family,)
        ).fetchone()
        return spec_from_json(row[1]) if row and row[0] == fingerprint else None

    def put_spec(self, family: str, fingerprint: str, spec: JudgeSpec, night: str) -> None:
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO families VALUES (?, ?, ?, ?)",
                (family, fingerprint, spec_to_json(spec), night),
            )

    def confirmation(self, family_hash: str) -> list[list[int]] | None:
        row = self._db.execute(
            "SELECT groups FROM confirmations WHERE family_hash = ?", (family_hash,)
        ).fetchone()
        if row is None:
            return None
        self._used.add(family_hash)
        return [list(g) for g in json.loads(row[0])]

    def put_confirmation(self, family_hash: str, groups: list[list[int]]) -> None:
        self._used.add(family_hash)
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO confirmations VALUES (?, ?)",
                (family_hash, json.dumps(groups)),
            )

    def counts(self) -> dict[str, int]:
        return {
            table: int(self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in ("occurrences", "requests", "embeddings", "families")
        }
