"""A slash command is harvested as the user typed it, and this engine's own is never mined.

Claude Code records ``/skillopt-sleep status`` as tags (``<command-message>`` ...); mined as is, a
user's own `/skillopt-sleep` invocations became a recurring "task" with that markup as its intent.
"""

from __future__ import annotations

from pathlib import Path

from mine._sessions import session

from harvest._fixtures import WEBAPP, write_claude_session
from skillopt_sleep.harvest import harvest
from skillopt_sleep.mine.candidates import extract_candidates

WRAPPED = (
    "<command-message>skillopt-sleep</command-message>\n"
    "<command-name>/skillopt-sleep</command-name>\n<command-args>status</command-args>"
)


def test_a_slash_command_is_harvested_as_typed(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    run = [{"type": "text", "text": WRAPPED.replace("status", "run")}]
    write_claude_session(home, [("user", WRAPPED), ("assistant", "No nights yet."), ("user", run)])
    (found,) = harvest(WEBAPP, ("claude",), None, ":memory:", homes={"claude": home}).sessions
    users = [t.text for t in found.turns if t.role == "user"]
    assert users == ["/skillopt-sleep status", "/skillopt-sleep run"]


def test_the_engine_invoked_from_a_harness_is_never_a_request() -> None:
    sessions = [
        session(f"s{n}", WEBAPP, [text, "fix the failing login test in auth/session.py"], day=n)
        for n, text in enumerate(
            [
                "/skillopt-sleep status",
                "/skillopt-sleep run",
                "$skillopt-sleep status",
                "/SkillOpt-Sleep",
            ]
        )
    ]
    texts = [c.text for c in extract_candidates(sessions)]
    assert texts and not any("skillopt" in t.lower() for t in texts)
    assert all("login test" in t for t in texts)
