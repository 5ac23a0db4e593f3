"""The small, harness-neutral event vocabulary every source reduces its records to.

Sources turn raw transcript records into events; ``_build`` turns events into ``Session``s. Events
are plain lists so a file's parsed state can be stored in the index and extended when the file
grows, without re-reading the bytes already seen.

Layout: ``[kind, ts, key, a, b, c, d]`` where ``ts`` is epoch seconds (UTC) or None and ``key`` an
optional de-duplication key (e.g. a record uuid repeated across continued-session files).

======== ========== ========= ============ =========
kind     a          b         c            d
======== ========== ========= ============ =========
user     text
assistant text
call     call_id    name      input
result   call_id    excerpt   is_error     exit_code
interrupt
======== ========== ========= ============ =========

Constructors keep a raw window of each text; :func:`seal` redacts and truncates it in one batch
per read (redaction always runs before truncation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from skillopt_core.markers import is_engine_text
from skillopt_core.redaction import redact, redact_many

USER, ASSISTANT, CALL, RESULT, INTERRUPT = "user", "assistant", "call", "result", "interrupt"

Event = list[Any]

# Limits on what is kept per field (characters, after redaction).
PROMPT_CHARS = 8000
TEXT_CHARS = 2000
INPUT_CHARS = 400
RESULT_CHARS = 400
# Redaction sees this much beyond the kept length, so a secret straddling the cut is still caught;
# a longer token run that the cut would split is dropped whole (see ``_cut``).
REDACT_MARGIN = 64
SEAL_BATCH = 16  # texts per redaction scan: amortises per-call cost without re-scanning much


def clip(text: str, limit: int) -> str:
    """Redact, then truncate to ``limit`` characters (redaction always runs first)."""
    return _cut(redact(_window(text, limit)), limit) if text else ""


_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~-")


def _window(text: str, limit: int) -> str:
    return text if len(text) <= limit + REDACT_MARGIN else text[: limit + REDACT_MARGIN]


def _cut(text: str, limit: int) -> str:
    """Truncate redacted text; never leave the head of a token the cut splits (a partial secret)."""
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    if _TOKEN_CHARS.issuperset(text[limit - 2 : limit]):
        start = len(kept)
        while start > 0 and kept[start - 1] in _TOKEN_CHARS:
            start -= 1
        if len(kept) - start >= 8:
            kept = kept[:start]
    return kept + "…"


# Where an event keeps its text, and how much of it: kind -> (slot, limit).
_TEXT_SLOT: dict[str, tuple[int, int]] = {
    USER: (3, PROMPT_CHARS),
    ASSISTANT: (3, TEXT_CHARS),
    CALL: (5, INPUT_CHARS),
    RESULT: (4, RESULT_CHARS),
}


# Session-level facts that are shown and stored (a branch ``fix/ghp_...`` or a folder
# ``tmp-sk_live_...`` is a secret like any other).
META_TEXTS = ("session_id", "session_key", "cwd", "git_branch", "model")


def seal(events: list[Event], start: int = 0, meta: dict[str, Any] | None = None) -> None:
    """Redact and truncate the text of ``events[start:]`` (and the text values of ``meta``) in
    place, in one batched scan.

    Constructors keep only a window of the raw text; the harvest driver seals every event a read
    produced before the state is stored or assembled, so nothing unredacted leaves a read.
    """
    targets: list[tuple[Any, Any, int]] = []
    texts: list[str] = []
    slots = _TEXT_SLOT
    for event in events[start:] if start else events:
        found = slots.get(event[0])
        if found is not None and event[found[0]]:
            targets.append((event, *found))
            texts.append(event[found[0]])
    for key in META_TEXTS if meta else ():
        value = meta.get(key) if meta else None
        if isinstance(value, str) and value:
            targets.append((meta, key, 0))
            texts.append(value)
        elif value is not None and meta is not None:
            meta[key] = ""  # a source that stored a non-text value: nothing to show
    cleaned: list[str] = []
    for start_at in range(0, len(texts), SEAL_BATCH):
        cleaned.extend(redact_many(texts[start_at : start_at + SEAL_BATCH]))
    for (holder, slot, limit), text in zip(targets, cleaned, strict=True):
        holder[slot] = _cut(text, limit) if limit and len(text) > limit else text


# A slice as long as the text or longer is the text itself: no copy for short texts.
def user(ts: float | None, text: str, key: str | None = None) -> Event:
    return [USER, ts, key, text[: PROMPT_CHARS + REDACT_MARGIN]]


def assistant(ts: float | None, text: str, key: str | None = None) -> Event:
    return [ASSISTANT, ts, key, text[: TEXT_CHARS + REDACT_MARGIN]]


def call(
    ts: float | None, call_id: str, name: str, input_text: str, key: str | None = None
) -> Event:
    return [CALL, ts, key, call_id, name, input_text[: INPUT_CHARS + REDACT_MARGIN]]


def result(
    ts: float | None,
    call_id: str,
    excerpt: str,
    is_error: bool | None = None,
    exit_code: int | None = None,
    key: str | None = None,
) -> Event:
    return [RESULT, ts, key, call_id, excerpt[: RESULT_CHARS + REDACT_MARGIN], is_error, exit_code]


def interrupt(ts: float | None, key: str | None = None) -> Event:
    return [INTERRUPT, ts, key]


# Timestamps outside these bounds are damage (a year 9999, microseconds read as seconds): a
# record dated there would sort, window and render wrongly, so it is skipped and counted.
TS_MIN = 946_684_800.0  # 2000-01-01
TS_MAX = 4_102_444_800.0  # 2100-01-01


class BadTimestamp(ValueError):
    """A record's time is readable but impossible (outside 2000..2100): the record is skipped."""


