"""The real Claude Code and Codex CLIs, run offline against the loopback fake, write transcripts
that harvest into one continued session each (planted key redacted, correction found)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.testing.fake_server import FakeModelServer
from skillopt_core.testing.harness import OfflineHarness, find_cli, offline_harness
from skillopt_sleep.harvest import harvest
from skillopt_sleep.records import SignalKind

pytestmark = pytest.mark.integration

KEY = "sk-proj-" + "Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8Ol9Pz0Xc" + "Vb12"
REPLY = "Renamed the cookie to session_id."


def _continue(cli: OfflineHarness, prompt: str, project: Path) -> None:
    if cli.name == "claude":
        done = cli.ask(prompt, cwd=project, extra_args=["--continue"])
    else:
        done = cli.run(["exec", "--skip-git-repo-check", "resume", "--last", prompt], cwd=project)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("name", ["claude", "codex"])
def test_harvests_what_the_real_cli_wrote(name: str, tmp_path: Path) -> None:
    if find_cli(name) is None:  # type: ignore[arg-type]
        pytest.skip(f"the real {name} CLI is not on PATH (scripts/bootstrap.sh --dev)")
    with (
        FakeModelServer(lambda body: REPLY) as fake,
        offline_harness(name, fake, tmp_path) as cli,  # type: ignore[arg-type]
    ):
        project = cli.project("webapp").resolve()
        first = cli.ask(f"fix the failing login test; my key is {KEY}", cwd=project)
        assert first.returncode == 0, first.stderr[-2000:]
        _continue(cli, "no, that's wrong, the test still fails", project)
        files = cli.session_files()
        result = harvest(
            project, sources=(name,), index=tmp_path / "idx", homes={name: cli.state_dir}
        )
        again = harvest(
            project, sources=(name,), index=tmp_path / "idx", homes={name: cli.state_dir}
        )

    (session,) = result.sessions
    assert set(session.source_files) <= {str(f) for f in files}
    assert Path(session.cwd).resolve() == project
    texts = [t.text for t in session.user_turns]
    assert texts[0].startswith("fix the failing login test; my key is [REDACTED:")
    assert texts[-1] == "no, that's wrong, the test still fails"
    assert any(REPLY in t.text for t in session.turns if t.role == "assistant")
    assert (SignalKind.CORRECTION, 0) in [(s.kind, s.turn_index) for s in session.signals]
    assert KEY not in repr(session)
    assert again.sessions == ()
