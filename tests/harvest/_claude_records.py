"""Hypothesis strategies for Claude Code transcript lines, for the C fast path's equivalence tests.

A line is drawn as a record built from the keys ``ClaudeSource.feed`` reads, serialised as JSON
encoders write it, then maybe edited as hand-written or damaged transcripts are (an escaped or
duplicated key, a number or nesting parsers disagree on, a cut, a flipped byte, invalid UTF-8, a
lone surrogate). Each record has a wildness: how often a field takes an odd value instead of a
usual one. A tame record is one the fast path folds itself, so both paths are compared on the
common shapes, and every odd value still reaches each field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from skillopt_core.markers import ENGINE_MARKER
from skillopt_sleep.harvest._events import (
    _PROMPT_HEAD_CHARS,
    INPUT_CHARS,
    PROMPT_TAIL_CHARS,
    REDACT_MARGIN,
    RESULT_CHARS,
    TEXT_CHARS,
)

# where texts are cut: a tool input's or result's window, and an assistant text's
CUTS = (INPUT_CHARS + REDACT_MARGIN, RESULT_CHARS + REDACT_MARGIN, TEXT_CHARS + REDACT_MARGIN)
# a long prompt's raw head and tail windows (``_events._windows``): longer than both, it is cut
PROMPT_HEAD = _PROMPT_HEAD_CHARS + REDACT_MARGIN
PROMPT_TAIL = PROMPT_TAIL_CHARS + REDACT_MARGIN
TOKEN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~-"
INTERRUPTED = "[Request interrupted by user"
# json.dumps writes it "\u0007" whatever ``ensure_ascii``: an edit may turn that escape into a
# lone surrogate or a raw control character
SENTINEL = "\x07"
ABSENT = object()  # a field left out of its object
WANTED_KEYS = (
    "type", "isSidechain", "sessionId", "cwd", "forkedFrom", "gitBranch", "message", "timestamp",
    "uuid", "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly", "toolUseResult", "model",
    "content", "text", "id", "name", "input", "tool_use_id", "is_error", "stdout", "interrupted",
    "backgroundTaskId", "command", "file_path", "pattern", "url", "query", "prompt",
)  # fmt: skip
SPECIAL_TEXTS = (
    "", " ", "x", "main", "HEAD", "Bash", "<synthetic>", "/home/dev/webapp", "Exit code 12",
    "Exit code 0", "Exit code -3", "Exit code -3x", "Exit code ١٢", "Exit code 12_", "Exit code 1.5",
    "Exit code 007", "Exit code -", "Exit code  4", "exit code 4", "Exit code 123456789012345678",
    "Exit code 1234567890123456789", "Exit code 12é", "Exit code 12\nstderr", "Exit code 3 (x)",
    INTERRUPTED, INTERRUPTED + "]", INTERRUPTED + " for tool use]", " " + INTERRUPTED,
    "<local-command-stdout>ok</local-command-stdout>", "<command-name>/review</command-name>",
    "naïve ✓ 日本語", "😀", "\U0001d518", "\u2028\u2029", "\x00", "\ufeff", "\uffff", "t\u0079pe",
    "\\u0041", '"quoted"', "\\", "/", "\b\f\n\r\t", "\x7f", SENTINEL, "a" + SENTINEL + "b",
)  # fmt: skip
SURROGATES = ("\ud83d", "x\udc00", "\ude00\ud83d")  # written raw they are invalid UTF-8

SPACES = tuple(c for c in map(chr, range(0x3001)) if c.isspace())  # what ``str.strip`` removes
NOT_SPACES = ("\u200b", "\ufeff", "\u180e", "\x00", "\x07")
HARNESS_NOISE = ("<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>")
COMMAND = "<command-message>review</command-message>\n<command-name>/review</command-name>\n"
PROMPT_TEXTS = (
    "fix the failing test", "", " ", "\u3000", "".join(SPACES), "\x1c\x85\u2028", "\u200b",
    "\ufeff", "\x00", "a\x00b", "\u3000x\x85", INTERRUPTED, INTERRUPTED + "]",
    INTERRUPTED + " for tool use]", "\u3000" + INTERRUPTED + "\n", "[Request interrupted",
    "x" + INTERRUPTED, *(n + "ok" for n in HARNESS_NOISE), *(" \x85" + n for n in HARNESS_NOISE),
    "<local-command-stdout", "<local-command-stdin>x", COMMAND + "<command-args>12</command-args>",
    COMMAND + "<command-args></command-args>", COMMAND, "<command-message>x</command-message>",
    "<command-name> \u3000</command-name><command-args>a</command-args>",
    "<command-name>/a\nb</command-name><command-args>\u3000x\x85</command-args>",
    "<command-name>/r</command-name><command-args><command-args>1</command-args></command-args>",
    "<command-name>/r</command-name><command-name>/s</command-name>", "x <command-name>/r",
    ENGINE_MARKER, "run " + ENGINE_MARKER + " now", ENGINE_MARKER[:-1], " " + ENGINE_MARKER + " ",
    "<command-name>/x</command-name><command-args>" + ENGINE_MARKER + "</command-args>",
    "<command-message>" + ENGINE_MARKER + "</command-message><command-name>/x</command-name>",
    INTERRUPTED + ENGINE_MARKER, HARNESS_NOISE[0] + ENGINE_MARKER, "line\nbreak\ttab",
    "é ✓ 日本語 😀 \U0001d518", '"quoted" \\ / \\u0041', "\x7f\uffff", SENTINEL,
)  # fmt: skip

_short = st.one_of(st.sampled_from(SPECIAL_TEXTS), st.text(max_size=8))


@st.composite
def long_texts(draw: st.DrawFn) -> str:
    """A text longer than a window, with a token run (a secret, to the redactor) near the cut."""
    cut = draw(st.sampled_from(CUTS)) + draw(st.integers(-2, 2))
    run, before = draw(st.sampled_from([(0, 0), (7, 3), (8, 4), (9, 1), (16, 8), (12, 12)]))
    prefix = draw(st.sampled_from(["", INTERRUPTED, "Exit code 2\n", "😀"]))
    filler = draw(st.sampled_from(["a ", "é", "😀", "x", " ", "\n", 'ab\\"', SENTINEL]))
    size = max(0, cut - before - len(prefix))
    token = (TOKEN * 2)[draw(st.integers(0, len(TOKEN))) :][:run]
    return prefix + (filler * (size // len(filler) + 1))[:size] + token + draw(_short)


texts = st.one_of(_short, _short, long_texts())
_runs = st.sampled_from([(0, 0), (7, 3), (8, 4), (9, 1), (16, 8), (12, 12)])


@st.composite
def long_prompts(draw: st.DrawFn) -> str:
    """A prompt around or past the length kept whole, with token runs near where its head and
    tail windows are cut, maybe the engine marker anywhere, maybe a prefix that decides it."""
    size = PROMPT_HEAD + PROMPT_TAIL + draw(st.sampled_from([-2, -1, 0, 1, 2, 70, 3000, 40000]))
    filler = draw(st.sampled_from(["a ", "é", "😀", "x", "\n", 'ab\\"', "\x00", "\u3000"]))
    chars = list((filler * (size // len(filler) + 1))[:size])
    for cut in (PROMPT_HEAD, size - PROMPT_TAIL):
        run, before = draw(_runs)
        for at in range(max(0, cut - before), min(size, cut - before + run)):
            chars[at] = TOKEN[at % len(TOKEN)]
    if draw(st.booleans()):
        chars.insert(draw(st.integers(0, size)), ENGINE_MARKER)
    prefix = draw(st.sampled_from(["", "", INTERRUPTED, HARNESS_NOISE[1], COMMAND, " \u3000"]))
    return prefix + "".join(chars)


_spaces = st.text(st.sampled_from(SPACES + NOT_SPACES), max_size=3)


@st.composite
def prompts(draw: st.DrawFn) -> str:
    """A typed prompt's text: one the reader treats specially, any short text or a long one,
    maybe with white space (as ``str.strip`` sees it, or not) around it."""
    body = draw(st.one_of(st.sampled_from(PROMPT_TEXTS), _short, long_prompts()))
    return draw(_spaces) + body + draw(_spaces)


_scalars = st.sampled_from(
    [None, True, False, 0, 1, -1, 0.0, -0.0, 1.5, 1e300, -1e-300, 2**63, 2**64, 10**39, 1.7e12]
)
odd = st.one_of(
    _scalars,
    _short,
    st.sampled_from(SURROGATES),
    st.lists(st.one_of(_scalars, _short), max_size=2),
    st.dictionaries(st.sampled_from(["type", "text", "x"]), _scalars, max_size=2),
)

_SPECIAL_DATES = (
    (2024, 2, 29), (2023, 2, 29), (2000, 2, 29), (2100, 2, 29), (1999, 12, 31), (2000, 1, 1),
    (2099, 12, 31), (2100, 1, 1), (9999, 12, 31), (2024, 4, 31), (2024, 13, 1), (2024, 0, 10),
)  # fmt: skip
_GOOD_ZONES = ("Z", "+00:00")
_ZONES = ("+05:00", "-00:00", "", "z", "+0000", " Z", "-03:30")


@st.composite
def iso_timestamps(draw: st.DrawFn, tame: bool = False) -> str:
    """ISO-8601 text: ``tame``, plain UTC as Claude Code writes it; else any variant."""
    date = st.tuples(st.integers(2000, 2099), st.integers(1, 12), st.integers(1, 28))
    clock = st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))
    if not tame:
        date = st.one_of(date, st.sampled_from(_SPECIAL_DATES))
        clock = st.one_of(clock, st.sampled_from([(24, 0, 0), (23, 59, 60), (12, 60, 0)]))
    (year, month, day), (hour, minute, second) = draw(date), draw(clock)
    digits = draw(st.sampled_from([0, 3, 6] if tame else [0, 3, 6, 1, 2, 9]))
    fraction = "." + str(draw(st.integers(0, 10**digits - 1))).zfill(digits) if digits else ""
    zone = draw(st.sampled_from(_GOOD_ZONES if tame else _GOOD_ZONES + _ZONES))
    sep = "T" if tame else draw(st.sampled_from(["T", "T", " ", "t"]))
    stamp = f"{year:04d}-{month:02d}-{day:02d}{sep}{hour:02d}:{minute:02d}:{second:02d}"
    return stamp + fraction + zone


odd_timestamps = st.one_of(
    iso_timestamps(),
    st.sampled_from([1_700_000_000, 1_700_000_000_123, 1.7e9, 1.7e12, 0, -5, 1e11, 4.2e9, 99e9]),
    st.sampled_from(["", "yesterday", "2024-01-02", "2024-01-02T03:04:05.123Z\x00", "\u0661"]),
    odd,
)
_ids = st.one_of(st.sampled_from(["", "u1", "toolu_01", "é", "a:b"]), st.uuids().map(str))
_maybe_text = st.one_of(st.sampled_from([ABSENT, None, False]), texts, texts)
_tenths = st.integers(0, 9)
_few = st.sampled_from([0, 1, 1, 1, 2, 3])
_thirds = st.sampled_from([0, 1, 2])
_INPUT_FIELDS = ("command", "file_path", "pattern", "url", "query", "prompt")
_input_values = st.lists(st.one_of(texts, _scalars), min_size=1, max_size=3)
_field_orders = st.permutations(_INPUT_FIELDS)
_nested = st.fixed_dictionaries({"type": _short, "content": _short, "text": _scalars})
_noise_keys = st.sampled_from(["parentUuid", "version", "userType", "requestId", "role", "usage"])
_noise = st.dictionaries(_noise_keys, st.one_of(_scalars, _short, _nested), max_size=2)
_text_parts = st.builds(lambda t: {"type": "text", "text": t}, texts)
_parts = st.one_of(
    _text_parts, _text_parts, st.just({"type": "image", "source": {"type": "base64", "data": "AA"}})
)
_odd_parts = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, odd),
    st.builds(lambda t: {"type": t, "text": "x"}, odd),
    st.builds(lambda t: {"text": t}, texts),
    odd,
)
_other_blocks = st.sampled_from(
    [
        {"type": "thinking", "thinking": "hmm", "signature": "c2ln"},
        {"type": "image", "source": {"type": "base64", "data": "iVBOR"}},
        {"type": "redacted_thinking", "data": "x"},
    ]
)
_user_kinds = st.sampled_from(["tool_result", "tool_result", "other"])
_assistant_kinds = st.sampled_from(["text", "tool_use", "other"])
_odd_kinds = st.sampled_from(["text", "tool_use", "tool_result", "odd"])
_names = st.sampled_from(["Bash", "Read", "", ABSENT, None, "mcp__x"])
_result_shapes = st.sampled_from(["text", "text", "parts", "absent"])
_error_flags = st.sampled_from([ABSENT, True, False, None])
_booleans = st.booleans()
_models = st.sampled_from(["claude-opus-4", "<synthetic>", "", "m😀", ABSENT])
_stdouts = st.one_of(_short, st.just(ABSENT))
_interrupted = st.sampled_from([False, False, True, ABSENT])
_background = st.sampled_from([ABSENT, ABSENT, "", "bg1", None, False])
_odd_or_absent = st.one_of(st.just(ABSENT), odd)
_wildness = st.sampled_from([0, 0, 0, 1, 1, 2, 4, 10])  # tenths: a field's odds of oddness
_kinds = st.sampled_from(["user", "assistant"])
_other_kinds = st.sampled_from(["summary", "progress", "system", "x", "User", "", None, 1])
_sessions = st.sampled_from(["s1", "s2", "", "é😀", ABSENT, None])
_cwds = st.sampled_from(["/home/dev/webapp", "/tmp", "", ABSENT, None])
_forks = st.sampled_from([ABSENT, ABSENT, None])
_odd_forks = st.one_of(st.just({"sessionId": "p1"}), st.just({"sessionId": ""}), odd)
_branches = st.sampled_from(["main", "HEAD", "", "feat/é", ABSENT, None])
_stamps = st.one_of(iso_timestamps(True), st.just(ABSENT))
_uuids = st.one_of(_ids, st.just(ABSENT))
_flags = st.sampled_from([ABSENT, ABSENT, False, True])
Pick = Callable[..., Any]


def _object(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not ABSENT}


def _input(draw: st.DrawFn, pick: Pick) -> Any:
    values = draw(_input_values)
    found = dict(zip(draw(_field_orders), values, strict=False))
    if draw(_booleans):
        found["description"] = draw(_short)
    return pick(draw(st.sampled_from([found, found, ABSENT, None])))


def _block(draw: st.DrawFn, pick: Pick, user: bool) -> Any:
    """A content block of an assistant turn (``user`` False) or a user record."""
    kind = pick(_user_kinds if user else _assistant_kinds, _odd_kinds)
    if kind == "other":
        return draw(_other_blocks)
    if kind == "odd":
        return draw(odd)
    block: dict[str, Any] = {"type": kind}
    if kind == "text":
        block["text"] = pick(_maybe_text)
    elif kind == "tool_use":
        block["id"] = pick(_maybe_text)
        block["name"] = pick(_names)
        block["input"] = _input(draw, pick)
    else:
        block["tool_use_id"] = pick(_maybe_text)
        shape = draw(_result_shapes)
        if shape == "text":
            block["content"] = pick(texts)
        elif shape == "parts":
            block["content"] = [pick(_parts, _odd_parts) for _ in range(draw(_few))]
        block["is_error"] = pick(_error_flags)
    block = _object(block)
    if draw(_booleans):
        block.update(draw(_noise))
        if pick(False, _booleans):
            del block["type"]
    return block


def _message(draw: st.DrawFn, pick: Pick, user: bool) -> Any:
    blocks = [_block(draw, pick, user) for _ in range(draw(_few))]
    if user:
        usual = draw(prompts()) if draw(_thirds) == 0 else blocks
        content = pick(usual, st.one_of(texts, _odd_or_absent))
    else:
        content = pick(texts if draw(_few) == 0 else blocks, _odd_or_absent)
    message = {"role": "user" if user else "assistant", "model": pick(_models)}
    message["content"] = content
    return pick(_object(message))


def _outcome(draw: st.DrawFn, pick: Pick) -> Any:
    outcome = {
        "stdout": pick(_stdouts),
        "stderr": "",
        "interrupted": pick(_interrupted),
        "backgroundTaskId": pick(_background),
    }
    return pick(_object(outcome) if draw(_few) else ABSENT)


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    """A Claude Code record: tame (the fast path's shapes) or, by its wildness, odd."""
    wild = draw(_wildness)

    def pick(usual: Any, unusual: st.SearchStrategy[Any] = odd) -> Any:
        """``usual`` (a value, or drawn from a strategy), or by the wildness an odd value."""
        if wild and draw(_tenths) < wild:
            return draw(unusual)
        return draw(usual) if isinstance(usual, st.SearchStrategy) else usual

    kind = pick(_kinds, _other_kinds)
    user = kind == "user" or (kind != "assistant" and draw(_booleans))
    record = {
        "type": kind,
        "isSidechain": pick(_flags),
        "sessionId": pick(_sessions),
        "cwd": pick(_cwds),
        "forkedFrom": pick(_forks, _odd_forks),
        "gitBranch": pick(_branches),
        "message": _message(draw, pick, user),
        "timestamp": pick(_stamps, odd_timestamps),
        "uuid": pick(_uuids),
        "isMeta": pick(_flags),
        "isCompactSummary": pick(_flags),
        "isVisibleInTranscriptOnly": pick(_flags),
        "toolUseResult": _outcome(draw, pick) if user else ABSENT,
    }
    record = _object(record)
    record.update(draw(_noise))
    keys = draw(st.permutations(list(record))) if draw(_booleans) else list(record)
    return {key: record[key] for key in keys}


# ---- edits --------------------------------------------------------------------------------------


def structural_opens(text: str) -> list[int]:
    """Offsets just after each ``{`` that opens an object (not one inside a string)."""
    found, inside, escaped = [], False, False
    for at, char in enumerate(text):
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char == "{":
            found.append(at + 1)
    return found


RAW_VALUES = (
    '"user"', '"assistant"', "true", "false", "null", "1e400", "-1e400", "1" * 400, "-" + "9" * 40,
    "1" * 41, "1e99", "1E+99", "-0.0e-00", "1.5e308", "0." + "0" * 38 + "1", "[" * 70 + "]" * 70,
    "[" * 63 + "]" * 63, "[" * 64 + "]" * 64, "[" * 65 + "]" * 65, '{"a":' * 64 + "1" + "}" * 64,
    '"2024-01-02T03:04:05Z"', '{"sessionId":"p"}', '[{"type":"text","text":"dup"}]', "{}", "[]",
    "NaN", "Infinity", "01", "1.", ".5", "+1", '"\\ud83d"', '"\\udc00\\ud83d"', '"\\u00e9"',
)  # fmt: skip


@st.composite
def text_edits(draw: st.DrawFn, text: str) -> str:
    """``text`` (a serialised record) with a key escaped, or a member (maybe a duplicate key,
    maybe a value parsers disagree on) written into one of its objects."""
    if draw(st.integers(0, 3)) == 0:
        keys = [m for m in re.finditer(r'"([A-Za-z_]+)"\s*:', text) if m.group(1) in WANTED_KEYS]
        if not keys:
            return text
        match = draw(st.sampled_from(keys))
        name = match.group(1)
        at = draw(st.integers(0, len(name) - 1))
        escaped = name[:at] + f"\\u{ord(name[at]):04x}" + name[at + 1 :]
        return text[: match.start(1)] + escaped + text[match.end(1) :]
    opens = structural_opens(text)
    if not opens:
        return text
    at = draw(st.sampled_from(opens))
    key = draw(st.one_of(st.sampled_from(WANTED_KEYS), st.just("noise")))
    member = f'"{key}":{draw(st.sampled_from(RAW_VALUES))}'
    closing = text[at:].lstrip().startswith("}")
    return text[:at] + member + ("" if closing else ",") + text[at:]


INVALID_UTF8 = (b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xe2\x82")
SURROGATE_ESCAPES = (
    b"\\ud83d",
    b"\\udc00",
    b"\\ude00\\ud83d",
    b"\\ud83d\\u0041",
    b"\\ud83d\\ude00",
)
CONTROLS = (b"\x07", b"\x00", b"\x1f", b"\t", b"\r")


@st.composite
def byte_edits(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` cut, with a byte flipped, bad UTF-8 or a control byte inserted, a surrogate
    escape or a raw control character in place of the sentinel's escape, or stray bytes."""
    edit = draw(st.sampled_from(["cut", "flip", "insert", "sentinel", "sentinel", "around"]))
    at = draw(st.integers(0, len(data)))
    if edit == "cut":
        return data[:at]
    if edit == "flip" and data:
        at = min(at, len(data) - 1)
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
    if edit == "insert":
        return data[:at] + draw(st.sampled_from(INVALID_UTF8 + CONTROLS)) + data[at:]
    if edit == "sentinel":
        escape = json.dumps(SENTINEL).strip('"').encode()
        return data.replace(escape, draw(st.sampled_from(SURROGATE_ESCAPES + CONTROLS)))
    before = draw(st.sampled_from([b"", b" ", b"\t", b"\r ", b"\xef\xbb\xbf"]))
    after = draw(st.sampled_from([b"", b" ", b"\r", b"x", b"{}", b",", b"\x00"]))
    return before + data + after


@st.composite
def lines(draw: st.DrawFn, edited: bool = True) -> bytes:
    """One transcript line (no newline): a drawn record as an encoder writes it, maybe edited."""
    record = draw(records())
    separators = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    text = json.dumps(record, ensure_ascii=draw(st.booleans()), separators=separators)
    edits = draw(st.sampled_from([0, 0, 0, 1, 2])) if edited else 0
    for _ in range(edits):
        text = draw(text_edits(text))
    data = text.encode("utf-8", "surrogatepass")  # a raw lone surrogate: invalid UTF-8
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2])) if edited else 0):
        data = draw(byte_edits(data))
    return data


@st.composite
def starting_states(draw: st.DrawFn) -> tuple[dict[str, Any], list[Any]]:
    """A file state read so far: session facts set, falsy or odd, and maybe some events."""
    keys = st.sampled_from(["session_id", "cwd", "git_branch", "model", "forked_from", "engine"])
    values = st.one_of(st.sampled_from(["", "s0", "/w", "main", "HEAD", "m0", "s1"]), _scalars)
    meta = draw(st.dictionaries(keys, values, max_size=4))
    events = draw(st.sampled_from([[], [["user", 1.0, None, "hi"]], [["interrupt", None, "k"]]]))
    return meta, events