def parse_ts(value: object) -> float | None:
    """Epoch seconds (UTC) from ISO-8601 text or an epoch number (s or ms); naive means UTC.

    None when absent or not a time at all; :class:`BadTimestamp` when out of range.
    """
    if isinstance(value, str) and value:
        moment: datetime | None
        try:
            moment = datetime.fromisoformat(value)  # 3.11+ reads the usual ``...Z`` stamps as is
        except ValueError:
            moment = _normalised_iso(value)
            if moment is None:
                return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        try:
            return _in_range(moment.timestamp())
        except (OverflowError, OSError):
            raise BadTimestamp(value) from None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return _in_range(float(value) / 1000.0 if value > 1e11 else float(value))
    return None


def _in_range(seconds: float) -> float:
    if not TS_MIN <= seconds < TS_MAX:  # also NaN
        raise BadTimestamp(seconds)
    return seconds


def _normalised_iso(value: str) -> datetime | None:
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def to_utc(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)


@dataclass
class FileState:
    """Everything kept from one transcript file so far; JSON-serialisable for the index.

    ``meta`` holds session-level facts (``session_id``, ``cwd``, ``git_branch``, ``model``) and
    ``extra`` any source-specific parser state that must survive between reads.
    """

    meta: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def session_id(self) -> str:
        return str(self.meta.get("session_id") or "")

    @property
    def cwd(self) -> str:
        return str(self.meta.get("cwd") or "")

    def set_meta(self, key: str, value: object, overwrite: bool = False) -> None:
        if value and (overwrite or not self.meta.get(key)):
            self.meta[key] = value

    def add_user(self, ts: float | None, text: str, key: str | None = None) -> None:
        """A user prompt; the engine marker is checked on the full text, before clipping."""
        if is_engine_text(text):
            self.meta["engine"] = True
        self.events.append(user(ts, text, key))

    def add(self, event: Event) -> None:
        self.events.append(event)

    def to_json(self) -> dict[str, Any]:
        return {"meta": self.meta, "events": self.events, "extra": self.extra}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileState:
        return cls(
            dict(data.get("meta") or {}),
            list(data.get("events") or []),
            dict(data.get("extra") or {}),
        )
