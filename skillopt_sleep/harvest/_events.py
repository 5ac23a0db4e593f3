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

Constructors keep a raw window of each text (less any token run its edge splits: ``_window``);
:func:`seal` redacts and truncates it in one batch
per read (redaction always runs before truncation). A user prompt too long to keep whole keeps its
head *and* its tail (``PROMPT_TAIL_CHARS``) around a ``CUT_MARK`` saying how much was cut: the
question typed after a pasted log is what the prompt asks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from skillopt_core.markers import is_engine_text
from skillopt_core.redaction import Redactor, default_redactor, redact, redact_many

USER, ASSISTANT, CALL, RESULT, INTERRUPT = "user", "assistant", "call", "result", "interrupt"

Event = list[Any]

# Limits on what is kept per field (characters, after redaction).
PROMPT_CHARS = 8000
PROMPT_TAIL_CHARS = 2000  # of a prompt cut in the middle, its end (the rest is its head)
# Where a prompt's middle was cut; the miner masks it out (``mine/masking.py`` knows the same
# text), so it never makes two long prompts alike.
CUT_MARK = "\n[… {} characters cut …]\n"
_MARK_ROOM = len(CUT_MARK.format("9" * 15))
_PROMPT_HEAD_CHARS = PROMPT_CHARS - PROMPT_TAIL_CHARS - _MARK_ROOM
# Joins the raw head window, the count between and the raw tail window of a long prompt from
# ``user`` until ``seal`` (which redacts the two windows apart): never stored, never in a prompt.
_JOIN = "\x00"
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


_TOKEN_TEXT = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~-"
_TOKEN_CHARS = frozenset(_TOKEN_TEXT)


def _window(text: str, limit: int) -> str:
    """The raw text redaction sees: the kept length and the margin, less a token run of 8+ the
    window's cut splits. A secret cut there no longer matches its rule, and redacting the ones
    before it can shrink the text below ``limit``, where no later cut would drop the fragment."""
    return text if len(text) <= limit + REDACT_MARGIN else _head(text, limit + REDACT_MARGIN)


def _cut(text: str, limit: int) -> str:
    """Truncate redacted text; never leave the head of a token the cut splits (a partial secret)."""
    return text if len(text) <= limit else _head(text, limit - 1) + "…"


def _head(text: str, n: int) -> str:
    """The first ``n`` characters of ``text`` (redacted, or a raw window's), less a token run of
    8+ the cut splits."""
    if len(text) <= n:
        return text
    kept = text[:n]
    if n > 0 and text[n] in _TOKEN_CHARS:  # the cut splits the run ``kept`` ends in, if any
        shorter = kept.rstrip(_TOKEN_TEXT)
        if n - len(shorter) >= 8:
            kept = shorter
    return kept


def _tail(text: str, n: int) -> str:
    """The last ``n`` characters of ``text`` (redacted, or a raw window's), less a token run of
    8+ the cut splits."""
    if len(text) <= n:
        return text
    start = len(text) - n
    kept = text[start:]
    if n > 0 and text[start - 1] in _TOKEN_CHARS:  # the cut splits the run ``kept`` opens with
        shorter = kept.lstrip(_TOKEN_TEXT)
        if n - len(shorter) >= 8:
            kept = shorter
    return kept


def _ends(head: str, tail: str, between: int) -> str:
    """A redacted prompt's ``head`` and ``tail`` (``between`` characters apart in the prompt;
    negative when both are the whole prompt) cut to ``PROMPT_CHARS`` around a ``CUT_MARK``."""
    kept_head, kept_tail = _head(head, _PROMPT_HEAD_CHARS), _tail(tail, PROMPT_TAIL_CHARS)
    cut = between + len(head) - len(kept_head) + len(tail) - len(kept_tail)
    return kept_head + CUT_MARK.format(cut) + kept_tail


# Session-level facts that are shown and stored (a branch ``fix/ghp_...`` or a folder
# ``tmp-sk_live_...`` is a secret like any other).
META_TEXTS = (
    "session_id",
    "session_key",
    "cwd",
    "git_branch",
    "model",
    "forked_from",
    "source_file",
)


