"""The hand-off backend: prompts out to files, HandoffPending, answers back on the next run."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.backends import (
    BackendUnavailable,
    CompletionRequest,
    HandoffPending,
    create_backend,
)
from skillopt_core.backends import handoff as handoff_module
from skillopt_core.backends.handoff import (
    ENV_DIR,
    HANDOFF_EXIT_CODE,
    read_pending,
    request_id,
)
from skillopt_core.cli import app as skillopt_app
from skillopt_core.errors import EXIT_USAGE, exit_code_for

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"

REFLECT = CompletionRequest.of("Which edit would fix these failures?", purpose="reflect")
JUDGE = CompletionRequest.of(
    "Grade this reply.",
    system="You are a strict grader.",
    json_schema={"type": "object", "properties": {"score": {"type": "number"}}},
    purpose="judge",
)


def ask(directory: Path, request: CompletionRequest) -> HandoffPending:
    """A fresh backend (as a new process would build) asked once; returns the pending error."""
    backend = create_backend("handoff", {"dir": str(directory)})
    with pytest.raises(HandoffPending) as err:
        backend.complete(request)
    return err.value


def test_exit_code_is_documented_as_3() -> None:
    assert HANDOFF_EXIT_CODE == 3


def test_unanswered_prompt_is_written_and_raises_pending(tmp_path: Path) -> None:
    err = ask(tmp_path, REFLECT)
    assert "PROMPTS.md" in err.hint

    [entry] = read_pending(tmp_path)
    assert entry.id == request_id(REFLECT)
    assert entry.purpose == "reflect"
    assert Path(entry.prompt_file).read_text(encoding="utf-8") == REFLECT.messages[0].content
    assert entry.answer_file == str(tmp_path / "answers" / f"{entry.id}.md")
    assert not entry.wants_json

    document = json.loads((tmp_path / "pending.json").read_text(encoding="utf-8"))
    assert document["exit_code"] == 3
    index = (tmp_path / "PROMPTS.md").read_text(encoding="utf-8")
    assert entry.prompt_file in index and entry.answer_file in index
    assert "exit code 3" in index


def test_answer_is_returned_on_the_next_run_and_leaves_pending(tmp_path: Path) -> None:
    ask(tmp_path, REFLECT)
    ask(tmp_path, JUDGE)
    reflect_entry = next(e for e in read_pending(tmp_path) if e.purpose == "reflect")
    Path(reflect_entry.answer_file).write_text("Add a None check.\n", encoding="utf-8")

    resumed = create_backend("handoff:claude-session", {"dir": str(tmp_path)})
    completion = resumed.complete(REFLECT)
    assert completion.text == "Add a None check."
    assert completion.model == "claude-session"
    assert [e.purpose for e in read_pending(tmp_path)] == ["judge"]
    assert str(reflect_entry.answer_file) not in (tmp_path / "PROMPTS.md").read_text(
        encoding="utf-8"
    )


def test_same_question_twice_is_listed_once(tmp_path: Path) -> None:
    ask(tmp_path, REFLECT)
    ask(tmp_path, REFLECT)
    assert len(read_pending(tmp_path)) == 1


def test_empty_answer_file_still_counts_as_pending(tmp_path: Path) -> None:
    ask(tmp_path, REFLECT)
    [entry] = read_pending(tmp_path)
    Path(entry.answer_file).write_text("  \n", encoding="utf-8")
    ask(tmp_path, REFLECT)
    assert len(read_pending(tmp_path)) == 1


def test_request_id_is_stable_and_content_addressed() -> None:
    same = CompletionRequest.of(
        "Which edit would fix these failures?", purpose="reflect", metadata={"night": 4}
    )
    assert request_id(same) == request_id(REFLECT)
    assert request_id(CompletionRequest.of("Other", purpose="reflect")) != request_id(REFLECT)
    assert request_id(
        CompletionRequest.of("Which edit would fix these failures?", purpose="judge")
    ) != request_id(REFLECT)


def test_json_schema_request_says_so(tmp_path: Path) -> None:
    ask(tmp_path, JUDGE)
    [entry] = read_pending(tmp_path)
    assert entry.wants_json
    prompt = Path(entry.prompt_file).read_text(encoding="utf-8")
    assert prompt.startswith("You are a strict grader.")
    assert '"score"' in prompt
    assert "JSON value only" in (tmp_path / "PROMPTS.md").read_text(encoding="utf-8")


def test_prompts_are_redacted_before_they_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handoff_module, "redact", lambda text: text.replace("hunter2", "[X]"))
    ask(tmp_path, CompletionRequest.of("password hunter2"))
    [entry] = read_pending(tmp_path)
    assert Path(entry.prompt_file).read_text(encoding="utf-8") == "password [X]"


def test_directory_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_DIR, str(tmp_path / "from-env"))
    backend = create_backend("handoff")
    backend.health_check()
    with pytest.raises(HandoffPending):
        backend.complete(REFLECT)
    assert (tmp_path / "from-env" / "pending.json").is_file()


def test_no_directory_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_DIR, raising=False)
    backend = create_backend("handoff")
    with pytest.raises(BackendUnavailable) as err:
        backend.health_check()
    assert ENV_DIR in err.value.hint
    with pytest.raises(BackendUnavailable):
        backend.complete(REFLECT)


def test_no_directory_is_a_configuration_error_naming_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing setting is the documented usage/config exit (2), not a runtime failure (1),
    and the message names the variable and the option to set."""
    monkeypatch.delenv(ENV_DIR, raising=False)
    with pytest.raises(BackendUnavailable) as err:
        create_backend("handoff").health_check()
    assert exit_code_for(err.value) == EXIT_USAGE
    assert ENV_DIR in err.value.message and "dir" in err.value.message
    assert f"{ENV_DIR}=" in err.value.hint and "--option dir=PATH" in err.value.hint
    ran = CliRunner().invoke(
        skillopt_app,
        [
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(tmp_path / "runs"),
            "--backend",
            "handoff",
        ],
    )
    assert ran.exit_code == EXIT_USAGE, ran.output
    assert ENV_DIR in ran.stderr and "fix:" in ran.stderr


def test_unwritable_directory_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(BackendUnavailable, match="cannot write"):
        create_backend("handoff", {"dir": str(blocker)}).health_check()


def test_concurrent_calls_lose_no_pending_prompt(tmp_path: Path) -> None:
    backend = create_backend("handoff", {"dir": str(tmp_path)})
    requests = [CompletionRequest.of(f"question {i}", purpose="rollout") for i in range(16)]

    def call(request: CompletionRequest) -> None:
        with pytest.raises(HandoffPending):
            backend.complete(request)

    threads = [threading.Thread(target=call, args=(r,)) for r in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {e.id for e in read_pending(tmp_path)} == {request_id(r) for r in requests}


def test_a_damaged_pending_index_is_read_around(tmp_path: Path) -> None:
    from skillopt_core.backends.handoff import read_pending

    (tmp_path / "pending.json").write_text(
        json.dumps({"pending": [{"id": "x"}, 3, {"id": "y", "purpose": "p"}]})
    )
    assert read_pending(tmp_path) == []
    (tmp_path / "pending.json").write_text(json.dumps({"pending": "not a list"}))
    assert read_pending(tmp_path) == []
