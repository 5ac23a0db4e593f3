"""The Codex reader's C fold (``_codex_fast``) reads every line exactly as the pure-Python reader.

Each comparison reads one file twice through ``read_file``, once with the fold and once without,
and compares the whole outcome: the state's meta, events and extra (types included), the skip
counts and the offset. Lines come from the genuine fixtures, two generated corpora and
Hypothesis (every record shape ``CodexSource.feed`` reads, serialised several ways, then
damaged). A line the fold leaves to Python must leave the state untouched, and no input may crash,
hang or leak. The fold is optional (no compiler: pure Python), so these tests skip without it,
except under CI, which must always exercise it.
"""

from __future__ import annotations

import copy
import functools
import gc
import importlib.util
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harvest import _codex_records as records
from skillopt_sleep.harvest import _compiled
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._lines import stat_id
from skillopt_sleep.harvest._reading import ReadJob, read_file
from skillopt_sleep.harvest._registry import HarvestConfig
from skillopt_sleep.harvest.codex import CodexSource

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"  # beside the clone, for the developers and CI alike
PROJECT = "/home/dev/webapp"
FAST: ModuleType | None = _compiled.load("_codex_fast")
TS = "2026-11-20T10:00:00.000Z"
SLOW = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@pytest.fixture(scope="module")
def fast() -> ModuleType:
    """The compiled fold; under CI its absence fails (CI must test it), elsewhere it skips."""
    if FAST is None:
        reason = (
            "SKILLOPT_PURE_PYTHON is set"
            if os.environ.get("SKILLOPT_PURE_PYTHON")
            else "the C fold _codex_fast is not built or stale (setup.py build_ext --inplace)"
        )
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: CI must exercise it")
        pytest.skip(reason)
    return FAST


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("codex-fast")


# ---- the comparison primitive ----------------------------------------------------------------


def typed(value: Any) -> Any:
    """``value`` with every leaf tagged by its type: 1, 1.0 and True differ, as do -0.0 and 0.0."""
    if isinstance(value, list):
        return ["list", [typed(v) for v in value]]
    if isinstance(value, dict):
        return ["dict", [(k, typed(v)) for k, v in value.items()]]
    if isinstance(value, float):
        return ["float", repr(value)]
    return [type(value).__name__, value]


@dataclass(frozen=True)
class Read:
    meta: Any
    events: Any
    extra: Any
    skipped: dict[str, int]
    offset: int


def sources(fast: ModuleType) -> tuple[CodexSource, CodexSource]:
    """A reader with the fold and one without (whatever ``SKILLOPT_PURE_PYTHON`` says)."""
    with_fold, pure = CodexSource(), CodexSource()
    with_fold.fold_lines = functools.partial(fast.fold_lines, with_fold._parts)
    pure.fold_lines = None
    return with_fold, pure


def read(source: CodexSource, path: Path, sidechains: bool, state: FileState | None = None) -> Read:
    job = ReadJob(str(path), stat_id(path), 0, state, False)
    config = HarvestConfig(Path(PROJECT), include_sidechains=sidechains)
    outcome = read_file(source, job, config)
    assert not outcome.error and job.state is not None
    final = job.state
    return Read(
        typed(final.meta),
        typed(final.events),
        typed(final.extra),
        dict(outcome.skipped),
        outcome.offset,
    )


def assert_same(
    fast: ModuleType, path: Path, sidechains: bool, state: FileState | None = None
) -> Read:
    """Both readers on ``path`` (from a copy of ``state`` each): the same outcome, returned."""
    with_fold, pure = sources(fast)
    folded = read(with_fold, path, sidechains, copy.deepcopy(state))
    expected = read(pure, path, sidechains, copy.deepcopy(state))
    assert folded == expected
    return folded


def write(path: Path, lines: list[bytes], last_newline: bool = True) -> Path:
    path.write_bytes(b"\n".join(lines) + (b"\n" if last_newline else b""))
    return path


def line(kind: str, payload: Any, ts: Any = TS, **extra: Any) -> bytes:
    record = {"timestamp": ts, "type": kind, "payload": payload, **extra}
    if ts is records.ABSENT:
        del record["timestamp"]
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


def fold(
    fast: ModuleType,
    data: bytes,
    state: FileState,
    sidechains: bool = False,
    on_message: Callable[..., Any] | None = None,
) -> tuple[int, int, int, int]:
    """One call of the fold over all of ``data``."""
    on_message = on_message or CodexSource()._parts
    result: tuple[int, int, int, int] = fast.fold_lines(
        on_message, data, 0, len(data), state, sidechains
    )
    return result


