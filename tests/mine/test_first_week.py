"""A first week of one project, shaped like the archive issue 12 was measured on: three recurring
tasks, near misses, placeholder-only overlap, a repeated correction, copies across harnesses."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from mine._sessions import session
from skillopt_sleep.mine import Archive, MineConfig, mine
from skillopt_sleep.mine.embed.minilm_numpy import encoder_dir

P = "/home/dev/shop"
RELEASE = [
    (
        "draft the release notes for v2.3 from the merged PRs",
        "no, use the Keep a Changelog headings",
    ),
    ("write release notes for this version", "again please use Added / Changed / Fixed headings"),
    ("release notes for 2.5 please, based on the merged pull requests", "thanks"),
]
FLAKY = [
    ("test_checkout_total is flaky in CI, fix it", "no, don't just add a retry, find the race"),
    ("the checkout test fails randomly on CI again, make it reliable", "thanks, that works"),
    ("flaky test in tests/test_checkout.py, stabilise it", ""),
]
SLOW = [
    ("the orders list endpoint takes 4 seconds, speed up the query", ""),
    ("GET /orders is slow again, optimise the SQL", "thanks"),
]
ONE_OFFS = [
    "upgrade requests to 2.32 and fix what breaks",
    "what does the @cached_property decorator do in this codebase",
    "the token [REDACTED:github-token] leaked in the old CI config, delete that file",
    "curl -H 'Authorization: Bearer [REDACTED:github-token]' returns 401 for the org endpoint",
    "remove [REDACTED:aws-access-key-id] from the terraform vars and use the vault lookup",
]
COPIED = "how do I profile memory usage of a python process"


def _week() -> list:
    sessions = []
    for group in (RELEASE, FLAKY, SLOW):
        for day, (request, feedback) in enumerate(group):
            turns = [request, feedback] if feedback else [request]
            sessions.append(session(f"{request[:12]}-{day}", P, turns, day=day * 2))
    sessions += [session(f"one-{i}", P, [text], day=i) for i, text in enumerate(ONE_OFFS)]
    for harness in ("claude", "codex", "copilot"):  # one question typed into three harnesses
        copy = session(f"copy-{harness}", P, [COPIED], day=3)
        sessions.append(replace(copy, harness=harness))
    return sessions


def _by_word(result, word: str) -> list:
    return [f for f in result.families if any(word in r.lower() for r in f.requests)]


@pytest.mark.parametrize("embedder", ["minilm-numpy"])  # tfidf finds 2 of the 3
def test_first_week_mines_exactly_the_recurring_tasks(embedder: str, tmp_path: Path) -> None:
    if encoder_dir() is None:
        pytest.skip("no packaged MiniLM model files")
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(_week(), archive, MineConfig(embedder=embedder))
    found = sorted(sorted(f.requests) for f in result.families)
    assert found == sorted(sorted(r for r, _ in group) for group in (RELEASE, FLAKY, SLOW))
    release = _by_word(result, "release")[0]
    assert [c.value for c in release.checks if c.kind == "contains"]  # its own correction
    assert not any("retry" in c.value for c in release.checks)  # not the flaky family's
    assert all("again please" not in t.intent for t in result.tasks)
    assert result.stats["one_offs"] >= len(ONE_OFFS) + 1  # the copied question counts once


def test_copies_across_harnesses_are_one_occasion(tmp_path: Path) -> None:
    copies = [s for s in _week() if s.session_id.startswith("copy-")]
    assert {s.harness for s in copies} == {"claude", "codex", "copilot"}
    assert max(s.started_at for s in copies) - min(s.started_at for s in copies) < timedelta(
        minutes=10
    )
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(copies, archive, MineConfig(embedder="tfidf"))
    assert result.families == () and result.stats["one_offs"] == 1
