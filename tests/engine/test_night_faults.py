"""A night under faults: a target that says nothing, an optimizer that never answers usably, a full
disk, an unusable state directory. Each is a clear error with its exit code; live files intact."""

from __future__ import annotations

import errno
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.errors import EXIT_NO_EVIDENCE, NoEvidenceError, StorageError, UsageError
from skillopt_core.testing import FakeModelServer
from skillopt_sleep.engine import list_proposals, load_config, run_night
from tests.engine._world import World

USER_SKILL = b"---\nname: login-tests\ndescription: Fix failing login tests\n---\nmine\n"


def _openai_night(world: World, responder: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    with FakeModelServer(responder) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base_url)
        overrides = {"backends.optimizer": "openai:m", "backends.target": "openai:m"}
        config = load_config(world.webapp, world.overrides(**overrides))
        return run_night(world.webapp, config, home=world.home)


def test_a_target_that_answers_nothing_stops_the_night(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def responder(body: Mapping[str, Any]) -> str:
        return "pong" if "ping" in json.dumps(body).lower() else ""

    with pytest.raises(NoEvidenceError) as caught:
        _openai_night(world, responder, monkeypatch)
    assert caught.value.exit_code == EXIT_NO_EVIDENCE and "empty reply" in str(caught.value)
    assert list_proposals(world.webapp) == []


def test_an_optimizer_without_usable_edits_stops_the_night(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def responder(body: Mapping[str, Any]) -> str:
        text = json.dumps(body)
        if "You are the optimizer of a skill document" in text:
            return "I would rather not say."
        return "Fixed the test."

    with pytest.raises(NoEvidenceError, match="never returned usable edits"):
        _openai_night(world, responder, monkeypatch)


def test_an_optimizer_that_asks_for_no_change_is_reported_as_such(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Valid replies with no edit are an answer (nothing to change), not a failure: the night
    ends without a proposal, and says why instead of "no edit improved the validation score"."""

    def responder(body: Mapping[str, Any]) -> str:
        text = json.dumps(body)
        if "You are the optimizer of a skill document" in text:
            return json.dumps({"edits": []})
        return "Fixed the test."

    report = _openai_night(world, responder, monkeypatch)
    assert report.outcome == "no change"
    assert report.message == "the optimizer proposed no edit (it asked for no change)"
    assert list_proposals(world.webapp) == []


def test_a_full_disk_while_staging_loses_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(USER_SKILL)
    config = load_config(world.webapp, world.overrides())
    import skillopt_sleep.engine.state as state_module

    real = state_module.atomic_write_bytes

    def full(path: Path, data: bytes, mode: int | None = None, **options: bool) -> None:
        if "staging" in str(path):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, mode, **options)

    monkeypatch.setattr(state_module, "atomic_write_bytes", full)
    with pytest.raises(StorageError) as caught:
        run_night(world.webapp, config, home=world.home)
    assert "No space left" in str(caught.value) and "live files" in str(caught.value)
    assert skill.read_bytes() == USER_SKILL
    monkeypatch.setattr(state_module, "atomic_write_bytes", real)
    again = run_night(world.webapp, config, home=world.home)  # nothing was consumed
    assert again.outcome == "staged"


def test_an_unusable_state_directory_is_a_clear_error(
    world: World, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(blocker / "state"))
    with pytest.raises(StorageError) as caught:
        run_night(world.webapp, load_config(world.webapp, world.overrides()), home=world.home)
    assert "SKILLOPT_SLEEP_HOME" in str(caught.value)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"backends.target": "bogus"}, "unknown backend 'bogus'"),
        ({"backends.optimizer": "opneai:m"}, "unknown backend 'opneai'"),
        ({"mine.embedder": "minlm"}, "unknown embedder 'minlm'"),
    ],
)
def test_a_misspelt_backend_or_embedder_fails_even_a_quiet_night(
    world: World, override: dict[str, str], message: str
) -> None:
    """A scheduled night with a typo must not look fine until the first night with work."""
    config = load_config(world.webapp, world.overrides())
    run_night(world.webapp, config, home=world.home)
    assert run_night(world.webapp, config, home=world.home).outcome == "nothing new"
    with pytest.raises(UsageError) as caught:
        run_night(
            world.webapp, load_config(world.webapp, world.overrides(**override)), home=world.home
        )
    assert message in str(caught.value)


def test_a_failed_state_write_says_so_once_with_the_engines_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillopt_core.rundir as rundir
    from skillopt_sleep.engine.state import write_private

    def full(path: Path, data: bytes, mode: int | None) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(rundir, "_atomic_write", full)
    with pytest.raises(StorageError) as caught:
        write_private(tmp_path / "history.json", "{}")
    assert str(caught.value).count("cannot write") == 1 and "Read-only file system" in str(
        caught.value
    )
    assert "--out-root" not in (caught.value.hint or "")