def seal(events: list[Event], start: int = 0, meta: dict[str, Any] | None = None) -> None:
    """Redact and truncate the text of ``events[start:]`` (and the text values of ``meta``) in
    place, in one batched scan.

    Constructors keep only a window of the raw text; the harvest driver seals every event a read
    produced before the state is stored or assembled, so nothing unredacted leaves a read.
    """
    # Hot: once per event of every read. Each text goes to ``texts``, and where it goes back to
    # ``targets`` as (holder, slot, limit); limit 0: not cut here. A prompt is cut around a
    # CUT_MARK afterwards: one kept whole (``whole``) only if still too long once redacted; a
    # long one's two windows, redacted apart, go back into its split parts (``split``).
    targets: list[tuple[Any, Any, int]] = []
    texts: list[str] = []
    whole: list[Event] = []
    split: list[tuple[Event, list[str], int]] = []  # (event, [head, between, tail], between)
    add_target, add_text = targets.append, texts.append
    names = _tool_names(default_redactor())
    for event in events[start:] if start else events:
        kind = event[0]
        if kind == RESULT:
            if event[4]:
                add_target((event, 4, RESULT_CHARS))
                add_text(event[4])
        elif kind == CALL:
            name = event[4]
            if name:
                event[4] = names.get(name) or _name_of(names, name)
            if event[5]:
                add_target((event, 5, INPUT_CHARS))
                add_text(event[5])
        elif kind == ASSISTANT:
            if event[3]:
                add_target((event, 3, TEXT_CHARS))
                add_text(event[3])
        elif kind == USER and event[3]:
            text = event[3]
            parts: list[str] = text.split(_JOIN) if _JOIN in text else []
            if len(parts) == 3:
                split.append((event, parts, int(parts[1])))
                targets += ((parts, 0, 0), (parts, 2, 0))
                texts += (parts[0], parts[2])
            else:
                whole.append(event)
                add_target((event, 3, 0))
                add_text(text)
    if meta:
        for key in META_TEXTS:
            value = meta.get(key)
            if isinstance(value, str) and value:
                add_target((meta, key, 0))
                add_text(value)
            elif value is not None:
                meta[key] = ""  # a source that stored a non-text value: nothing to show
    if len(texts) <= SEAL_BATCH:
        cleaned = redact_many(texts) if texts else texts
    else:
        cleaned = []
        for start_at in range(0, len(texts), SEAL_BATCH):
            cleaned.extend(redact_many(texts[start_at : start_at + SEAL_BATCH]))
    for (holder, slot, limit), text, raw in zip(targets, cleaned, texts, strict=True):
        if limit and len(text) > limit:
            holder[slot] = _cut(text, limit)
        elif text is not raw:
            holder[slot] = text
    for event in whole:
        text = event[3]
        if len(text) > PROMPT_CHARS:
            event[3] = _ends(text, text, -len(text))
    for event, (head, _, tail), between in split:
        event[3] = _ends(head, tail, between)


# A history holds few distinct tool names: each is redacted once per redactor (an MCP tool's
# name is whatever its server chose, so it is redacted like any stored text).
_NAMES: dict[int, tuple[Redactor, dict[str, str]]] = {}


def _tool_names(redactor: Redactor) -> dict[str, str]:
    """The redacted tool names of ``redactor`` (raw name -> redacted), filled as met."""
    held = _NAMES.get(id(redactor))
    if held is None or held[0] is not redactor:
        _NAMES.clear()  # one redactor at a time: a configured one replaces the default
        held = _NAMES[id(redactor)] = (redactor, {})
    return held[1]


def _name_of(names: dict[str, str], name: str) -> str:
    if len(names) >= 4096:
        names.clear()
    redacted = names[name] = default_redactor().redact(name)
    return redacted


# A slice as long as the text or longer is the text itself: no copy for short texts.
def user(ts: float | None, text: str, key: str | None = None) -> Event:
    return [USER, ts, key, _windows(text)]


def _windows(text: str) -> str:
    """A prompt whole, or (too long) its raw head and tail windows, each with the redaction
    margin, and the count between them, joined by ``_JOIN`` for ``seal``."""
    if _JOIN in text:
        text = text.replace(_JOIN, "")
    head, tail = _PROMPT_HEAD_CHARS + REDACT_MARGIN, PROMPT_TAIL_CHARS + REDACT_MARGIN
    if len(text) <= head + tail:
        return text
    head_window, tail_window = _head(text, head), _tail(text, tail)  # less split token runs
    between = len(text) - len(head_window) - len(tail_window)
    return f"{head_window}{_JOIN}{between}{_JOIN}{tail_window}"


def assistant(ts: float | None, text: str, key: str | None = None) -> Event:
    return [ASSISTANT, ts, key, _window(text, TEXT_CHARS)]


def call(
    ts: float | None, call_id: str, name: str, input_text: str, key: str | None = None
) -> Event:
    return [CALL, ts, key, call_id, name, _window(input_text, INPUT_CHARS)]


def result(
    ts: float | None,
    call_id: str,
    excerpt: str,
    is_error: bool | None = None,
    exit_code: int | None = None,
    key: str | None = None,
) -> Event:
    return [RESULT, ts, key, call_id, _window(excerpt, RESULT_CHARS), is_error, exit_code]


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