def prefilled() -> dict[str, FileState]:
    """States a line may meet: fresh, after a user prompt and a result (so a mirror is dropped
    and a repeated output blanked), after an answer, inside a sub-agent's rollout."""
    return {
        "fresh": FileState(),
        "after-prompt": FileState(
            {"session_id": "s", "cwd": PROJECT},
            [
                ["user", 1.7e9, None, "run the tests"],
                ["result", 1.7e9, None, "call_1", "ok", None, 0],
            ],
            {"last": ["user", records.digest("run the tests")], "resulted": "call_1"},
        ),
        "after-answer": FileState(
            {"model": "gpt-5.5"},
            [],
            {"last": ["assistant", records.digest("done")], "resulted": ""},
        ),
        "sidechain": FileState({"cwd": PROJECT}, [], {"sidechain": True, "resulted": "call_2"}),
    }


PREFILLED = prefilled()


def assert_untouched_when_left(
    fast: ModuleType, data: bytes, state: FileState, sidechains: bool
) -> tuple[int, int, int, int]:
    """Fold one line (no newline); when the fold leaves it to Python, nothing may have changed
    and no message may have been handed over."""
    before = typed(state.to_json())
    calls: list[Any] = []

    def on_message(*args: Any) -> Any:
        calls.append(args)
        return CodexSource._parts(CodexSource(), *args)

    result = fold(fast, data, state, sidechains, on_message)
    assert isinstance(result, tuple) and len(result) == 4
    assert all(type(v) is int for v in result)
    if result[1] >= 0:
        assert result == (len(data), 0, len(data), 0)
        assert typed(state.to_json()) == before
        assert calls == []
    else:
        assert result[:3] == (len(data), -1, -1) and result[3] in (0, 1)
    return result


# ---- the extension is there and used ----------------------------------------------------------


def test_ci_always_has_the_fold() -> None:
    if not os.environ.get("CI"):
        pytest.skip("only CI requires the compiled fold")
    assert FAST is not None, "CI must build and test the C fold _codex_fast"


def test_the_reader_uses_the_fold(fast: ModuleType) -> None:
    if os.environ.get("SKILLOPT_PURE_PYTHON"):
        pytest.skip("SKILLOPT_PURE_PYTHON is set for this run")
    folding = CodexSource().fold_lines
    assert isinstance(folding, functools.partial) and folding.func is fast.fold_lines


def test_pure_python_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_PURE_PYTHON", "1")
    assert _compiled.load("_codex_fast") is None
    assert CodexSource().fold_lines is None


# ---- hand-written shapes ----------------------------------------------------------------------

