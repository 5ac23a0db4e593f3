"""Faults a QA pass found in the miner: a prohibition read as a wish, requests with nothing left to
compare, feedback opening a request, a long paste hiding the question, unchecked CLI numbers."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mine._sessions import BASE, session
from skillopt_core.errors import EXIT_USAGE
from skillopt_sleep.cli import app
from skillopt_sleep.mine import Archive, MineConfig, cluster_requests, mine
from skillopt_sleep.mine.candidates import Candidate, candidates_from_session
from skillopt_sleep.mine.coherence import contradictions
from skillopt_sleep.mine.families import compared_text
from skillopt_sleep.mine.feedback import opens_as_feedback
from skillopt_sleep.mine.heuristics import checks_from_feedback
from skillopt_sleep.mine.masking import mask
from skillopt_sleep.records import Session, Turn

# -- a prohibition yields only its not_contains check ------------------------------------------


@pytest.mark.parametrize(
    ("correction", "banned"),
    [
        ("never use print", "print"),
        ("don't use global state", "global state"),
        ("do not use the requests library", "requests library"),
        ("don't include the changelog", "changelog"),
        ("no, that's wrong, never mention the migration guide", "migration guide"),
    ],
)
def test_a_prohibition_is_only_a_not_contains_check(correction: str, banned: str) -> None:
    checks = checks_from_feedback([correction])
    assert [(c.kind, c.value) for c in checks] == [("not_contains", banned)]
    assert contradictions(checks) == []


def test_a_wish_next_to_a_prohibition_is_still_a_contains_check() -> None:
    found = {(c.kind, c.value) for c in checks_from_feedback(["don't use print, use the logger"])}
    assert found == {("not_contains", "print"), ("contains", "logger")}
    found = {(c.kind, c.value) for c in checks_from_feedback(["check the session cookie name"])}
    assert found == {("contains", "session cookie")}


def test_a_family_corrected_with_a_prohibition_is_mined_not_withheld(tmp_path: Path) -> None:
    request = "add logging to the sync worker in worker.py"
    sessions = [
        session(f"s{n}", "/p", [request, "no, that's wrong, never use print"], day=n)
        for n in range(4)
    ]
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(sessions, archive, MineConfig(embedder="tfidf"))
    assert result.stats["withheld_contradictory"] == 0
    (family,) = result.families
    assert {(c.kind, c.value) for c in family.checks} == {("not_contains", "print")}
    assert len(result.tasks) == 1 and result.tasks[0].checks == family.checks


# -- a request with nothing left after masking is never mined ------------------------------------

EMPTY = [
    "[REDACTED:openai-key]",
    "[REDACTED:github-token]",
    "?!?!",
    "?!?!",
    "...",
    " [REDACTED:x] !",
]
REAL = ["fix the failing login test in test_auth.py", "fix the failing login test in test_auth.py"]


@pytest.mark.parametrize("text", EMPTY)
def test_nothing_is_left_to_compare_of_a_placeholder_or_punctuation(text: str) -> None:
    assert compared_text(text) == ""


@pytest.mark.parametrize("embedder", ["auto", "tfidf"])
def test_requests_with_nothing_to_compare_are_each_a_one_off(embedder: str) -> None:
    labels = cluster_requests([*EMPTY, *REAL], embedder)
    assert len(set(labels[: len(EMPTY)])) == len(EMPTY)  # never alike, not even to each other
    assert labels[-1] == labels[-2] and labels[-1] not in labels[: len(EMPTY)]
    assert labels[0] == 0 and labels == cluster_requests([*EMPTY, *REAL], embedder)


def _session(sid: str, texts: list[str], day: int = 0) -> Session:
    """A session of exactly ``texts`` as user turns (blank ones included), each answered."""
    start = BASE + timedelta(days=day)
    turns = []
    for n, text in enumerate(texts):
        turns.append(Turn("user", text, start + timedelta(minutes=2 * n)))
        turns.append(Turn("assistant", "FAKE reply", start + timedelta(minutes=2 * n + 1)))
    end = start + timedelta(minutes=30)
    return Session("claude", sid, "/p", "/p", start, end, tuple(turns))


@pytest.mark.parametrize("embedder", ["auto", "tfidf"])
def test_placeholder_and_punctuation_requests_never_make_a_family(
    tmp_path: Path, embedder: str
) -> None:
    correction = "no, that's wrong, check the session cookie name"
    sessions = [_session(f"e{n}", [text, correction], day=n) for n, text in enumerate(EMPTY)]
    assert all(candidates_from_session(s) == [] for s in sessions)
    config = MineConfig(embedder=embedder, include_one_offs=True)
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(sessions, archive, config)
    assert result.families == () and result.tasks == ()


def test_a_placeholder_turn_after_a_request_belongs_to_its_attempt() -> None:
    s = _session("k", ["add the api key to the env example", "[REDACTED:openai-key]", "thanks"])
    (found,) = candidates_from_session(s)
    assert found.text == "add the api key to the env example" and found.outcome == "succeeded"


def test_archived_requests_with_nothing_to_compare_are_not_replayed(tmp_path: Path) -> None:
    """Requests stored by an earlier night (before they were dropped as candidates) stay out."""
    stored = [
        Candidate("?!?!", f"old{n}", "claude", "/p", BASE + timedelta(days=n), 0) for n in range(3)
    ]
    with Archive(tmp_path / "a.sqlite3") as archive:
        archive.add(stored, "2026-11-20")
        result = mine([], archive, MineConfig(embedder="tfidf", include_one_offs=True))
    assert result.families == () and result.tasks == ()


# -- feedback never opens a request ---------------------------------------------------------------

CORRECTION = "no, that's wrong, the test still fails - check the session cookie name"


@pytest.mark.parametrize(
    "turns",
    [
        ["   \n\t ", CORRECTION],
        [CORRECTION],
        ["", "continue"],
        ["thanks, that works"],
        ["?!?!", CORRECTION, "also update the docs"],
    ],
)
def test_feedback_with_no_request_before_it_is_dropped(turns: list[str]) -> None:
    assert candidates_from_session(_session("b", turns)) == []


def test_a_session_may_open_with_a_recurring_request_worded_like_feedback() -> None:
    opening = "the login test in tests/test_auth.py is failing again, please fix it"
    (found,) = candidates_from_session(_session("r", [opening, "thanks, that works"]))
    assert found.text == opening and found.outcome == "succeeded"


def test_feedback_after_a_blank_turn_is_evidence_for_the_request_before() -> None:
    s = _session(
        "b", ["fix the failing login test", "   ", CORRECTION, "add a --json flag to export"]
    )
    first, second = candidates_from_session(s)
    assert first.text == "fix the failing login test" and first.outcome == "failed"
    assert first.feedback == (CORRECTION,)
    assert second.text == "add a --json flag to export" and second.feedback == ()


def test_a_session_opening_with_feedback_mines_only_its_real_request() -> None:
    s = _session("b", [CORRECTION, "add a --json flag to the export command", "thanks"])
    (found,) = candidates_from_session(s)
    assert found.text == "add a --json flag to the export command"
    assert found.outcome == "succeeded" and found.feedback == ("thanks",)


def test_corrections_after_blank_first_turns_make_no_family(tmp_path: Path) -> None:
    sessions = [_session(f"b{n}", ["   \n\t ", CORRECTION], day=n) for n in range(3)]
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(sessions, archive, MineConfig(embedder="tfidf", include_one_offs=True))
    assert result.families == () and result.tasks == ()


# -- a long paste keeps the question at its end ---------------------------------------------------

LOG = "\n".join(
    f"12:{i % 60:02d}:00 WARN worker-{i % 7} slow query on table orders ({i} ms)"
    for i in range(400)
)
QUESTIONS = [
    "QUESTION A: how do I add an index to the orders table?",
    "QUESTION B: please write a unit test for the retry helper in retry.py",
]


def test_a_long_request_keeps_its_head_and_its_question() -> None:
    (found,) = candidates_from_session(_session("l", [f"Here is my log:\n{LOG}\n\n{QUESTIONS[0]}"]))
    assert found.text.startswith("Here is my log: 12:00:00 WARN worker-0")
    assert found.text.endswith(QUESTIONS[0])
    assert "characters cut …]" in found.text and len(found.text) <= 2000


def test_the_cut_marker_never_makes_two_requests_alike() -> None:
    first = f"[… 12345 characters cut …] {QUESTIONS[0]}"
    second = f"{QUESTIONS[1]}\n[… 77 characters cut …]\n"
    assert "cut" not in mask(first) and "cut" not in mask(second)
    assert mask(first) == mask(QUESTIONS[0])


@pytest.mark.parametrize("embedder", ["auto", "tfidf"])
def test_one_pasted_log_with_two_questions_replays_each_question(
    tmp_path: Path, embedder: str
) -> None:
    sessions = [
        _session(f"q{n}", [f"Here is my log:\n{LOG}\n\n{q}", "no, that's wrong, check the index"])
        for n, q in enumerate(QUESTIONS)
    ]
    with Archive(tmp_path / "a.sqlite3") as archive:
        result = mine(sessions, archive, MineConfig(embedder=embedder, include_one_offs=True))
    assert sorted(q for t in result.tasks for q in QUESTIONS if t.intent.endswith(q)) == QUESTIONS
    requests = {e.request for t in result.tasks for e in t.evidence}
    assert all(any(r.endswith(q) for r in requests) for q in QUESTIONS)


# -- the mine command checks its numbers ----------------------------------------------------------


def _mine_empty_homes(tmp_path: Path, args: list[str]) -> Any:
    home = tmp_path / "home"
    home.mkdir()
    argv = ["mine", "-p", str(tmp_path), "--claude-home", str(home), "--codex-home", str(home),
            "--copilot-home", str(home), "--vscode-home", str(home),
            "--archive", str(tmp_path / "a.sqlite3"), "--embedder", "jaccard", *args]  # fmt: skip
    return CliRunner().invoke(app, argv)


@pytest.mark.parametrize(
    "args",
    [
        ["--threshold", "-5"],
        ["--threshold", "nan"],
        ["--threshold", "inf"],
        ["--threshold", "7"],
        ["--threshold", "-0.1"],
        ["--min-family-size", "-3"],
        ["--min-family-size", "0"],
    ],
)
def test_mine_refuses_impossible_numbers(tmp_path: Path, args: list[str]) -> None:
    result = _mine_empty_homes(tmp_path, args)
    assert result.exit_code == EXIT_USAGE, result.output
    assert args[0] in result.output
    assert not (tmp_path / "a.sqlite3").exists()  # refused before anything is read


@pytest.mark.parametrize("args", [["--threshold", "0.3"], ["--min-family-size", "1"]])
def test_mine_accepts_sensible_numbers(tmp_path: Path, args: list[str]) -> None:
    result = _mine_empty_homes(tmp_path, args)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "text",
    [
        "ok, add pagination to /users",
        "great, now add a --json flag to the export command",
        "revert the last migration on staging",
        "undo the rename of the auth module",
    ],
)
def test_a_session_may_open_with_a_request_worded_like_feedback(text: str) -> None:
    """Only a first turn that is nothing but feedback is dropped: a courtesy or a revert in
    front of a task keeps it a request."""
    assert not opens_as_feedback(text)
