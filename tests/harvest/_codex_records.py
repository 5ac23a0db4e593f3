"""Hypothesis strategies for Codex rollout lines, for the C fold's equivalence tests.

A record is built from the fields ``CodexSource.feed`` reads (every top-level type, every payload
type, the usual values and the odd ones), serialised as ``json.dumps`` writes it (ASCII-escaped
or not, compact or spaced), and sometimes damaged the way a hand-edited or cut transcript is: a
cut, a stray byte, a lone surrogate escape, a raw control character, an escaped character or key,
a duplicate key, a number or nesting parsers disagree on. Scenarios string records together the
way Codex does (a message in both channels, an output then its ``exec_command_end``, a sub-agent
rollout's header first), so the mirror and sidechain state is exercised across lines.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from hypothesis import strategies as st

ABSENT = object()  # a field left out of its object

CALL_IDS = ("call_1", "call_2", "fc_9", "")
TEXTS = (
    "", " ", "\n", "x", "run the tests", "done", "  padded  ", "naïve ✓ 日本語", "😀", "\U0001d518",
    "\u2028\u2029", "\x00", "\ufeff", "\\", '"quoted"', "/", "\b\f\n\r\t", "\x7f", "\x1c", "{",
    "{}", "t\u0079pe", "\u00a0", "١٢", "Output:\nbody", "[Request interrupted by user]",
)  # fmt: skip
PREAMBLES = (
    "<environment_context>\n  <cwd>/home/dev/webapp</cwd>\n</environment_context>",
    "# AGENTS.md instructions for /home/dev/webapp\n\nbe brief",
    "# Agents.md instructions",
    "  <user_instructions>keep it short</user_instructions>",
    "<turn_aborted>",
    "<subagent_notification>{}</subagent_notification>",
    "<permissions instructions>none",
    "<environment_contextual>not injected",
)
EXIT_PHRASES = (
    "Exit code: 3", "Exit code 0", "Process exited with code -1", "Process exited with code 0\n",
    "Exit code 12a", "Exit code:  7", "Exit code\t-2", "Exit code\x1c4", "Exit code:\u00a05",
    "Exit code ١", "Exit code 1٢", "Exit code -", "Exit code - 4", "Exit code:: 5",
    "Exit code 123456789012345678", "Exit code -123456789012345678", "Exit code 1234567890123456789",
    "Exit code 99999999999999999999", "Exit codeExit code 6", "exit code 4", "Exit code",
    "Process exited with code\n\n9", "Exit code 007", "Exit code\u20038", "Exit code 5é",
)  # fmt: skip
_SCALARS = (None, True, False, 0, 1, -1, 0.0, 1.5, 2**63, 2**64, 10**30, -(2**63) - 1, 1e300)
ODD = st.one_of(
    st.sampled_from(_SCALARS),
    st.sampled_from(TEXTS),
    st.lists(st.sampled_from((*_SCALARS[:4], "a", "b")), max_size=2),
    st.dictionaries(st.sampled_from(("type", "text", "x")), st.sampled_from(_SCALARS), max_size=2),
)
short = st.one_of(st.sampled_from(TEXTS), st.sampled_from(TEXTS), st.text(max_size=10))


def digest(text: str) -> str:
    """The digest ``CodexSource._message`` keeps of the last message (to pre-fill a state)."""
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).hexdigest()


def obj(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not ABSENT}


def maybe(draw: st.DrawFn, wild: int, usual: st.SearchStrategy[Any]) -> Any:
    """``usual``, or (by the record's wildness, 0..10) an odd value or no value at all."""
    if draw(st.integers(0, 9)) >= wild:
        return draw(usual)
    return draw(st.one_of(ODD, st.just(ABSENT)))


@st.composite
def long_texts(draw: st.DrawFn) -> str:
    """A text past a kept window (input 464, result 464, text 2064), a token run near the cut."""
    size = draw(st.sampled_from((460, 463, 464, 465, 470, 1090, 2060, 2064, 2070, 5000)))
    filler = draw(st.sampled_from(("a ", "é", "😀", "x", " ", "\n", 'ab\\"', "Exit code 1 ")))
    run = draw(st.sampled_from((0, 7, 8, 12)))
    body = (filler * (size // len(filler) + 1))[: max(0, size - run - 4)]
    return body + "Ab1_" * (run // 4 + 1) + draw(short)


texts = st.one_of(short, short, short, long_texts())


@st.composite
def timestamps(draw: st.DrawFn) -> Any:
    """Mostly ISO texts the C reads (2000..2099, Z or +00:00, 0/3/6 digits), and every neighbour:
    other zones and precisions, impossible dates, years out of range, numbers, odd values."""
    shape = draw(st.sampled_from(("usual",) * 5 + ("grid",) * 3 + ("odd",) * 2))
    if shape == "usual":
        second = draw(st.integers(0, 59))
        fraction = draw(st.sampled_from(("", ".000", ".123", ".999999", ".5")))
        zone = draw(st.sampled_from(("Z", "Z", "+00:00")))
        return f"2026-11-20T10:00:{second:02d}{fraction}{zone}"
    if shape == "grid":
        year = draw(st.sampled_from((2000, 2024, 2026, 2099, 1999, 2100, 9999)))
        month, day = draw(st.sampled_from(((1, 1), (2, 29), (2, 28), (4, 31), (12, 31), (13, 1))))
        hour, minute, second = draw(
            st.sampled_from(((0, 0, 0), (23, 59, 59), (24, 0, 0), (12, 60, 61)))
        )
        fraction = draw(st.sampled_from(("", "", ".123", ".123456", ".1", ".12345", ".123456789")))
        zone = draw(
            st.sampled_from(("Z", "Z", "+00:00", "+05:30", "-08:00", "", "z", " Z", "-00:00"))
        )
        sep = draw(st.sampled_from(("T", "T", "T", " ", "t")))
        return f"{year:04d}-{month:02d}-{day:02d}{sep}{hour:02d}:{minute:02d}:{second:02d}{fraction}{zone}"
    return draw(
        st.sampled_from(
            (
                ABSENT, None, "", "garbage", "2026-11-20", "2026-11-20T10:00:00.000Z ", 1795817697,
                1795817697123, 1.7e9, 0, -5, True, 1e300, ["2026"], {"t": 1},
                "\u0662\u0660\u0662\u0666-11-20T10:00:00Z", "2026-11-20T10:00:00+00:00:00",
            )
        )
    )  # fmt: skip


@st.composite
def parts(draw: st.DrawFn, kinds: tuple[str, ...], wild: int) -> Any:
    """A message's ``content``: text parts of the wanted and other kinds, or a plain string."""
    if draw(st.integers(0, 9)) < wild:
        return draw(st.one_of(ODD, texts, st.just(ABSENT)))
    others = ("input_image", "reasoning", "refusal", "TEXT")
    items = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.integers(0, 9)) < wild:
            items.append(draw(ODD))
            continue
        kind = draw(st.sampled_from(kinds + kinds + others)) if draw(st.booleans()) else kinds[0]
        text = draw(st.one_of(texts, st.sampled_from(PREAMBLES)))
        items.append(
            obj(type=maybe(draw, wild, st.just(kind)), text=maybe(draw, wild, st.just(text)))
        )
    return items


@st.composite
def argument_objects(draw: st.DrawFn, wild: int) -> dict[str, Any]:
    """A call's arguments as an object: the command fields ``_arguments`` tries, in any order."""
    fields = draw(
        st.lists(
            st.sampled_from(("cmd", "command", "input", "path", "query", "workdir")),
            max_size=3,
            unique=True,
        )
    )
    word = st.one_of(st.sampled_from(("ls", "-la", "bash", "-lc", "pytest -q", "")), texts)
    value = st.one_of(
        word,
        st.lists(word, max_size=4),
        st.sampled_from(([1, "a"], ["a", None], [], [["x"]], None, 5, {"cmd": "x"}, True)),
    )
    return {f: draw(value) if draw(st.integers(0, 9)) >= wild // 2 else draw(ODD) for f in fields}


@st.composite
def arguments(draw: st.DrawFn, wild: int) -> Any:
    """``arguments`` (or ``input`` / ``action``): JSON text, an object, or something odd."""
    inner = draw(argument_objects(wild))
    shape = draw(st.integers(0, 11))
    if shape <= 4:
        separators = draw(st.sampled_from(((",", ":"), (", ", ": "))))
        return json.dumps(inner, ensure_ascii=draw(st.booleans()), separators=separators)
    if shape == 5:
        return inner
    if shape == 6:
        return draw(
            st.sampled_from(('{"cmd": ', "[1, 2]", "5", '"ls"', "null", "ls -la", " {}", "{} x"))
        )
    if shape == 7:
        text = json.dumps(inner)
        return draw(
            st.sampled_from((" " + text, text + "\n", text.replace(":", ": ", 1), "\ufeff" + text))
        )
    return draw(st.one_of(ODD, st.just(ABSENT), st.just(json.dumps({"cmd": "ls", "n": 10**30}))))


@st.composite
def output_texts(draw: st.DrawFn, wild: int) -> Any:
    """A ``function_call_output``'s output: plain, headed, JSON-wrapped, with exit codes placed
    around the 400-character search window and ``Output:`` around the 600 one."""
    shape = draw(st.integers(0, 9))
    if draw(st.integers(0, 9)) < wild:
        return draw(st.one_of(ODD, st.just(ABSENT), st.sampled_from(([], {}, {"content": "x"}))))
    if shape <= 2:
        return draw(texts)
    if shape == 3:
        body = draw(st.one_of(texts, ODD))
        code = draw(st.sampled_from((0, 1, -1, 2.0, None, True, "3", 2**64)))
        meta = draw(st.sampled_from(("dict", "dict", "none", "list", "absent")))
        wrapped = obj(
            output=body,
            metadata={"exit_code": code}
            if meta == "dict"
            else None
            if meta == "none"
            else [1]
            if meta == "list"
            else ABSENT,
        )
        return json.dumps(wrapped, ensure_ascii=draw(st.booleans()))
    if shape == 4:
        return "{" + draw(texts)
    lead = draw(
        st.sampled_from((0, 3, 380, 385, 390, 395, 398, 399, 400, 401, 585, 590, 592, 593, 600))
    )
    filler = draw(st.sampled_from(("x", " ", "é", "😀", "\n")))
    head = (filler * lead)[:lead]
    if shape <= 7:
        return (
            head
            + draw(st.sampled_from(EXIT_PHRASES))
            + draw(st.sampled_from(("", "\nOutput:\nok", "\n")))
        )
    tail = draw(st.sampled_from(("ok", "", "Exit code 2", "a" * 600)))
    return "Chunk ID: 1\nExit code: 1\n" + head + "Output:\n" + tail + draw(short)


@st.composite
def response_payloads(draw: st.DrawFn, wild: int) -> Any:
    kind = draw(
        st.sampled_from(
            (
                "message", "message", "message", "function_call", "function_call", "custom_tool_call",
                "local_shell_call", "function_call_output", "function_call_output",
                "custom_tool_call_output", "reasoning", "web_search_call", "ghost_snapshot",
                "compaction", "unknown", ABSENT,
            )
        )
    )  # fmt: skip
    field = functools.partial(maybe, draw, wild)
    if kind == "message":
        role = draw(
            st.sampled_from(("user", "user", "assistant", "assistant", "developer", "system", 5))
        )
        kinds = ("input_text",) if role == "user" else ("output_text",)
        return obj(
            type=kind, role=field(st.just(role)), content=draw(parts(kinds, wild)), id=field(short)
        )
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        key = {
            "function_call": "arguments",
            "custom_tool_call": "input",
            "local_shell_call": "action",
        }[kind]
        payload = obj(
            type=kind,
            name=field(
                st.sampled_from(("shell", "exec_command", "apply_patch", "", "spawn_agent"))
            ),
            call_id=field(st.sampled_from(CALL_IDS)),
            id=field(st.sampled_from(("fc_1", "", "fc_9"))),
        )
        payload[key] = draw(arguments(wild))
        for other in ("arguments", "input", "action"):
            if other != key and draw(st.integers(0, 9)) < 2:
                payload[other] = draw(arguments(wild))
        return {k: v for k, v in payload.items() if v is not ABSENT}
    if kind in ("function_call_output", "custom_tool_call_output"):
        return obj(
            type=kind, call_id=field(st.sampled_from(CALL_IDS)), output=draw(output_texts(wild))
        )
    return obj(type=kind, summary=field(short), content=field(short))


@st.composite
def completed_items(draw: st.DrawFn, wild: int) -> Any:
    """An ``item_completed`` event's item (Codex 0.171)."""
    if draw(st.integers(0, 19)) < wild:
        return draw(st.one_of(ODD, st.just(ABSENT)))
    kind = draw(
        st.sampled_from(
            (
                "UserMessage",
                "AgentMessage",
                "CommandExecution",
                "CommandExecution",
                "Reasoning",
                ABSENT,
            )
        )
    )
    field = functools.partial(maybe, draw, wild)
    if kind == "UserMessage":
        return obj(type=kind, id=field(short), content=draw(parts(("text",), wild)))
    if kind == "AgentMessage":
        return obj(type=kind, id=field(short), content=draw(parts(("Text", "text"), wild)))
    command = st.one_of(
        st.lists(st.sampled_from(("bash", "-lc", "ls | wc -l", "", "é")), max_size=4),
        st.sampled_from(("ls", "")),
        texts,
        st.sampled_from((None, 5, [1, "a"], {"cmd": "x"}, ABSENT)),
    )
    code = st.sampled_from(
        (0, 1, -1, 2.5, True, False, None, 2**63, 10**18, -(10**17), "1", ABSENT)
    )
    return obj(
        type=kind,
        id=field(st.sampled_from(CALL_IDS)),
        command=draw(command),
        exit_code=draw(code),
        aggregated_output=field(texts),
        status=field(st.just("completed")),
    )


@st.composite
def event_payloads(draw: st.DrawFn, wild: int) -> Any:
    kind = draw(
        st.sampled_from(
            (
                "item_completed", "item_completed", "user_message", "agent_message", "exec_command_end",
                "exec_command_end", "patch_apply_end", "turn_aborted", "token_count", "task_started",
                "task_complete", "agent_reasoning", "thread_settings_applied", ABSENT, 7,
            )
        )
    )  # fmt: skip
    field = functools.partial(maybe, draw, wild)
    if kind == "item_completed":
        return obj(type=kind, thread_id="t", item=draw(completed_items(wild)))
    if kind in ("user_message", "agent_message"):
        message = st.one_of(
            texts,
            st.sampled_from(PREAMBLES),
            st.sampled_from(PREAMBLES).map(lambda p: p + "\nrun the tests"),
        )
        return obj(type=kind, message=field(message))
    if kind == "exec_command_end":
        output = st.one_of(texts, st.sampled_from(("", "")))
        return obj(
            type=kind,
            call_id=field(st.sampled_from(CALL_IDS)),
            aggregated_output=field(output),
            stdout=field(output),
            stderr=field(output),
            exit_code=field(st.sampled_from((0, 1, 127, -1, 2**70))),
        )
    if kind == "patch_apply_end":
        return obj(
            type=kind,
            call_id=field(st.sampled_from(CALL_IDS)),
            success=draw(st.sampled_from((True, False, ABSENT, None, 0, "false"))),
            stdout=field(texts),
            stderr=field(texts),
        )
    return obj(type=kind, info=field(short), last_agent_message=field(short))


@st.composite
def session_metas(draw: st.DrawFn, wild: int, subagent: bool | None = None) -> Any:
    field = functools.partial(maybe, draw, wild)
    if subagent is None:
        subagent = draw(st.integers(0, 4)) == 0
    source: Any = {"subagent": {"thread_spawn": {}}} if subagent and draw(st.booleans()) else "cli"
    return obj(
        id=field(st.sampled_from(("01a21f13-721b-7241-925d-f3d30017b0bb", ""))),
        session_id=field(st.just("01a21f13-7310-7070-aa2f-8cc98da28122")),
        cwd=field(st.sampled_from(("/home/dev/webapp", "/home/dev/projects/my proj é"))),
        forked_from_id=field(st.just("0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000")),
        git=field(st.sampled_from(({"branch": "main"}, {"branch": None}, {}))),
        thread_source="subagent" if subagent and source == "cli" else field(st.just("user")),
        source=source,
    )


@st.composite
def records(draw: st.DrawFn) -> Any:
    """One rollout record, of any top-level type, its fields tame or (by wildness) odd."""
    wild = draw(st.sampled_from((0, 0, 0, 0, 1, 3, 6)))
    top = draw(
        st.sampled_from(
            ("response_item",) * 8 + ("event_msg",) * 6 + (
                "session_meta", "turn_context", "world_state", "token_usage_record", "compacted",
                "thread_settings", "unknown", "function_call", "message", ABSENT,
            )
        )
    )  # fmt: skip
    if top == "response_item":
        payload = draw(response_payloads(wild))
    elif top == "event_msg":
        payload = draw(event_payloads(wild))
    elif top == "session_meta":
        payload = draw(session_metas(wild))
    elif top == "turn_context":
        payload = obj(
            cwd=maybe(draw, wild, st.just("/home/dev/webapp")),
            model=maybe(draw, wild, st.just("gpt-5.5")),
        )
    elif top in ("function_call", "message"):  # the oldest rollouts: bare items, no payload
        item = draw(response_payloads(wild))
        item = item if isinstance(item, dict) else {}
        item["type"] = top
        return obj(
            timestamp=draw(timestamps()), **{k: v for k, v in item.items() if k != "timestamp"}
        )
    elif top is ABSENT and draw(st.booleans()):  # the oldest header line
        return obj(id=maybe(draw, wild, st.just("0199aaaa")), timestamp=draw(timestamps()))
    else:
        payload = {"full": True, "state": {"notes": draw(short)}}
    if draw(st.integers(0, 9)) < wild:
        payload = draw(st.one_of(ODD, st.just(ABSENT)))
    fields = [("timestamp", draw(timestamps())), ("type", top), ("payload", payload)]
    if draw(st.integers(0, 3)) == 0:
        fields.insert(1, ("ordinal", draw(st.integers(0, 99))))
    if draw(st.integers(0, 5)) == 0:
        fields = draw(st.permutations(fields))
    return {k: v for k, v in fields if v is not ABSENT}


def _at(ts: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


@st.composite
def mirrors(draw: st.DrawFn) -> list[Any]:
    """Records Codex writes twice: a message in both channels, an output and its event."""
    ts = draw(st.sampled_from(("2026-11-20T10:00:00.000Z", "2026-11-20T10:00:01Z")))
    shape = draw(st.integers(0, 3))
    text = draw(st.one_of(st.sampled_from(("run the tests", "done", " done ", "")), texts))
    if shape == 0:
        role = draw(st.sampled_from(("user", "assistant")))
        kind = "input_text" if role == "user" else "output_text"
        item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        event = {"type": "user_message" if role == "user" else "agent_message", "message": text}
        pair = [_at(ts, "response_item", item), _at(ts, "event_msg", event)]
    elif shape == 1:
        role = draw(st.sampled_from(("UserMessage", "AgentMessage")))
        kind = "text" if role == "UserMessage" else "Text"
        done = {
            "type": "item_completed",
            "item": {"type": role, "content": [{"type": kind, "text": text}]},
        }
        message_role = "user" if role == "UserMessage" else "assistant"
        item = {
            "type": "message",
            "role": message_role,
            "content": [
                {"type": "input_text" if message_role == "user" else "output_text", "text": text}
            ],
        }
        pair = [_at(ts, "event_msg", done), _at(ts, "response_item", item)]
    else:
        call_id = draw(st.sampled_from(CALL_IDS))
        output = draw(output_texts(0))
        plain = output if isinstance(output, str) else text
        item = {"type": "function_call_output", "call_id": call_id, "output": plain}
        end = {
            "type": "exec_command_end",
            "call_id": call_id,
            "aggregated_output": plain,
            "exit_code": 0,
        }
        if shape == 3:
            end = {
                "type": "item_completed",
                "item": {
                    "type": "CommandExecution",
                    "id": call_id,
                    "command": ["ls"],
                    "exit_code": 0,
                    "aggregated_output": plain,
                },
            }
        pair = [_at(ts, "response_item", item), _at(ts, "event_msg", end)]
    return pair if draw(st.booleans()) else pair[::-1]


@st.composite
def scenarios(draw: st.DrawFn) -> list[Any]:
    """A rollout's records: any, with mirrored pairs mixed in, maybe a sub-agent's header first."""
    out: list[Any] = []
    if draw(st.integers(0, 4)) == 0:
        out.append(
            _at("2026-11-20T10:00:00Z", "session_meta", draw(session_metas(0, subagent=True)))
        )
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 3)) == 0:
            out.extend(draw(mirrors()))
        else:
            out.append(draw(records()))
    return out


def serialise(record: Any, ensure_ascii: bool, spaced: bool) -> bytes:
    separators = (", ", ": ") if spaced else (",", ":")
    return json.dumps(record, ensure_ascii=ensure_ascii, separators=separators).encode(
        "utf-8", "surrogatepass"
    )


def string_positions(line: bytes) -> list[int]:
    """Where a character of a string (key or value) starts, or its closing quote: an edit there
    stays inside the string."""
    found: list[int] = []
    inside, at = False, 0
    while at < len(line):
        byte = line[at]
        if not inside:
            inside = byte == 0x22
            at += 1
            continue
        if byte == 0x5C:  # an escape: \uXXXX or two bytes
            found.append(at)
            at += 6 if line[at + 1 : at + 2] == b"u" else 2
            continue
        if byte < 0x80 or byte >= 0xC0:
            found.append(at)
        inside = byte != 0x22
        at += 1
    return found


def _escaped(char: str) -> bytes:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}".encode()
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}".encode()


def _insert_member(line: bytes, member: bytes, where: bytes) -> bytes:
    """``member`` (``"k":v``) added first in the object that follows ``where`` (b"" = the record)."""
    at = line.find(where + b"{") if where else line.find(b"{")
    if at < 0:
        return line
    at += len(where) + 1
    rest = line[at:].lstrip()
    return line[:at] + member + (b"" if rest.startswith(b"}") else b",") + line[at:]


_DUPLICABLE = (
    b'"type":"event_msg"', b'"type":"response_item"', b'"timestamp":"2026-11-20T10:00:00Z"',
    b'"payload":{}', b'"type":"message"', b'"role":"user"', b'"call_id":"call_2"', b'"output":"x"',
    b'"content":[]', b'"arguments":"{}"', b'"message":"x"', b'"item":{}', b'"exit_code":5',
    b'"text":"x"', b'"cmd":"x"', b'"input":{}', b'"action":{"command":["ls"]}', b'"success":false',
)  # fmt: skip
_HUGE = (b"1e400", b"-1e400", b"1" + b"0" * 400, b"1E+99", b"1e-400", b"1" * 41, b"-0", b"2.5e-08")
_PAYLOAD = (b'"payload":', b'"payload": ', b'"item":', b'"item": ', b"")


_MUTATIONS = (
    "cut", "byte", "surrogate", "control", "escape", "escape", "huge", "deep", "duplicate",
    "duplicate", "escaped key", "escaped brace", "whitespace", "framing", "spacing",
)  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, line: bytes) -> bytes:
    """``line`` as written (mostly), or damaged or re-encoded by hand (still JSON, or not)."""
    kind = draw(st.sampled_from(("none",) * 30 + _MUTATIONS))
    if kind == "none" or not line:
        return line
    positions = string_positions(line)
    if kind == "cut":
        return line[: draw(st.integers(0, len(line)))]
    if kind == "byte":
        at = draw(st.integers(0, len(line) - 1))
        bad = draw(
            st.sampled_from(
                (
                    b"\xff",
                    b"\x80",
                    b"\xc3",
                    b"\xed\xa0\x80",
                    b"\xf4\x90\x80\x80",
                    b"\x00",
                    b"\x01",
                    b"\xc0\xaf",
                )
            )
        )
        return line[:at] + bad + line[at + draw(st.integers(0, 1)) :]
    if kind in ("surrogate", "control", "escape") and positions:
        at = draw(st.sampled_from(positions))
        if kind == "surrogate":
            piece = draw(
                st.sampled_from(
                    (
                        b"\\ud83d",
                        b"\\udc00",
                        b"\\ud83d\\u0041",
                        b"\\ude00\\ud83d",
                        b"\\uD83D\\uDE00",
                    )
                )
            )
        elif kind == "control":
            piece = draw(st.sampled_from((b"\x01", b"\t", b"\x1f", b"\x7f", b"\x00")))
        else:  # a character escaped where it stood: the same JSON
            char = line[at:].decode("utf-8", "replace")[:1]
            if char in ('"', "\\", "\ufffd", ""):
                return line
            return line[:at] + _escaped(char) + line[at + len(char.encode("utf-8")) :]
        return line[:at] + piece + line[at:]
    if kind == "huge":
        number = draw(st.sampled_from(_HUGE))
        return _insert_member(line, b'"n":' + number, draw(st.sampled_from(_PAYLOAD)))
    if kind == "deep":
        depth = draw(st.sampled_from((62, 63, 64, 65, 70)))
        return _insert_member(
            line, b'"d":' + b"[" * depth + b"]" * depth, draw(st.sampled_from(_PAYLOAD))
        )
    if kind == "duplicate":
        return _insert_member(
            line, draw(st.sampled_from(_DUPLICABLE)), draw(st.sampled_from(_PAYLOAD))
        )
    if kind == "escaped key":
        key = draw(
            st.sampled_from(
                (
                    b'"type"',
                    b'"payload"',
                    b'"call_id"',
                    b'"output"',
                    b'"content"',
                    b'"text"',
                    b'"role"',
                    b'"timestamp"',
                )
            )
        )
        spelled = key[:2] + _escaped(chr(key[2])) + key[3:]
        count = line.count(key)
        if not count:
            return line
        pieces = line.split(key)
        which = draw(st.integers(0, count - 1))
        return key.join(pieces[: which + 1]) + spelled + key.join(pieces[which + 1 :])
    if kind == "escaped brace":
        return line.replace(b'"output":"{', b'"output":"\\u007b', 1).replace(
            b'"output": "{', b'"output": "\\u007b', 1
        )
    if kind == "whitespace":
        return (
            draw(st.sampled_from((b" ", b"\t", b"\r", b"")))
            + line
            + draw(st.sampled_from((b" ", b"\r", b"\t \r", b"")))
        )
    if kind == "framing":
        return draw(
            st.sampled_from(
                (b"\xef\xbb\xbf" + line, line + b",", line + b"}", b"[" + line + b"]", line + line)
            )
        )
    return line.replace(b"},", b"} ,", 1).replace(b'":', b'" :', 1)


@st.composite
def rollouts(draw: st.DrawFn) -> list[bytes]:
    """A rollout's lines, each serialised one way and maybe damaged."""
    lines = []
    for record in draw(scenarios()):
        line = serialise(record, draw(st.booleans()), draw(st.integers(0, 4)) == 0)
        lines.append(draw(mutated(line)))
        if draw(st.integers(0, 15)) == 0:
            lines.append(draw(st.sampled_from((b"", b" ", b"\r", b"{}", b"[]", b"null"))))
    return lines
