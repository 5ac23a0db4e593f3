"""No planted secret survives a whole mock night and what reads it afterwards.

The corpus: the genuine transcripts (``tests/data/transcripts``, all three harnesses) with
secrets added to every prompt, correction, reply and tool input/output (every other line
JSON-escaped), plus the planted sessions of ``_planted`` (secrets in the cwd, the branch, the
Codex file name, legacy, mid-turn and unmirrored Codex lines) with every rule kind of the
redactor: every token format, a private key, and the values that are only secret in context
(``Authorization``/``Bearer`` headers, URL passwords, ``KEY=value`` assignments, ``--password``).

The places: ``dry-run`` (text, what a scheduled night writes to ``night.log``), ``run --json``,
``status``, ``proposals``, ``report`` (md, html, json, --path), ``mine --json``, ``adopt``,
``rollback`` and ``rollback --force`` (its ``NN.at-rollback`` copy), a second night; the MCP
tools' responses (status, harvest, mine, proposals, report, the report resource); every file
under the state directory (reports, nights/<id>/target-NN, history, staging and backups, the
archive and its caches) and the project's live files; an experiment's outputs with secrets
planted in its persona's transcripts. Whole secrets (raw or ``\\u``-escaped) and windows of them
(a partial leak: a token cut by a text's limit) are looked for everywhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import stat
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from redaction._secrets import PASSWORDS, PEM, TOKENS, random_token
from typer.testing import CliRunner

import faults._planted as planted
from faults._planted import everything_under
from skillopt_sleep.cli import app
from skillopt_sleep.harvest.claude import slug
from tests import _guard
from tests.engine._world import make_world

_RNG = random.Random(20261127)
_B62 = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"


def _rand(n: int, alphabet: str = _B62) -> str:
    return random_token(n, alphabet, _RNG)


# Token kinds the shared corpus leaves out.
_MORE_TOKENS = {
    "github-user": "ghu_" + _rand(36),
    "github-refresh": "ghr_" + _rand(36),
    "gitlab-oauth-secret": "gloas-" + _rand(30),
    "gitlab-feed": "glft-" + _rand(24),
    "gitlab-mail": "glimt-" + _rand(24),
    "gitlab-agent": "glagent-" + _rand(40),
    "gitlab-scim": "glsoat-" + _rand(24),
    "gitlab-feature-flags": "glffct-" + _rand(24),
    "aws-session-key-id": "ASIA" + _rand(16, string.ascii_uppercase + string.digits),
    "slack-user": "xoxp-" + _rand(12, string.digits) + "-" + _rand(20),
    "stripe-test": "sk_test_" + _rand(24),
    "stripe-webhook": "whsec_" + _rand(32),
    "anthropic-admin": "sk-ant-admin01-" + _rand(60),
}
# Secret only where it stands: kind -> (context, value); the value is looked for alone.
_IN_CONTEXT = {
    "bearer-token": ("Bearer {v}", _rand(28, _HEX + "._~")),
    "authorization": ("Authorization: Basic {v}", _rand(20)),
    "url-credentials": ("https://alice:{v}@git.example.test/org/repo.git", "Pw-" + _rand(12)),
    "redis-password-url": ("redis://:{v}@cache:6379/0", _rand(16)),
    "env-password": ("DB_PASSWORD={v}", PASSWORDS["password"]),
    "flag-password": ("mysql --password {v} db", PASSWORDS["passphrase-ish"]),
    "json-api-key": ('{{"api_key": "{v}"}}', PASSWORDS["short-hex-token"]),
    "aws-secret-key": ("aws_secret_access_key = {v}", _rand(40, _B62 + "+/")),
    "client-secret": ("client_secret: {v}", "cs" + _rand(14, _HEX)),
    "slack-webhook": (
        "https://hooks.slack.com/services/{v}",
        f"T{_rand(8, string.ascii_uppercase)}/B{_rand(8, string.ascii_uppercase)}/{_rand(24)}",
    ),
}
# kind -> what is looked for in the outputs
SECRETS: dict[str, str] = {
    **TOKENS,
    **_MORE_TOKENS,
    **{kind: value for kind, (_, value) in _IN_CONTEXT.items()},
    **{f"private-key-line-{i}": line for i, line in enumerate(PEM.splitlines()[1:-1])},
}
# kind -> the text planted
PLANTED: dict[str, str] = {
    **TOKENS,
    **_MORE_TOKENS,
    **{kind: shape.format(v=value) for kind, (shape, value) in _IN_CONTEXT.items()},
    "private-key": PEM,
}
PATH_SAFE = {
    kind: value
    for kind, value in {**TOKENS, **_MORE_TOKENS}.items()
    if all(c in _B62 + "_-" for c in value)
}
ALL = " ".join(PLANTED.values())
WINDOW = 14


def _escaped(secret: str) -> str:
    return f"\\u{ord(secret[0]):04x}{secret[1:]}"


def _escape_secrets(line: str) -> str:
    for secret in sorted(SECRETS.values(), key=len, reverse=True):
        line = line.replace(secret, _escaped(secret))
    return line


def _windows(secret: str) -> list[bytes]:
    return [secret[i : i + WINDOW].encode() for i in range(4, len(secret) - WINDOW + 1, 3)]


# ---------------------------------------------------------------------------- the corpus


def _spiced(value: Any, counter: list[int]) -> Any:
    """``value`` (a parsed transcript record) with secrets added to its conversation texts."""
    if isinstance(value, dict):
        return {k: _spiced(v, counter) for k, v in value.items()}
    if isinstance(value, list):
        return [_spiced(v, counter) for v in value]
    if isinstance(value, str) and value.startswith(
        ("fix the", "the login", "no, that", "thanks", "FAKE-REPLY", "total ", "my api key")
    ):
        counter[0] += 1
        kinds = sorted(PLANTED)
        picked = [PLANTED[kinds[(counter[0] * 5 + i) % len(kinds)]] for i in range(5)]
        return f"{value} ({' ; '.join(picked)})"
    if (
        isinstance(value, str)
        and value.startswith("{")
        and ("command" in value or "output" in value)
    ):
        with contextlib.suppress(ValueError):
            return json.dumps(_spiced(json.loads(value), counter))
    return value


def _spice_genuine(home: Path) -> None:
    counter = [0]
    for path in sorted(home.rglob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out = []
        for number, line in enumerate(lines):
            text = json.dumps(_spiced(json.loads(line), counter))
            out.append(_escape_secrets(text) if number % 2 else text)
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
    assert counter[0] > 20


def _write(path: Path, records: list[dict[str, Any]], escape_from: int = 10**9) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in records]
    lines = [_escape_secrets(line) if n >= escape_from else line for n, line in enumerate(lines)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _plant(home: Path, project: str) -> None:
    """The ``_planted`` sessions of every harness, for ``project``, with this corpus."""
    for number, (kind, secret) in enumerate(sorted(PATH_SAFE.items())):
        cwd = f"{project}/tmp-{secret}"
        sid = f"9000{number:04d}-0000-4000-8000-000000000000"
        _write(
            home / ".claude" / "projects" / slug(cwd) / f"{sid}.jsonl",
            planted._claude_records(sid, cwd, secret, kind),
        )
        meta = {
            "id": f"9000{number:04d}-0000-4000-9000-000000000000",
            "cwd": cwd,
            "git": {"branch": f"fix/{secret}"},
        }
        day = home / ".codex" / "sessions" / "2026" / "11" / "22"
        _write(
            day / f"rollout-2026-11-22T10-00-{number:02d}-{meta['id']}.jsonl",
            planted._codex(meta, secret),
        )
        copilot_id = f"9000{number:04d}-0000-4000-a000-000000000000"
        planted._copilot_session(home / ".copilot", copilot_id, cwd, secret, secret)
    sid = "91111111-1111-4111-8111-111111111111"
    records = planted._claude_records(sid, project, ALL, "all")
    records += planted._claude_records(sid, project, ALL, "escaped", start=30)
    _write(home / ".claude" / "projects" / slug(project) / f"{sid}.jsonl", records, escape_from=6)
    day = home / ".codex" / "sessions" / "2026" / "11" / "22"
    full = {"id": "92222222-2222-4222-9222-222222222222", "cwd": project}
    _write(day / f"rollout-2026-11-22T11-00-00-{full['id']}.jsonl", planted._codex(full, ALL), 4)
    midturn = {"id": "93333333-3333-4333-9333-333333333333", "cwd": project}
    _write(
        day / f"rollout-2026-11-22T12-00-00-{midturn['id']}.jsonl", planted._codex(midturn, ALL)[:3]
    )
    named = PATH_SAFE["github-pat-classic"]
    _write(
        day / f"rollout-2026-11-22T13-00-00-{named}.jsonl", planted._codex({"cwd": project}, ALL)
    )
    _write(
        home / ".codex" / "sessions" / "legacy" / "rollout-legacy-94444444.jsonl",
        [
            {"id": "94444444-4444-4444-9444-444444444444", "timestamp": "2026-11-22T10:00:00Z"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ALL}]},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": ALL}],
            },
        ],
    )
    planted._copilot_session(
        home / ".copilot", "95555555-5555-4555-a555-555555555555", project, "main", ALL
    )


# ---------------------------------------------------------------------------- the runs


def _invoke(out: list[tuple[str, bytes]], name: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    out.append((f"{name} stdout", result.stdout.encode()))
    out.append((f"{name} stderr", result.stderr.encode()))
    return result.exit_code, result.stdout


def _mcp(project: Path, before: bool) -> list[tuple[str, bytes]]:
    from skillopt_sleep.mcp import build_server

    calls: list[tuple[str, dict[str, Any]]] = (
        [("harvest", {"since": "3650d"}), ("mine", {}), ("status", {})]
        if before
        else [
            ("status", {}),
            ("proposals", {}),
            ("report", {"format": "md"}),
            ("report", {"format": "json"}),
        ]
    )
    found: list[tuple[str, bytes]] = []

    async def go() -> None:
        async with Client(build_server(default_project=project)) as client:
            for name, args in calls:
                reply = await client.call_tool(name, {"project": str(project), **args})
                assert not reply.is_error, (name, reply.content)
                body = [getattr(c, "text", str(c)) for c in reply.content]
                text = json.dumps([body, reply.structured_content], default=str)
                found.append((f"mcp {name} {args}", text.encode()))
            if not before:
                resource = await client.read_resource("skillopt-sleep://report/latest")
                found.append(("mcp resource report/latest", str(resource).encode()))

    anyio.run(go)
    return found


def _experiment(root: Path, mp: pytest.MonkeyPatch) -> list[tuple[str, bytes]]:
    """One short persona run with secrets added to every text its transcripts hold."""
    import experiments.personas.transcripts as transcripts
    from experiments.proof import ExperimentSpec, run
    from experiments.render import result_json, summary_lines

    counter = [0]
    kinds = sorted(k for k in PLANTED if k != "private-key")

    def spice(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: spice(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [spice(v, key) for v in value]
        if isinstance(value, str) and key in ("text", "content", "message", "output"):
            counter[0] += 1
            return f"{value} {PLANTED[kinds[counter[0] % len(kinds)]]}"
        return value

    original = transcripts._jsonl
    mp.setattr(transcripts, "_jsonl", lambda records: original([spice(r) for r in records]))
    keep = root / "experiment"
    spec = ExperimentSpec(nights=1, train_days=4, held_out_days=1, samples=1)
    result = run(spec, keep=keep)
    assert counter[0] > 20
    places = [
        ("experiment summary", "\n".join(summary_lines(result)).encode()),
        ("experiment json", json.dumps(result_json(result), default=str).encode()),
    ]
    return places + everything_under(keep / "state")


@pytest.fixture(scope="module")
def night(
    tmp_path_factory: pytest.TempPathFactory, _scheduler_guard: _guard.Guard
) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("secrets-night")
    world = make_world(root / "w")
    _spice_genuine(world.home)
    project = world.webapp
    state = root / "state"
    stand_ins = _guard.write_stubs(root / "scheduler", root / "scheduler" / "crontab.txt")
    places: list[tuple[str, bytes]] = []
    old_umask = os.umask(0o022)
    try:
        with pytest.MonkeyPatch.context() as mp:
            for name in list(os.environ):
                if name.startswith("SKILLOPT_SLEEP_") or name in (
                    "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "VSCODE_PORTABLE",
                ):  # fmt: skip
                    mp.delenv(name)
            env = {
                "HOME": str(world.home),
                "XDG_CONFIG_HOME": str(root / "xdg" / "config"),
                "XDG_STATE_HOME": str(root / "xdg" / "state"),
                "XDG_CACHE_HOME": str(root / "xdg" / "cache"),
                "XDG_DATA_HOME": str(root / "xdg" / "data"),
                "SKILLOPT_SLEEP_HOME": str(state),
                "SKILLOPT_SLEEP_CONFIG": str(root / "no-user-config.toml"),
                "SKILLOPT_SLEEP_NIGHT_SINCE": "3650d",
                "SKILLOPT_SLEEP_MINE_EMBEDDER": "minilm-numpy",  # its token cache is archived
                "SKILLOPT_SLEEP_BACKENDS_OPTIMIZER": "mock",
                "SKILLOPT_SLEEP_BACKENDS_TARGET": "mock",
                "PATH": f"{stand_ins}{os.pathsep}{os.environ.get('PATH', '')}",
            }
            for name, value in env.items():
                mp.setenv(name, value)
            mp.setattr(_scheduler_guard, "first", stand_ins)
            mp.setattr(planted, "SECRETS", SECRETS)
            mp.setattr(planted, "_escaped", _escape_secrets)
            _plant(world.home, str(project))
            p = ["-p", str(project)]
            code, mined = _invoke(
                places, "mine --json", "mine", *p, "--embedder", "tfidf", "--json"
            )
            assert code == 0
            places += _mcp(project, before=True)
            assert _invoke(places, "dry-run (text, as in night.log)", "dry-run", *p)[0] == 0
            code, ran = _invoke(places, "run --json", "run", *p, "--json")
            assert code == 0
            for name, args in (
                ("status", []),
                ("status --json", ["--json"]),
                ("proposals", []),
                ("proposals --json", ["--json"]),
            ):
                assert _invoke(places, name, name.split()[0], *p, *args)[0] == 0
            for fmt in ("md", "html", "json"):
                assert _invoke(places, f"report {fmt}", "report", *p, "--format", fmt)[0] == 0
            assert _invoke(places, "report --path", "report", *p, "--path")[0] == 0
            places += _mcp(project, before=False)
            assert _invoke(places, "adopt", "adopt", *p, "--json")[0] == 0
            for path in {c["path"] for c in json.loads(ran)["changes"]}:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write("a hand edit after the adopt\n")
            assert _invoke(places, "rollback", "rollback", *p)[0] == 6
            assert _invoke(places, "rollback --force", "rollback", *p, "--force", "--json")[0] == 0
            assert _invoke(places, "second night", "run", *p)[0] == 0
            places += everything_under(state) + everything_under(world.root / "dev")
            experiment = _experiment(root, mp)
            places += experiment
        yield {
            "places": places,
            "mined": json.loads(mined),
            "night": json.loads(ran),
            "state": state,
            "home": world.home,
            "experiment": experiment,
        }
    finally:
        os.umask(old_umask)


# ---------------------------------------------------------------------------- the tests


def test_the_night_really_ran_over_the_secrets(night: dict[str, Any]) -> None:
    raw = b"".join(p.read_bytes() for p in Path(night["home"]).rglob("*.jsonl"))
    for secret in SECRETS.values():
        assert secret.encode() in raw or _escaped(secret).encode() in raw
    report = night["night"]
    assert report["outcome"] == "staged" and report["proposal"]
    examples = " ".join(e for f in report["families"] for e in f["examples"])
    assert "[REDACTED:" in examples
    assert night["mined"]
    state = Path(night["state"])
    assert list(state.glob("projects/*/backups/*/*.at-rollback"))
    assert list(state.glob("projects/*/nights/*/target-00/steps/*/rollouts.json"))
    (archive,) = state.glob("projects/*/mine-archive.sqlite3")
    with contextlib.closing(sqlite3.connect(archive)) as db:
        assert db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] > 0  # the cache
    assert any(
        name.startswith("mcp mine") and b"REDACTED" in data for name, data in night["places"]
    )
    assert any(
        "staging" in name and name.endswith("report.html") for name, _ in night["experiment"]
    )


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_no_raw_secret_anywhere(night: dict[str, Any], kind: str) -> None:
    secret, escaped = SECRETS[kind].encode(), _escaped(SECRETS[kind]).encode()
    leaks = [where for where, data in night["places"] if secret in data or escaped in data]
    assert not leaks, f"{kind} leaked into {leaks}"


@pytest.mark.parametrize("kind", sorted(k for k, v in SECRETS.items() if len(v) >= 20))
def test_no_part_of_a_secret_anywhere(night: dict[str, Any], kind: str) -> None:
    windows = _windows(SECRETS[kind])
    leaks = [where for where, data in night["places"] if any(w in data for w in windows)]
    assert not leaks, f"part of {kind} leaked into {leaks}"


def test_the_state_is_private(night: dict[str, Any]) -> None:
    state = Path(night["state"])
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for path in state.rglob("*"):
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert not mode & 0o077, f"{path} is {oct(mode)}"
