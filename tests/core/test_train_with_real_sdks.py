"""`skillopt train` end to end with the real OpenAI and Anthropic SDKs against a loopback fake."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from skillopt_core.cli import app
from skillopt_core.testing import FakeModelServer, Fault

GUIDANCE = "- Write numbers as digits (12, not twelve)."


def make_split(root: Path) -> Path:
    for split, count in (("train", 4), ("val", 3), ("test", 3)):
        items = [
            {
                "id": f"{split}-{n}",
                "question": f"How many bridges does Town{n} have?",
                "context": f"Town{n} has 12 bridges.",
                "answers": ["12"],
            }
            for n in range(count)
        ]
        (root / split).mkdir(parents=True)
        (root / split / "items.json").write_text(json.dumps(items))
    return root


def world(body: Mapping[str, Any]) -> str:
    """Optimizer prompts get one edit; the target answers right only once the skill has the rule."""
    text = json.dumps(body)
    if "You are the optimizer of a skill document" in text:
        return json.dumps(
            {
                "edits": [
                    {
                        "op": "add",
                        "anchor": "",
                        "content": GUIDANCE,
                        "rationale": "spelled-out numbers",
                    }
                ]
            }
        )
    if "long-term guidance block" in text or "private notebook" in text:
        return "- Keep answers numeric."
    return "12" if "numbers as digits" in text else "twelve"


def test_train_with_openai_target_and_anthropic_optimizer(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    split = make_split(tmp_path / "split")
    with FakeModelServer(world) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        out = tmp_path / "run"
        result = CliRunner().invoke(
            app,
            [
                "train",
                "--split-dir",
                str(split),
                "--out-root",
                str(out),
                "--optimizer",
                "anthropic:fake-model",
                "--target",
                "openai:fake-model",
                "--epochs",
                "1",
                "--batch-size",
                "4",
                "--json",
            ],
        )
        apis = {r.api for r in fake.generation_requests}
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["baseline"]["test"]["hard"] == 0.0
    assert summary["final"]["test"]["hard"] == 1.0
    assert GUIDANCE in (out / "best_skill.md").read_text()
    assert apis == {"chat", "messages"}
    ledger = json.loads((out / "ledger.json").read_text())
    assert set(ledger["by_role"]) == {"optimizer", "target"}
    assert ledger["totals"]["input_tokens"] > 0


def test_dead_backend_fails_loudly_before_any_work(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    split = make_split(tmp_path / "split")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["train", "--split-dir", str(split), "--out-root", str(out), "--backend", "openai:gpt-x"],
    )
    assert result.exit_code == 1
    assert "health check failed" in result.output
    assert not (out / "history.json").exists()


def test_a_server_that_always_fails_gets_no_more_requests_than_the_call_budget(
    tmp_path: Path,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    split = make_split(tmp_path / "split")
    with FakeModelServer(responder=lambda body: Fault.server_error(500)) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base_url)
        out = tmp_path / "run"
        result = CliRunner().invoke(
            app,
            [
                "train",
                "--split-dir",
                str(split),
                "--out-root",
                str(out),
                "--backend",
                "openai:fake-model",
                "--max-calls",
                "3",
                "--option",
                "retry_base_s=0",
                "--json",
            ],
        )
        sent = len(fake.generation_requests)
    assert sent == 3, result.output
    assert result.exit_code == 4, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_reason"].startswith("budget: ")
    assert "call budget of 3 reached" in summary["stopped_reason"]
    assert summary["usage"]["calls"] == 3 and summary["usage"]["failed_calls"] == 3
