"""A JSON config saved with a UTF-8 byte order mark (Windows editors do): Copilot CLI and VS Code
read past it, so install must too (it refused the file as "not valid JSON"), and keep it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from skillopt_core.testing.harness import find_cli
from skillopt_sleep.install import Homes, install, uninstall

BOM = b"\xef\xbb\xbf"
THEIRS = {"x": {"type": "local", "command": "echo", "args": [], "tools": ["*"]}}


def _with_bom(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(BOM + json.dumps(data).encode())


def _read(path: Path) -> object:
    return json.loads(path.read_bytes().removeprefix(BOM))


def test_copilot_config_with_a_bom_is_installed_kept_and_restored(homes: Homes) -> None:
    config = homes.copilot / "mcp-config.json"
    _with_bom(config, {"mcpServers": THEIRS})
    actions = install(["copilot"], homes=homes)
    assert not [a for a in actions if a.fix], actions
    assert config.read_bytes().startswith(BOM) and not config.read_bytes()[3:].startswith(BOM)
    assert set(_read(config)["mcpServers"]) == {"x", "skillopt_sleep"}  # type: ignore[index]
    uninstall(["copilot"])
    assert config.read_bytes().startswith(BOM)
    assert _read(config) == {"mcpServers": THEIRS}


def test_vscode_mcp_json_with_a_bom_is_installed(homes: Homes, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    config = project / ".vscode" / "mcp.json"
    _with_bom(config, {"servers": {}})
    actions = install(["copilot"], homes=homes, vscode_project=project)
    assert not [a for a in actions if a.fix], actions
    assert "skillopt_sleep" in _read(config)["servers"]  # type: ignore[index]


@pytest.mark.integration
@pytest.mark.skipif(find_cli("copilot") is None, reason="the copilot CLI is not installed")
def test_the_real_copilot_lists_both_servers_from_a_bom_config(
    homes: Homes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(homes.copilot))
    config = homes.copilot / "mcp-config.json"
    _with_bom(config, {"mcpServers": THEIRS})
    install(["copilot"], homes=homes)
    listed = subprocess.run(
        [str(find_cli("copilot")), "mcp", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "skillopt_sleep" in listed and "x (local)" in listed
