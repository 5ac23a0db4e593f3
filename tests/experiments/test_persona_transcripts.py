"""Persona transcripts have the genuine harnesses' record shapes, and the real harvester reads them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from experiments.personas import PERSONAS, simulate, write_sessions
from skillopt_sleep.harvest import harvest

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "transcripts"


def _records(root: Path, pattern: str) -> Iterator[dict[str, Any]]:
    for path in sorted(root.glob(pattern)):
        for line in path.read_text(encoding="utf-8").splitlines():
            yield json.loads(line)


def _shape(harness: str, record: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, set[str]]]:
    """(record kind, {part: keys}) — the kind picks comparable fixture records."""
    if harness == "claude":
        parts = {"top": set(record)}
        if isinstance(record.get("message"), dict):
            parts["message"] = set(record["message"])
        return (str(record.get("type")), str(record.get("message", {}).get("role", ""))), parts
    if harness == "codex":
        payload = record.get("payload", {})
        kind = (str(record["type"]), str(payload.get("type", "")), str(payload.get("role", "")))
        return kind, {"top": set(record) - {"ordinal"}, "payload": set(payload)}
    return (str(record["type"]),), {"top": set(record), "data": set(record["data"])}


PATTERNS = {
    "claude": ".claude/projects/*/*.jsonl",
    "codex": ".codex/sessions/*/*/*/*.jsonl",
    "copilot": ".copilot/session-state/*/events.jsonl",
}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home")
    for name in ("researcher", "devops"):  # claude + codex, and claude + codex + copilot
        write_sessions(home, home.parent / "dev", simulate(PERSONAS[name], 3, seed=1))
    return home


@pytest.mark.parametrize("harness", sorted(PATTERNS))
def test_records_match_the_genuine_shapes(written: Path, harness: str) -> None:
    genuine: dict[tuple[str, ...], dict[str, set[str]]] = {}
    for record in _records(FIXTURES, PATTERNS[harness]):
        kind, parts = _shape(harness, record)
        for part, keys in parts.items():
            genuine.setdefault(kind, {}).setdefault(part, set()).update(keys)
    ours = list(_records(written, PATTERNS[harness]))
    assert ours, f"no {harness} records written"
    for record in ours:
        kind, parts = _shape(harness, record)
        assert kind in genuine, f"{harness} record kind {kind} never appears in the fixtures"
        for part, keys in parts.items():
            invented = keys - genuine[kind][part]
            assert not invented, (
                f"{harness} {kind} {part} has keys the harness never writes: {invented}"
            )


def test_user_records_carry_every_key_the_genuine_ones_do(written: Path) -> None:
    genuine = next(
        r
        for r in _records(FIXTURES, PATTERNS["claude"])
        if r.get("type") == "user" and "promptId" in r
    )
    ours = next(r for r in _records(written, PATTERNS["claude"]) if r.get("type") == "user")
    assert set(genuine) - {"toolUseResult", "sourceToolAssistantUUID"} <= set(ours)


def test_the_real_harvester_reads_every_harness(written: Path) -> None:
    persona = PERSONAS["devops"]
    sessions = simulate(persona, 3, seed=1)
    project = written.parent / "dev" / "infra"
    result = harvest(
        project,
        ("claude", "codex", "copilot"),
        "3650d",
        ":memory:",
        homes={h: written / f".{h}" for h in ("claude", "codex", "copilot")},
    )
    expected = {(s.harness, s.id) for s in sessions if s.project == "infra"}
    got = {(s.harness, s.session_id) for s in result.sessions}
    assert expected == got
    by_id = {s.session_id: s for s in result.sessions}
    for simulated in (s for s in sessions if s.project == "infra"):
        harvested = by_id[simulated.id]
        user = [t.text for t in harvested.turns if t.role == "user"]
        assert user == [t.text for t in simulated.turns if t.role == "user"]
