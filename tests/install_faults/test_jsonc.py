"""VS Code's ``mcp.json`` is JSONC: read with comments and trailing commas, the user's comments
never dropped (install refuses with the entry to add by hand), trailing commas alone normalised;
Copilot CLI's ``mcp-config.json`` stays strict JSON, as Copilot reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes, jsonc
from skillopt_sleep.install.doctor import shim_checks
from skillopt_sleep.install.manifest import Manifest
from skillopt_sleep.mcp import SERVER_NAME

COMMENTED = '{\n // mine\n "servers": {"m": {"type": "stdio", "command": "x",},},\n}\n'
TRAILING = '{\n "servers": {"m": {"type": "stdio", "command": "x",},},\n}\n'


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"url": "https://example.com/mcp"}', {"url": "https://example.com/mcp"}),
        ('{"a": "x /* not a comment */ y"}', {"a": "x /* not a comment */ y"}),
        ('{"q": "say \\"// hi\\"", "b": "\\\\"} // end', {"q": 'say "// hi"', "b": "\\"}),
        ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
        ('{"a": 1, // one\r\n "b": 2 /* two */,\n}', {"a": 1, "b": 2}),
        ('/* head */ [ "x" , /* tail */ ]', ["x"]),
        ('{"a": "]", "b": ","}', {"a": "]", "b": ","}),
        ('{"a": 1} // no newline at the end', {"a": 1}),
    ],
)
def test_jsonc_reads_comments_and_trailing_commas_outside_strings(text: str, value: object) -> None:
    assert jsonc.loads(text)[0] == value


def test_jsonc_says_whether_there_were_comments_and_keeps_positions() -> None:
    assert jsonc.loads('{"a": "//x", "b": "/*y*/",}') == ({"a": "//x", "b": "/*y*/"}, False)
    assert jsonc.loads('{"a": 1 /* c */}')[1] is True
    stripped = jsonc.strip_jsonc('{\n  // c\n  "a": 1,\n}')
    assert len(stripped.text) == len('{\n  // c\n  "a": 1,\n}')
    assert stripped.text.count("\n") == 3
    with pytest.raises(json.JSONDecodeError) as error:
        jsonc.loads('{\n // c\n "a": oops\n}')
    assert error.value.lineno == 3  # still the user's line


@pytest.mark.parametrize("text", ["[,]", "{,}", '{"a": 1,,}', '{"a": 1 /* open', '{"a": "x'])
def test_jsonc_still_refuses_what_is_not_jsonc(text: str) -> None:
    with pytest.raises(ValueError):
        jsonc.loads(text)


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _vscode(tmp_path: Path, text: str) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    (repo / ".vscode").mkdir(parents=True)
    path = repo / ".vscode" / "mcp.json"
    path.write_text(text)
    return repo, path


def test_trailing_commas_alone_are_read_and_normalised(homes: Homes, tmp_path: Path) -> None:
    repo, path = _vscode(tmp_path, TRAILING)
    result = _run("install", "copilot", "--vscode", str(repo))
    assert result.exit_code == 0, result.output
    servers = json.loads(path.read_text())["servers"]  # strict JSON now
    assert servers["m"] == {"type": "stdio", "command": "x"} and SERVER_NAME in servers
    assert _run("uninstall", "copilot").exit_code == 0
    assert json.loads(path.read_text()) == {"servers": {"m": {"type": "stdio", "command": "x"}}}


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_file_with_comments_is_refused_with_the_entry_to_add_by_hand(
    homes: Homes, tmp_path: Path, dry_run: bool
) -> None:
    repo, path = _vscode(tmp_path, COMMENTED)
    result = _run("install", "copilot", "--vscode", str(repo), *(["--dry-run"] if dry_run else []))
    assert result.exit_code == 1, result.output
    assert "has comments" in result.stderr and "we keep your comments" in result.stderr
    assert "by hand" in result.stderr and "not valid JSON" not in result.stderr
    shown = json.loads(
        "\n".join(line[4:] for line in result.stdout.splitlines() if line[:4] == "    ")
    )
    assert shown["servers"][SERVER_NAME]["type"] == "stdio"
    assert path.read_text() == COMMENTED
    assert not list(homes.home.rglob("SKILL.md"))  # the harness is skipped whole


def test_a_comment_added_after_install_keeps_our_entry_until_removed_by_hand(
    homes: Homes, tmp_path: Path
) -> None:
    repo, path = _vscode(tmp_path, '{"servers": {}}')
    assert _run("install", "copilot", "--vscode", str(repo)).exit_code == 0
    commented = "// my servers\n" + path.read_text()
    path.write_text(commented)
    checks = [c for c in shim_checks(homes, Manifest()) if str(path) in c.detail]
    assert [c.level for c in checks] == ["ok"]  # doctor reads JSONC too
    result = _run("uninstall", "copilot")
    assert result.exit_code == 1 and "has comments" in result.stderr
    assert f"remove servers.{SERVER_NAME} from {path}" in result.stderr
    assert path.read_text() == commented
    data = json.loads(jsonc.strip_jsonc(commented).text)
    del data["servers"][SERVER_NAME]
    path.write_text("// my servers\n" + json.dumps(data))
    assert _run("uninstall", "copilot").exit_code == 0
    assert path.read_text() == "// my servers\n" + json.dumps(data)


def test_copilot_cli_config_stays_strict_json(homes: Homes) -> None:
    config = homes.copilot / "mcp-config.json"
    config.write_text('{"mcpServers": {},}')
    result = _run("install", "copilot")
    assert result.exit_code == 1 and "not valid JSON" in result.stderr
    assert config.read_text() == '{"mcpServers": {},}'