_WRAPPED = json.dumps({"output": "2 passed", "metadata": {"exit_code": 0}})
# Lines the fold reads itself (a regression here means the C path went unexercised).
HANDLED = [
    line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run the tests"}]}),
    line("event_msg", {"type": "user_message", "message": "run the tests"}),
    line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
    line("event_msg", {"type": "agent_message", "message": " done "}),
    line("response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>"}]}),
    line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": records.PREAMBLES[0]}, {"type": "input_text", "text": "fix it"}]}),
    line("response_item", {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "ls"]}), "call_id": "call_1"}),
    line("response_item", {"type": "function_call", "name": "exec_command", "arguments": '{"cmd": "ls | wc -l"}', "call_id": "call_2", "id": "fc_1"}),
    line("response_item", {"type": "local_shell_call", "id": "fc_9", "action": {"type": "exec", "command": ["ls", "-la"]}}),
    line("response_item", {"type": "custom_tool_call", "call_id": "call_1", "input": {"path": "a.py"}}),
    line("response_item", {"type": "function_call", "call_id": "call_1"}),
    line("response_item", {"type": "function_call_output", "call_id": "call_1", "output": "Exit code: 3\nWall time: 1s\nOutput:\nboom"}),
    line("response_item", {"type": "custom_tool_call_output", "call_id": "call_2", "output": "Process exited with code -1\n" + "é" * 3000}),
    line("response_item", {"type": "function_call_output", "call_id": "call_1", "output": None}),
    line("event_msg", {"type": "exec_command_end", "call_id": "call_1", "stdout": "ok", "exit_code": 0}),
    line("event_msg", {"type": "exec_command_end", "call_id": "call_1", "aggregated_output": "", "stderr": "bad", "exit_code": 2.0}),
    line("event_msg", {"type": "patch_apply_end", "call_id": "call_2", "success": False, "stderr": "conflict"}),
    line("event_msg", {"type": "patch_apply_end", "call_id": "call_2", "success": True, "stdout": "applied"}),
    line("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
    line("event_msg", {"type": "token_count", "info": None}),
    line("event_msg", {"type": "item_completed", "item": {"type": "UserMessage", "content": [{"type": "text", "text": "hi"}]}}),
    line("event_msg", {"type": "item_completed", "item": {"type": "AgentMessage", "content": [{"type": "Text", "text": "a"}, {"type": "text", "text": "b"}]}}),
    line("event_msg", {"type": "item_completed", "item": {"type": "CommandExecution", "id": "call_1", "command": ["ls"], "exit_code": 1, "aggregated_output": "x"}}),
    line("event_msg", {"type": "item_completed", "item": {"type": "CommandExecution", "id": "call_1", "command": "ls", "exit_code": None}}),
    line("event_msg", {"type": "item_completed", "item": {"type": "CollabAgentToolCall", "id": "x"}}),
    line("event_msg", {"type": "item_completed", "item": "odd"}),
    line("world_state", {"full": True}),
    line("token_usage_record", {}),
    line("compacted", {"message": "x"}, ts="9999-01-01T00:00:00Z"),
    line("response_item", {"type": "reasoning", "summary": []}),
    line("response_item", {"type": "message", "role": "user", "content": "plain string"}, ts="2099-12-31T23:59:59.999999+00:00"),
    line("response_item", {"type": "ghost_snapshot"}, ts=None),
    line("response_item", {"type": "web_search_call"}, ts=records.ABSENT),
    line("turn_context", {"cwd": PROJECT, "model": "gpt-5.5"}),
    line("turn_context", {"cwd": "", "model": None, "approval_policy": "never"}),
    line("turn_context", {"model": "gpt-5.5-\u00e9", "cwd": PROJECT + "/sub"}, ts=None),
]  # fmt: skip
# Lines left to Python (each for a reason the header comment gives).
LEFT = [
    line("session_meta", {"id": "s1", "cwd": PROJECT, "thread_source": "subagent"}),
    line("turn_context", {"cwd": 7, "model": "gpt-5.5"}),
    line("turn_context", {"cwd": PROJECT, "model": ["gpt-5.5"]}),
    line("turn_context", {"cwd": PROJECT}, ts="2026-11-20T10:00:00+05:00"),
    line("turn_context", "not an object"),
    json.dumps({"timestamp": TS, "type": "function_call", "name": "shell", "arguments": "{}"}).encode(),
    json.dumps({"id": "0199", "timestamp": TS}).encode(),
    line("response_item", {"type": "function_call_output", "call_id": "call_1", "output": _WRAPPED}),
    line("response_item", {"type": "function_call", "call_id": "c", "arguments": "ls -la"}),
    line("response_item", {"type": "function_call", "call_id": "c", "arguments": '{"timeout": 5}'}),
    line("response_item", {"type": "message", "role": "user", "content": "x"}, ts="2026-11-20T10:00:00+05:00"),
    line("response_item", {"type": "message", "role": "user", "content": "x"}, ts="1999-12-31T23:59:59Z"),
    line("response_item", {"type": "unknown_item"}),
    line("unknown", {}),
    b'{"timestamp":"2026-11-20T10:00:00Z","t\\u0079pe":"response_item","payload":{}}',
    b'{"type":"response_item","type":"event_msg","payload":{"type":"turn_aborted"}}',
    b'{"type":"event_msg","payload":{"type":"turn_aborted","n":1e400}}',
    b'{"type":"event_msg","payload":{"type":"user_message","message":"\\ud83d"}}',
    b'{"type":"event_msg","payload":{"type":"user_message","message":"\xff"}}',
    b'{"type":"event_msg","payload":{"type":"turn_aborted"}',
    b"not json",
    b"[1, 2]",
]  # fmt: skip


@pytest.mark.parametrize("data", HANDLED, ids=range(len(HANDLED)))
def test_the_fold_reads_the_common_shapes(fast: ModuleType, data: bytes) -> None:
    state = FileState()
    assert fold(fast, data, state)[1] == -1


