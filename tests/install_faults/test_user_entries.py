"""A server the user registered themselves under our name is theirs: Copilot (CLI and VS Code)
leaves it alone like Codex does, and no uninstall leaves the user with less than they had."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes, install, uninstall
from skillopt_sleep.install.manifest import Entry, Manifest, sha256
from skillopt_sleep.install.specs import JsonKeySpec
from skillopt_sleep.mcp import SERVER_NAME

MINE = {"command": "mine", "args": []}


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _copilot_config(homes: Homes) -> Path:
    return homes.copilot / "mcp-config.json"


def _copilot_spec(homes: Homes, repo: Path | None = None) -> JsonKeySpec:
    from skillopt_sleep.install import copilot

    *_, spec = copilot.specs(homes, vscode_project=repo)
    assert isinstance(spec, JsonKeySpec)
    return spec


@pytest.mark.parametrize("where", ["cli", "vscode"])
def test_a_server_the_user_registered_is_left_alone_and_survives_uninstall(
    homes: Homes, tmp_path: Path, where: str
) -> None:
    repo = tmp_path / "repo"
    if where == "cli":
        path, top, extra = _copilot_config(homes), "mcpServers", ()
    else:
        path, top, extra = repo / ".vscode" / "mcp.json", "servers", ("--vscode", str(repo))
        path.parent.mkdir(parents=True)
    original = json.dumps({top: {SERVER_NAME: MINE}}).encode()
    path.write_bytes(original)
    installed = _run("install", "copilot", *extra)
    assert installed.exit_code == 0, installed.output
    assert f"{top}.{SERVER_NAME} is already defined there by you; left as it is" in (
        installed.output
    )
    assert path.read_bytes() == original
    assert not list(path.parent.glob("*backup*"))
    removed = _run("uninstall", "copilot")
    assert removed.exit_code == 0, removed.output
    assert path.read_bytes() == original


def test_a_server_the_user_registered_is_reported_by_a_dry_run_too(homes: Homes) -> None:
    _copilot_config(homes).write_text(json.dumps({"mcpServers": {SERVER_NAME: MINE}}))
    result = _run("install", "copilot", "--dry-run")
    assert result.exit_code == 0 and "already defined there by you" in result.output


def test_an_entry_we_wrote_is_still_updated_in_place(
    homes: Homes, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.install import copilot

    install(["copilot"], homes=homes)
    moved = {**copilot.cli_entry(), "command": "/moved/python"}
    monkeypatch.setattr(copilot, "cli_entry", lambda: moved)
    (action,) = [a for a in install(["copilot"], homes=homes) if a.path.endswith("-config.json")]
    assert action.verb == "update" and "backed up" not in action.detail
    assert json.loads(_copilot_config(homes).read_text())["mcpServers"][SERVER_NAME] == moved
    uninstall(["copilot"])
    assert not _copilot_config(homes).exists()  # we created it: nothing of the user's was there


def test_an_entry_of_ours_the_user_edited_is_put_back_on_uninstall(homes: Homes) -> None:
    _copilot_config(homes).write_text(json.dumps({"mcpServers": {"other": MINE}}))
    install(["copilot"], homes=homes)
    data = json.loads(_copilot_config(homes).read_text())
    edited = {**data["mcpServers"][SERVER_NAME], "env": {"TOKEN": "x"}}
    data["mcpServers"][SERVER_NAME] = edited
    _copilot_config(homes).write_text(json.dumps(data))
    (action,) = [a for a in install(["copilot"], homes=homes) if a.path.endswith("-config.json")]
    assert action.verb == "replace" and "backed up" in action.detail
    (undone,) = [a for a in uninstall(["copilot"]) if a.path.endswith("-config.json")]
    assert undone.verb == "restore"
    after = json.loads(_copilot_config(homes).read_text())
    assert after == {"mcpServers": {"other": MINE, SERVER_NAME: edited}}


def test_a_user_entry_an_older_install_replaced_is_put_back_on_uninstall(homes: Homes) -> None:
    """What an install before this fix left: the user's entry backed up, ours in its place."""
    spec = _copilot_spec(homes)
    config = _copilot_config(homes)
    backup = config.with_name(config.name + ".skillopt-sleep-backup")
    backup.write_text(json.dumps({"mcpServers": {SERVER_NAME: MINE}}))
    config.write_text(json.dumps({"mcpServers": {SERVER_NAME: spec.value}}))
    manifest = Manifest()
    manifest.put(
        Entry(
            "copilot",
            "json-key",
            str(config),
            sha256(json.dumps(spec.value, sort_keys=True)),
            key=f"mcpServers.{SERVER_NAME}",
            backup=str(backup),
        )
    )
    manifest.save()
    assert _run("uninstall", "copilot").exit_code == 0
    assert json.loads(config.read_text()) == {"mcpServers": {SERVER_NAME: MINE}}
