"""Which provider a night calls (and bills, through whatever API key the user exports) is the
user's choice: an untrusted project config and an MCP tool argument may change the model within
the provider of each backend role, never the provider. A trusted project file may.

Failed before: a cloned repository's ``backends.target = "anthropic:claude-x"`` (or a model's
``backend`` argument to the MCP ``run`` tool) replaced the user's ``openai:gpt-5-mini`` or mock
backend, so the night called Anthropic with the user's ANTHROPIC_API_KEY.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.engine.config import ConfigError, load_config
from skillopt_sleep.mcp import build_server

TRUST = "skillopt-sleep config trust"


def _user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    path = tmp_path / "user.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(path))


def _project(tmp_path: Path, text: str) -> Path:
    project = tmp_path / "cloned"
    (project / ".skillopt-sleep").mkdir(parents=True)
    (project / ".skillopt-sleep" / "config.toml").write_text(text, encoding="utf-8")
    return project


def _invoke(*argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(argv))
    return result.exit_code, result.stdout, result.stderr


OPENAI_USER = '[backends]\noptimizer = "openai:gpt-5-mini"\ntarget = "openai:gpt-5-mini"\n'


def test_an_untrusted_project_cannot_switch_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(tmp_path, monkeypatch, OPENAI_USER)
    project = _project(tmp_path, '[backends]\ntarget = "anthropic:claude-x"\n[night]\nseed = 7\n')
    config = load_config(project, environ={})
    assert config.backends.target == "openai:gpt-5-mini"
    assert config.sources["backends.target"].endswith("user.toml")
    assert config.night.seed == 7  # the rest of the file still counts
    reason = config.refused["backends.target"].reason
    assert "'anthropic'" in reason and "'openai'" in reason and TRUST in reason
    assert config.refused["backends.target"].source.endswith("config.toml")


@pytest.mark.parametrize(
    ("key", "asked"),
    [
        ("target", "claude-cli"),  # a bare CLI backend name is a provider too
        ("optimizer", "anthropic:claude-x"),
        ("target", "openai"),
        ("judge", "anthropic:claude-x"),  # no judge configured: a judge is a new provider
    ],
)
def test_the_default_mock_backend_is_a_provider_a_project_cannot_leave(
    tmp_path: Path, key: str, asked: str
) -> None:
    project = _project(tmp_path, f'[backends]\n{key} = "{asked}"\n')
    config = load_config(project, environ={})
    assert getattr(config.backends, key) == ("" if key == "judge" else "mock")
    assert f"backends.{key}" in config.refused
    assert repr(asked.partition(":")[0]) in config.refused[f"backends.{key}"].reason


@pytest.mark.parametrize(
    ("user", "asked"),
    [
        ("openai:gpt-5-mini", "openai:gpt-5"),
        ("openai:gpt-5-mini", "openai"),  # the provider's default model
        ("claude-cli", "claude-cli:sonnet"),  # a bare name, then a model of it
        ("mock", "mock:other-model"),
        ("azure-openai:a", "azure-openai:b"),
    ],
)
def test_an_untrusted_project_may_change_the_model_within_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user: str, asked: str
) -> None:
    _user(tmp_path, monkeypatch, f'[backends]\noptimizer = "{user}"\ntarget = "{user}"\n')
    project = _project(tmp_path, f'[backends]\noptimizer = "{asked}"\ntarget = " {asked}"\n')
    config = load_config(project, environ={})
    assert config.refused == {}
    assert (config.backends.optimizer, config.backends.target) == (asked, f" {asked}")


def test_providers_are_compared_role_by_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(
        tmp_path,
        monkeypatch,
        '[backends]\noptimizer = "openai:gpt-5"\ntarget = "claude-cli"\njudge = "openai:gpt-5"\n',
    )
    project = _project(
        tmp_path,
        '[backends]\noptimizer = "openai:o3"\ntarget = "openai:gpt-5"\njudge = ""\n',
    )
    config = load_config(project, environ={})
    assert set(config.refused) == {"backends.target"}  # openai is the optimizer's, not its own
    assert config.backends.optimizer == "openai:o3"
    assert config.backends.target == "claude-cli"
    assert config.backends.judge == ""  # turning the judge off calls no provider


def test_openai_and_azure_openai_are_different_providers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(tmp_path, monkeypatch, OPENAI_USER)
    project = _project(tmp_path, '[backends]\noptimizer = "azure-openai:gpt-5-mini"\n')
    config = load_config(project, environ={})
    assert config.backends.optimizer == "openai:gpt-5-mini"
    assert "backends.optimizer" in config.refused


def test_the_provider_the_user_chose_in_the_environment_counts(tmp_path: Path) -> None:
    project = _project(tmp_path, '[backends]\ntarget = "openai:gpt-5"\n')
    env = {"SKILLOPT_SLEEP_BACKENDS_TARGET": "openai:gpt-5-mini"}
    config = load_config(project, environ=env)
    assert config.refused == {}  # same provider as the user's: nothing to report


def test_a_trusted_project_may_switch_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(tmp_path, monkeypatch, OPENAI_USER)
    project = _project(tmp_path, '[backends]\ntarget = "anthropic:claude-x"\n')
    code, _, err = _invoke("config", "trust", "-p", str(project))
    assert code == 0, err
    config = load_config(project, environ={})
    assert config.backends.target == "anthropic:claude-x" and config.refused == {}
    # and a model may then pick another model of that provider, not go back elsewhere
    chosen = load_config(project, environ={}, chosen_by_model={"backends.target": "anthropic:b"})
    assert chosen.backends.target == "anthropic:b"
    with pytest.raises(ConfigError, match=r"backends\.target"):
        load_config(project, environ={}, chosen_by_model={"backends.target": "mock"})


def test_config_show_names_the_key_the_provider_and_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(tmp_path, monkeypatch, OPENAI_USER)
    project = _project(tmp_path, '[backends]\ntarget = "anthropic:claude-x"\n')
    code, out, err = _invoke("config", "show", "-p", str(project), "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["settings"]["backends.target"]["value"] == "openai:gpt-5-mini"
    assert "'anthropic'" in shown["refused"]["backends.target"]["reason"]
    code, out, err = _invoke("config", "show", "-p", str(project))
    assert code == 0, err
    text = " ".join(out.split())  # the table may fold long lines
    assert "backends.target: it names the provider 'anthropic'" in text, out
    assert TRUST in text
    code, _, err = _invoke("dry-run", "-p", str(project), "--json")
    assert "backends.target" in err and "config trust" in err, err


def test_a_model_cannot_switch_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(tmp_path, monkeypatch, OPENAI_USER)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, environ={}, chosen_by_model={"backends.target": "anthropic:x"})
    text = str(caught.value)
    assert "backends.target" in text and "'anthropic'" in text and TRUST in text
    same = load_config(tmp_path, environ={}, chosen_by_model={"backends.target": "openai:o3"})
    assert same.backends.target == "openai:o3"


def _call(server: Any, name: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool(name, args)

    return anyio.run(go)


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def _recording_server() -> tuple[Any, list[Any], threading.Event]:
    seen: list[Any] = []
    called = threading.Event()

    def night(project: Path, config: Any, **_: Any) -> Any:
        seen.append(config)
        called.set()
        raise RuntimeError("stop here")

    return build_server(runner=night), seen, called


def test_the_mcp_backend_argument_cannot_switch_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(tmp_path, monkeypatch, OPENAI_USER)
    server, seen, _ = _recording_server()
    args = {"project": str(tmp_path), "backend": "anthropic:claude-x"}
    result = _call(server, "run", args)
    text = " ".join(_text(result).split())
    assert result.is_error, text
    assert "backends.optimizer" in text and "backends.target" in text
    assert "'anthropic'" in text and TRUST in text
    assert seen == []


def test_the_mcp_backend_argument_may_change_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(tmp_path, monkeypatch, OPENAI_USER)
    server, seen, called = _recording_server()
    result = _call(server, "dry_run", {"project": str(tmp_path), "backend": "openai:gpt-5"})
    assert not result.is_error, _text(result)
    assert called.wait(30)  # a hang guard, not a timing assertion
    assert (seen[0].backends.optimizer, seen[0].backends.target) == ("openai:gpt-5",) * 2


def test_an_mcp_night_names_the_project_config_keys_it_leaves_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI warns on stderr; an MCP client saw nothing of the untrusted file's dropped keys."""
    _user(tmp_path, monkeypatch, OPENAI_USER)
    project = _project(tmp_path, "[night]\nauto_adopt = true\n[budget]\nmax_calls = 0\n")
    server, _, called = _recording_server()
    result = _call(server, "dry_run", {"project": str(project)})
    assert not result.is_error, _text(result)
    assert called.wait(30)  # a hang guard, not a timing assertion
    dropped = result.structured_content["not_used_from_project"]
    assert dropped == ["budget.max_calls", "night.auto_adopt"]