@pytest.mark.parametrize("data", LEFT, ids=range(len(LEFT)))
def test_the_fold_leaves_the_rest(fast: ModuleType, data: bytes) -> None:
    for name, state in prefilled().items():
        sidechain = name == "sidechain"  # its records are skipped (counted) instead
        assert assert_untouched_when_left(fast, data, state, sidechain)[1] == 0


@pytest.mark.parametrize("sidechains", [False, True])
@pytest.mark.parametrize("prefill", list(PREFILLED))
def test_hand_written_rollout(
    fast: ModuleType, tmp_path: Path, sidechains: bool, prefill: str
) -> None:
    subagent = line("session_meta", {"id": "s2", "source": {"subagent": {}}})
    data = [*HANDLED, *LEFT, *HANDLED[:8], subagent, *HANDLED]
    path = write(tmp_path / "rollout.jsonl", data)
    assert_same(fast, path, sidechains, PREFILLED[prefill])
    assert_same(fast, write(tmp_path / "tail.jsonl", data[:5], last_newline=False), sidechains)


def test_every_line_alone(fast: ModuleType, tmp_path: Path) -> None:
    for number, data in enumerate([*HANDLED, *LEFT]):
        path = write(tmp_path / f"{number}.jsonl", [data])
        for state in PREFILLED.values():
            for sidechains in (False, True):
                assert_same(fast, path, sidechains, state)
                assert_untouched_when_left(fast, data, copy.deepcopy(state), sidechains)


# ---- the fold's run contract ------------------------------------------------------------------


def test_folds_in_order_and_stops_at_the_first_line_left(fast: ModuleType) -> None:
    left = LEFT[0]
    data = b"\n".join([HANDLED[0], b"", HANDLED[1], HANDLED[6], left, HANDLED[18], b""])
    state = FileState()
    at, start, end, sides = fold(fast, data, state)
    assert data[start:end] == left and at == end + 1 and sides == 0
    assert [e[0] for e in state.events] == ["user", "call"]  # the mirrored prompt is dropped
    rest = fast.fold_lines(CodexSource()._parts, data, at, len(data), state, False)
    assert rest == (len(data), -1, -1, 0)
    assert [e[0] for e in state.events] == ["user", "call", "interrupt"]


def test_reads_only_its_slice(fast: ModuleType) -> None:
    data = b"garbage\n" + HANDLED[18] + b"\n" + HANDLED[18] + b"\ntrailing junk"
    state = FileState()
    start = data.index(b"\n") + 1
    end = data.rindex(b"\n")
    assert fast.fold_lines(CodexSource()._parts, data, start, end, state, False) == (end, -1, -1, 0)
    assert len(state.events) == 2
    assert fast.fold_lines(CodexSource()._parts, data, end, end, state, False) == (end, -1, -1, 0)


def test_counts_sidechain_records(fast: ModuleType) -> None:
    data = b"\n".join([HANDLED[0], HANDLED[26], HANDLED[6], HANDLED[19], HANDLED[18]])
    state = FileState(extra={"sidechain": True})
    assert fold(fast, data, state) == (len(data), -1, -1, 3)
    assert state.events == []
    state = FileState(extra={"sidechain": True})
    assert fold(fast, data, state, sidechains=True)[3] == 0 and len(state.events) == 3


# ---- genuine and generated rollouts -----------------------------------------------------------


def codex_files(*roots: Path) -> list[Path]:
    """Every Codex rollout under ``roots`` (os.walk: the homes are hidden folders)."""
    found: list[Path] = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            if "codex" in folder.lower():
                found.extend(Path(folder, f) for f in sorted(files) if f.endswith(".jsonl"))
    return found


FIXTURE_FILES = codex_files(
    REPO / "tests" / "data", REPO / "tests" / "harvest" / "fixtures", SHARED / "fixtures"
)


def test_fixtures_were_found() -> None:
    assert len(FIXTURE_FILES) >= 8


@pytest.mark.parametrize("sidechains", [False, True])
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name[-20:]}")
def test_fixture_file(fast: ModuleType, path: Path, sidechains: bool) -> None:
    assert_same(fast, path, sidechains)
    for state in PREFILLED.values():
        assert_same(fast, path, sidechains, state)


