"""Hypothesis fuzzing over mutated genuine records: the harvest never crashes and never leaks."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harvest._fixtures import FIXTURES, PLANTED_KEY
from skillopt_sleep.harvest import harvest
from skillopt_sleep.jsonable import dumps

_CLAUDE = sorted((FIXTURES / ".claude").rglob("*.jsonl"))
_CODEX = sorted((FIXTURES / ".codex").rglob("*.jsonl"))
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=40),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _mutate(value: Any, rng: random.Random, replacement: Any) -> Any:
    """Replace, drop or retype one randomly chosen nested field."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        choice = rng.random()
        copy = dict(value)
        if choice < 0.2:
            del copy[key]
        elif choice < 0.4:
            copy[key] = replacement
        else:
            copy[key] = _mutate(copy[key], rng, replacement)
        return copy
    if isinstance(value, list) and value:
        index = rng.randrange(len(value))
        copy = list(value)
        copy[index] = _mutate(copy[index], rng, replacement) if rng.random() < 0.7 else replacement
        return copy
    return replacement


def _corrupt(data: bytes, rng: random.Random) -> bytes:
    lines = data.splitlines(keepends=True)
    index = rng.randrange(len(lines))
    cut = rng.randrange(len(lines[index]))
    lines[index] = (
        lines[index][:cut] + bytes(rng.randrange(256) for _ in range(8)) + lines[index][cut:]
    )
    return b"".join(lines)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    replacement=_VALUES,
    mutations=st.integers(1, 12),
    corrupt=st.booleans(),
)
def test_mutated_records_never_crash(
    tmp_path: Path, seed: int, replacement: Any, mutations: int, corrupt: bool
) -> None:
    rng = random.Random(seed)
    root = tmp_path / str(seed)
    for files, folder in ((_CLAUDE, ".claude"), (_CODEX, ".codex")):
        original = rng.choice(files)
        records = [json.loads(line) for line in original.read_text().splitlines()]
        for _ in range(mutations):
            at = rng.randrange(len(records))
            records[at] = _mutate(records[at], rng, replacement)
        data = "".join(json.dumps(r) + "\n" for r in records).encode()
        if corrupt:
            data = _corrupt(data, rng)
        target = root / folder / original.relative_to(FIXTURES / folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    homes = {"claude": root / ".claude", "codex": root / ".codex"}
    for project in ("/home/dev/webapp", "/home/dev/reading"):
        result = harvest(project, index=":memory:", homes=homes, sources=("claude", "codex"))
        text = dumps(list(result.sessions))
        assert PLANTED_KEY not in text
        for session in result.sessions:
            assert session.started_at.tzinfo is not None
            assert session.user_turns
