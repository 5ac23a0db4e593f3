"""A harvested signal whose excerpt an older version redacted is redacted again before it is
archived. Before, a resumed session re-delivered its earlier turns' signals as the harvest index
first read them, and the candidate copied them as they were: a secret the archive had just
redacted again came back into it (found by a review; the archive stores what it is given)."""

from __future__ import annotations

from datetime import datetime, timezone

from skillopt_sleep.mine.candidates import candidates_from_session
from skillopt_sleep.records import Session, Signal, SignalKind, Turn

SECRET = "Tr0ub4dorHorse77"
STAMP = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


def test_a_signal_excerpt_from_older_rules_is_redacted_again() -> None:
    correction = f"no, clone https://deploy:{SECRET}@git.example.com/app.git instead"
    session = Session(
        "claude", "s1", "/p", "/p", STAMP, STAMP,
        (Turn("user", "clone the app repo", STAMP), Turn("assistant", "done", STAMP),
         Turn("user", correction, STAMP)),
        signals=(Signal(SignalKind.CORRECTION, 0, correction),),
    )  # fmt: skip
    (candidate,) = candidates_from_session(session)
    excerpts = [s.excerpt for s in candidate.signals]
    assert excerpts and not any(SECRET in e for e in excerpts)
    assert any("[REDACTED:" in e for e in excerpts)
