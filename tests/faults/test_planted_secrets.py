"""No planted secret survives anywhere the tools write: stdout, stderr, --output, the state
directory (SQLite files, journals, locks, file names), the miner's archive and its caches."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from faults._cli import home_args, sleep_cli
from faults._planted import PATH_SAFE, PROJECT, SECRETS, everything_under, plant


def _escaped(secret: str) -> bytes:
    return f"\\u{ord(secret[0]):04x}{secret[1:]}".encode()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Plant the corpus, run the tools as a night would, and collect everything they wrote."""
    root = tmp_path_factory.mktemp("planted")
    homes = plant(root / "homes")
    env = {"SKILLOPT_SLEEP_HOME": str(root / "state-home")}
    state = root / "state"
    out = root / "out" / "sessions.json"
    base = ["--project", PROJECT, *home_args(homes)]
    runs = [
        sleep_cli(
            ["harvest", *base, "--json", "-o", str(out), "--state-dir", str(state), "--commit"], env
        ),
        sleep_cli(["harvest", *base], env),  # the default state dir, read-only
        sleep_cli(["mine", *base, "--embedder", "tfidf", "--json"], env),
    ]
    for result in runs:
        assert result.returncode == 0, result.stderr.decode()
    places: list[tuple[str, bytes]] = []
    for number, result in enumerate(runs):
        places += [(f"run {number} stdout", result.stdout), (f"run {number} stderr", result.stderr)]
    places += everything_under(state) + everything_under(root / "state-home")
    places += everything_under(out.parent)
    return {"places": places, "sessions": json.loads(out.read_text()), "state": state, "root": root}


def test_the_corpus_really_holds_the_secrets(written: dict[str, object]) -> None:
    sessions = written["sessions"]
    assert isinstance(sessions, list)
    harnesses = {s["harness"] for s in sessions}
    assert harnesses == {"claude", "codex", "copilot"}
    assert len(sessions) >= 3 * len(PATH_SAFE)
    raw = b"".join(p.read_bytes() for p in Path(str(written["root"]), "homes").rglob("*.jsonl"))
    for secret in SECRETS.values():
        assert secret.encode() in raw or _escaped(secret) in raw


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_no_raw_secret_anywhere(written: dict[str, object], kind: str) -> None:
    secret = SECRETS[kind].encode()
    places = written["places"]
    assert isinstance(places, list)
    leaks = [where for where, data in places if secret in data or _escaped(SECRETS[kind]) in data]
    assert not leaks, f"{kind} leaked into {leaks}"


def test_state_is_private(written: dict[str, object]) -> None:
    state = Path(str(written["state"]))
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for path in state.rglob("*"):
        mode = stat.S_IMODE(path.stat().st_mode)
        assert not mode & 0o077, f"{path} is {oct(mode)}"
