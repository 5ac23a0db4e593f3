"""The real Copilot CLI, run offline against the loopback fake, writes a log we harvest."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.testing.fake_server import FakeModelServer
from skillopt_core.testing.harness import find_cli, offline_harness
from skillopt_sleep.harvest import harvest
from skillopt_sleep.records import SignalKind

pytestmark = pytest.mark.integration

KEY = "sk-proj-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa" + "0123"


def test_harvests_what_the_real_copilot_cli_wrote(tmp_path: Path) -> None:
    if find_cli("copilot") is None:
        pytest.skip("the real copilot CLI is not on PATH (scripts/bootstrap.sh --dev)")
    with (
        FakeModelServer(lambda body: "Renamed the cookie to session_id.") as fake,
        offline_harness("copilot", fake, tmp_path) as cli,
    ):
        project = cli.project("webapp")
        first = cli.ask(f"fix the failing login test; my key is {KEY}", cwd=project)
        assert first.returncode == 0, first.stderr[-2000:]
        second = cli.ask(
            "no, that's wrong, the test still fails", cwd=project, extra_args=["--continue"]
        )
        assert second.returncode == 0, second.stderr[-2000:]
        (log,) = cli.session_files()
        result = harvest(
            project, sources=("copilot",), index=tmp_path / "idx", homes={"copilot": cli.state_dir}
        )

    (session,) = result.sessions
    assert session.source_files == (str(log),)
    assert Path(session.cwd).resolve() == project.resolve()
    assert [t.text for t in session.user_turns] == [
        "fix the failing login test; my key is [REDACTED:openai-key]",
        "no, that's wrong, the test still fails",
    ]
    assert "Renamed the cookie to session_id." in session.turns[1].text
    assert [(s.kind, s.turn_index) for s in session.signals] == [(SignalKind.CORRECTION, 0)]
    assert result.stats["copilot"].skipped_line_count == 0
    assert KEY not in repr(session)
