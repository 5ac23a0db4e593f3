"""Done-when: mining the genuine Claude Code / Codex / Copilot transcripts finds the recurring
families with their corrections as evidence and a judge that catches the corrected mistake."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillopt_sleep.harvest import harvest
from skillopt_sleep.mine import Archive, MineConfig, mine
from skillopt_sleep.mine.embed.minilm_numpy import encoder_dir
from skillopt_sleep.mine.embed.mpnet import mpnet_available

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "transcripts"
HOMES = {
    "claude": FIXTURES / ".claude",
    "codex": FIXTURES / ".codex",
    "copilot": FIXTURES / ".copilot",
}
EMBEDDERS = ["tfidf", "static", "minilm", "minilm-numpy", "mpnet"]


def _mine(project: str, embedder: str, tmp_path: Path):
    if not FIXTURES.is_dir():
        pytest.skip("genuine fixtures not present")
    if embedder == "minilm":
        pytest.importorskip(
            "sentence_transformers", reason="the `embeddings` extra is not installed"
        )
    if embedder == "minilm-numpy" and encoder_dir() is None:
        pytest.skip("no packaged MiniLM model files")
    if embedder == "mpnet" and not mpnet_available():
        pytest.skip("skillopt-sleep-mpnet is not installed (the `embeddings` extra)")
    sessions = harvest(project, homes=HOMES, index=tmp_path / "state", commit=False).sessions
    with Archive(tmp_path / "archive.sqlite3") as archive:
        return mine(sessions, archive, MineConfig(embedder=embedder))


def _family(result, needle: str):
    matches = [f for f in result.families if any(needle in r.lower() for r in f.requests)]
    assert len(matches) == 1, [f.requests for f in result.families]
    return matches[0]


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_webapp_login_family(embedder: str, tmp_path: Path) -> None:
    result = _mine("/home/dev/webapp", embedder, tmp_path)
    assert result.embedder_name == embedder
    login = _family(result, "login test")
    assert len(set(login.requests)) == 2 and login.size >= 4
    assert login.outcomes.get("failed", 0) >= 1 and login.outcomes.get("succeeded", 0) >= 1
    assert not any("export" in r for r in login.requests)
    tasks = [t for t in result.tasks if t.family == login.id]
    corrections = [
        s.excerpt
        for t in tasks
        for e in t.evidence
        for s in e.signals
        if s.kind.value == "correction"
    ]
    assert any("session cookie" in c for c in corrections)
    (check,) = [c for c in login.checks if c.kind == "contains"]
    assert "session cookie" in check.value
    assert all("no, that's wrong" not in t.intent and "thanks" not in t.intent for t in tasks)
    assert all("sk-proj-AbCd" not in t.intent for t in result.tasks)


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_reading_arxiv_family(embedder: str, tmp_path: Path) -> None:
    result = _mine("/home/dev/reading", embedder, tmp_path)
    arxiv = _family(result, "arxiv")
    assert len(set(arxiv.requests)) == 2
    tasks = [t for t in result.tasks if t.family == arxiv.id]
    corrections = [
        s.excerpt
        for t in tasks
        for e in t.evidence
        for s in e.signals
        if s.kind.value == "correction"
    ]
    assert any("arXiv:2510.04618" in c for c in corrections)
    (check,) = [c for c in arxiv.checks if c.kind == "regex"]
    assert re.search(check.value, "The paper proposes X.\narXiv:2605.23904")
    assert not re.search(check.value, "The paper proposes X (arXiv id 2605.23904).")
    assert all("wrong format" not in t.intent for t in tasks)