@pytest.fixture(scope="session")
def gen_corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The shared ``gen_corpus.py`` rollouts (200 sessions)."""
    tool = SHARED / "tools" / "gen_corpus.py"
    if not tool.is_file():
        pytest.skip(f"{tool} not found")
    home = tmp_path_factory.mktemp("gen-corpus")
    subprocess.run(
        [sys.executable, str(tool), str(home), "200", "--codex"], check=True, timeout=120
    )
    return codex_files(home / ".codex")


@pytest.fixture(scope="session")
def bench_corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """``benchmarks/bench_harvest.py``'s rollouts (200 sessions: preambles, mirrors, secrets)."""
    spec = importlib.util.spec_from_file_location(
        "_bench_harvest", REPO / "benchmarks" / "bench_harvest.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    try:
        spec.loader.exec_module(bench)
    finally:
        del sys.modules[spec.name]
    root = tmp_path_factory.mktemp("bench-corpus")
    return [p for p in bench.generate(root, 200) if ".codex" in p.parts]


@pytest.mark.parametrize("sidechains", [False, True])
def test_gen_corpus(fast: ModuleType, gen_corpus: list[Path], sidechains: bool) -> None:
    assert len(gen_corpus) == 200
    for path in gen_corpus:
        assert_same(fast, path, sidechains)


@pytest.mark.parametrize("sidechains", [False, True])
def test_bench_corpus(fast: ModuleType, bench_corpus: list[Path], sidechains: bool) -> None:
    assert len(bench_corpus) == 200
    for path in bench_corpus:
        assert_same(fast, path, sidechains)


def test_the_fold_takes_most_lines(
    fast: ModuleType, bench_corpus: list[Path], gen_corpus: list[Path]
) -> None:
    """The corpora exercise the C path, not only the Python one."""
    for corpus, share in ((bench_corpus, 0.85), (gen_corpus, 0.5)):  # gen's outputs are wrapped
        folded = total = 0
        for path in corpus[:50]:
            for data in path.read_bytes().splitlines():
                total += 1
                folded += fold(fast, data, FileState())[1] < 0
        assert folded > share * total


# ---- Hypothesis --------------------------------------------------------------------------------


@settings(SLOW, max_examples=400)
@given(records.rollouts(), st.booleans(), st.sampled_from(list(PREFILLED)), st.integers(0, 9))
def test_generated_rollouts_read_the_same(
    fast: ModuleType, scratch: Path, lines: list[bytes], sidechains: bool, prefill: str, end: int
) -> None:
    path = write(scratch / "rollout.jsonl", lines, last_newline=end > 0)
    assert_same(fast, path, sidechains, PREFILLED[prefill])


@settings(SLOW, max_examples=300)
@given(records.rollouts(), st.booleans(), st.sampled_from(list(PREFILLED)))
def test_a_line_left_to_python_is_untouched(
    fast: ModuleType, lines: list[bytes], sidechains: bool, prefill: str
) -> None:
    for data in lines:
        if data and b"\n" not in data:
            assert_untouched_when_left(fast, data, copy.deepcopy(PREFILLED[prefill]), sidechains)


@settings(SLOW, max_examples=200)
@given(st.binary(max_size=200), st.sampled_from(list(PREFILLED)))
def test_random_bytes_never_crash(fast: ModuleType, data: bytes, prefill: str) -> None:
    state = copy.deepcopy(PREFILLED[prefill])
    at = 0
    while at < len(data):
        result = fast.fold_lines(CodexSource()._parts, data, at, len(data), state, False)
        assert len(result) == 4 and at < result[0] <= len(data)
        at = result[0]
    for piece in data.split(b"\n"):
        if piece:
            assert_untouched_when_left(fast, piece, copy.deepcopy(PREFILLED[prefill]), False)


# ---- robustness ------------------------------------------------------------------------------


def fixture_lines() -> Iterator[bytes]:
    for path in FIXTURE_FILES:
        yield from (data for data in path.read_bytes().splitlines() if data)


def test_truncated_genuine_lines_never_crash(fast: ModuleType) -> None:
    for data in fixture_lines():
        step = max(1, len(data) // 60)
        for cut in [*range(1, len(data), step), len(data) - 1, len(data) - 2]:
            if cut > 0:
                assert_untouched_when_left(fast, data[:cut], FileState(), False)


@pytest.mark.parametrize("ascii_only", [False, True])
def test_five_megabyte_lines(fast: ModuleType, tmp_path: Path, ascii_only: bool) -> None:
    big = ("é 😀 token_" * 520_000)[: 5 << 20]
    lines = [
        json.dumps({"timestamp": TS, "type": kind, "payload": payload}, ensure_ascii=ascii_only).encode()
        for kind, payload in (
            ("response_item", {"type": "function_call_output", "call_id": "c", "output": "Exit code: 4\nOutput:\n" + big}),
            ("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": big}]}),
            ("response_item", {"type": "function_call", "call_id": "c", "arguments": json.dumps({"cmd": big})}),
            ("event_msg", {"type": "item_completed", "item": {"type": "CommandExecution", "id": "c", "command": [big], "aggregated_output": big}}),
            ("event_msg", {"type": "agent_message", "message": big}),
        )
    ]  # fmt: skip
    assert all(len(data) > 5 << 20 for data in lines)
    for data in lines:
        assert fold(fast, data, FileState())[1] == -1
    assert_same(fast, write(tmp_path / "big.jsonl", lines), False)


