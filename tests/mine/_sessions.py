"""Hand-built sessions shaped like the genuine fixtures (webapp login test, reading arXiv)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from skillopt_sleep.records import Session, Signal, SignalKind, ToolCall, Turn

BASE = datetime(2026, 11, 21, 9, 0, tzinfo=timezone.utc)


def session(
    sid: str, project: str, texts: list[str], day: int = 0, signals: tuple[Signal, ...] = ()
) -> Session:
    start = BASE + timedelta(days=day, minutes=len(sid))
    turns: list[Turn] = []
    for n, text in enumerate(texts):
        turns.append(Turn("user", text, start + timedelta(minutes=2 * n)))
        calls = (ToolCall(f"c{n}", "Bash", "ls -la", "total 16", is_error=False),) if n == 0 else ()
        turns.append(
            Turn("assistant", f"Done: {text[:30]}", start + timedelta(minutes=2 * n + 1), calls)
        )
    return Session(
        "claude", sid, project, project, start, start + timedelta(minutes=30), tuple(turns), signals
    )


def webapp_and_reading(day: int = 0) -> list[Session]:
    web, reading = "/home/dev/webapp", "/home/dev/reading"
    return [
        session(
            f"w1-{day}",
            web,
            [
                "fix the failing login test in tests/test_auth.py",
                "no, that's wrong, the test still fails - check the session cookie name",
            ],
            day,
        ),
        session(f"w2-{day}", web, ["add a --json flag to the export command"], day),
        session(
            f"w3-{day}",
            web,
            [
                "the login test in tests/test_auth.py is failing again, please fix it",
                "thanks, that works",
            ],
            day,
        ),
        session(
            f"r1-{day}",
            reading,
            ["summarize arXiv paper 2605.23904 for the reading group and give its arXiv id"],
            day,
        ),
        session(
            f"r2-{day}",
            reading,
            [
                "give me a summary of arXiv 2510.04618 with the id at the end",
                "wrong format - put the arXiv id on its own line like arXiv:2510.04618",
            ],
            day,
        ),
        session(
            f"r3-{day}",
            reading,
            ["explain the difference between tcp and udp", "continue"],
            day,
            (Signal(SignalKind.APPROVAL, 0, "continue"),),
        ),
    ]