def test_wrong_arguments_raise(fast: ModuleType) -> None:
    parts, data, state = CodexSource()._parts, HANDLED[0], FileState()
    bad_calls: list[tuple[Any, ...]] = [
        (parts, data.decode(), 0, 1, state, False),
        (parts, bytearray(data), 0, 1, state, False),
        (parts, memoryview(data), 0, 1, state, False),
        (parts, data, "0", 1, state, False),
        (parts, data, 0.0, 1, state, False),
        (parts, data, 0, None, state, False),
        (None, data, 0, 1, state, False),
        (parts, data, 0, 1, state),
        (parts, data, 0, 1, state, False, None),
        (parts, data, 0, 1, FileState(events=(), extra={}), False),  # type: ignore[arg-type]
        (parts, data, 0, 1, FileState(events=None, extra={}), False),  # type: ignore[arg-type]
        (parts, data, 0, 1, FileState(events=[], extra=[]), False),  # type: ignore[arg-type]
    ]
    for args in bad_calls:
        with pytest.raises(TypeError):
            fast.fold_lines(*args)
    for start, end in ((-1, 1), (2, 1), (0, len(data) + 1)):
        with pytest.raises(ValueError):
            fast.fold_lines(parts, data, start, end, state, False)
    with pytest.raises((OverflowError, ValueError)):
        fast.fold_lines(parts, data, 0, 2**70, state, False)
    with pytest.raises((TypeError, AttributeError)):
        fast.fold_lines(parts, data, 0, 1, None, False)
    assert state == FileState()


def test_errors_from_python_propagate(fast: ModuleType) -> None:
    class Refuses:
        def __bool__(self) -> bool:
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        fast.fold_lines(
            CodexSource()._parts, HANDLED[0], 0, len(HANDLED[0]), FileState(), Refuses()
        )

    def broken(*args: Any) -> Any:
        raise KeyError("on_message")

    with pytest.raises(KeyError):
        fold(fast, HANDLED[0], FileState(), on_message=broken)
    state = FileState(extra={"sidechain": Refuses()})
    with pytest.raises(ZeroDivisionError):
        fold(fast, HANDLED[0], state)


_NAMES = ("call", "result", "user", "assistant", "interrupt", "shell", "exec_command", "last")
_WATCHED = (None, True, False, *map(sys.intern, (*_NAMES, "resulted", "sidechain", "extra")))


def test_no_reference_or_memory_leak(fast: ModuleType) -> None:
    data = b"\n".join([*HANDLED, *LEFT, *HANDLED[:5]]) + b"\n"
    parts = CodexSource()._parts

    def run(times: int) -> None:
        for number in range(times):
            state = FileState(extra={"sidechain": True} if number % 3 == 0 else {})
            at = 0
            while at < len(data):
                at = fast.fold_lines(parts, data, at, len(data), state, number % 2 == 0)[0]

    run(20)
    gc.collect()
    before = [sys.getrefcount(v) for v in _WATCHED]
    tracemalloc.start()
    try:
        run(300)
        gc.collect()
        grown, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    after = [sys.getrefcount(v) for v in _WATCHED]
    assert [a - b for a, b in zip(after, before, strict=True)] == [0] * len(_WATCHED)
    assert grown < 64 << 10


# ---- divergences found and fixed ------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        {
            "type": "function_call",
            "call_id": "c1",
            "arguments": {"cmd": "A"},
            "input": {"cmd": "B"},
        },
        {
            "type": "local_shell_call",
            "call_id": "c1",
            "arguments": {"x": 1},
            "action": {"command": ["ls"]},
        },
    ],
)
def test_object_arguments_beside_an_object_input(
    fast: ModuleType, tmp_path: Path, payload: Any
) -> None:
    assert_same(fast, write(tmp_path / "r.jsonl", [line("response_item", payload)]), False)
