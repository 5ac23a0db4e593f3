"""What a new user following the README met: `install --no-mcp` still registering the MCP server,
a refused Codex config whose fix pointed at a dry run that did not show the entry, `doctor -p`
counting every project's transcripts, `schedule` without `--dry-run`, "would unchanged", a
`skillopt --help` listing an exit code it never returns, and benchmarks whose `--help` failed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.install.codex import mcp_block
from skillopt_sleep.install.manifest import install_dir
from tests._isolation import isolate_home
from tests.schedule.conftest import FakeOS, host

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp HOME with the harness homes under it, and a fake `claude` first on PATH."""
    home = isolate_home(tmp_path, monkeypatch)
    (home / ".codex").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return home


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _help_of(command: str, param: str) -> str:
    click_app = typer.main.get_command(app)
    assert isinstance(click_app, typer.core.TyperGroup)
    (found,) = [p for p in click_app.commands[command].params if p.name == param]
    return str(getattr(found, "help", ""))


# --- 1. --no-mcp -------------------------------------------------------------------------------


def test_no_mcp_registers_no_mcp_server_not_even_with_vscode(home: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    code, out, err = _invoke(
        "install", "copilot", "codex", "--no-mcp", "--vscode", str(repo), "--dry-run", "--json"
    )
    assert code == 0, err
    planned = {a["path"]: a for a in json.loads(out)}
    vscode = str(repo / ".vscode" / "mcp.json")
    assert planned[vscode]["verb"] == "skip" and "--no-mcp" in planned[vscode]["detail"]
    written = [a for a in planned.values() if a["verb"] in ("create", "update", "replace")]
    harness_files = [a for a in written if not Path(a["path"]).is_relative_to(install_dir())]
    assert harness_files and all(a["path"].endswith("SKILL.md") for a in harness_files)
    # the real run too: no MCP entry anywhere
    code, _, err = _invoke("install", "copilot", "codex", "--no-mcp", "--vscode", str(repo))
    assert code == 0, err
    assert not (repo / ".vscode").exists() and not (home / ".copilot" / "mcp-config.json").exists()
    assert not (home / ".codex" / "config.toml").exists()


def test_no_mcp_says_the_claude_plugin_carries_its_own_server() -> None:
    text = _help_of("install", "mcp")
    assert "Claude Code plugin always carries its MCP server" in text and "--no-plugin" in text


# --- 2. the entry a refused Codex config needs, shown by the dry run -----------------------------


def test_a_refused_inline_table_gets_its_entry_from_the_dry_run(home: Path) -> None:
    config = home / ".codex" / "config.toml"
    original = 'model = "o3"\nmcp_servers = { foo = { command = "x" } }\n'
    config.write_text(original)
    code, _, err = _invoke("install", "codex")
    assert code == 1 and "skillopt-sleep install codex --dry-run" in err
    code, out, _ = _invoke("install", "codex", "--dry-run")
    (entry,) = [line.strip() for line in out.splitlines() if "skillopt_sleep = {" in line]
    code, out_json, _ = _invoke("install", "codex", "--dry-run", "--json")
    (refused,) = [a for a in json.loads(out_json) if a["path"] == str(config)]
    assert refused["verb"] == "skip" and refused["preview"] == entry
    # the entry, added by hand inside the user's inline table, is exactly our server
    by_hand = original.replace('"x" } }', f'"x" }}, {entry} }}')
    ours = tomllib.loads(mcp_block())["mcp_servers"]["skillopt_sleep"]
    assert tomllib.loads(by_hand)["mcp_servers"]["skillopt_sleep"] == ours
    assert config.read_text() == original


def test_a_dry_run_shows_the_block_and_the_json_key_it_would_write(home: Path) -> None:
    code, out, err = _invoke("install", "codex", "copilot", "--dry-run")
    assert code == 0, err
    indented = "\n".join(line[4:] for line in out.splitlines() if line.startswith("    "))
    assert mcp_block() in indented and "# >>> skillopt-sleep" in indented
    assert '"mcpServers": {' in indented and '"skillopt_sleep": {' in indented


# --- 3. doctor -p counts that project's transcripts --------------------------------------------


def _claude_session(home: Path, project: Path, name: str) -> None:
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jsonl").write_text('{"type":"user"}\n')


def test_doctor_counts_the_transcripts_of_the_project_it_is_given(
    home: Path, tmp_path: Path
) -> None:
    one, other = tmp_path / "one", tmp_path / "other"
    one.mkdir()
    other.mkdir()
    _claude_session(home, one, "a")
    _claude_session(home, other, "b")
    _claude_session(home, other, "c")

    def claude_count(project: Path) -> str:
        _, out, _ = _invoke("doctor", "-p", str(project), "--json")
        (check,) = [c for c in json.loads(out) if c["name"] == "claude-code transcripts"]
        return str(check["detail"])

    assert claude_count(one).startswith(f"1 file for {one.resolve()}")
    assert claude_count(other).startswith(f"2 files for {other.resolve()}")


# --- 4. schedule --dry-run ---------------------------------------------------------------------


def test_schedule_dry_run_is_print(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    fake_os = FakeOS(crontab="0 0 * * * other\n")
    monkeypatch.setattr(
        "skillopt_sleep.cli.schedule._host", lambda: host("linux", fake_os, tmp_path / "h")
    )
    args = ("schedule", "-p", str(project), "--at", "03:17")
    code, printed, err = _invoke(*args, "--print")
    assert code == 0, err
    code, dry, err = _invoke(*args, "--dry-run")
    assert code == 0, err
    assert dry == printed and "17 3 * * * " in dry
    assert fake_os.calls == [] and fake_os.crontab == "0 0 * * * other\n"


# --- 5. dry-run wording ------------------------------------------------------------------------


def test_dry_run_lines_read_as_english(home: Path) -> None:
    code, _, err = _invoke("install", "all")
    assert code == 0, err
    code, out, _ = _invoke("install", "all", "--dry-run")
    assert code == 0 and "would unchanged" not in out
    assert all(line.startswith("unchanged ") for line in out.splitlines()), out
    code, out, _ = _invoke("uninstall", "claude-code", "--dry-run")
    assert code == 0
    (undo,) = [line for line in out.splitlines() if "plugin uninstall" in line]
    assert undo.startswith("would run ") and "(undo: install the skillopt-sleep plugin)" in undo
    assert any(line.startswith("would remove ") for line in out.splitlines()), out


# --- 6c. skillopt lists only the exit codes it can return --------------------------------------


def test_skillopt_help_does_not_list_exit_6_which_only_adopt_returns() -> None:
    from skillopt_core.cli import app as core_app

    core = typer.main.get_command(core_app)
    sleep = typer.main.get_command(app)
    assert "Exit codes" in str(core.help) and not re.search(r"\b6\b", str(core.help))
    assert "6 live file changed since staging" in str(sleep.help)


# --- 7. benchmarks' --help ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "says"),
    [
        ("bench_minilm_onnx.py", "Needs ``onnx`` and ``onnxruntime``"),
        ("bench_night.py", "per stage, the\nlongest stretch without a progress tick"),
        ("bench_mine.py", "Miner quality and speed"),
    ],
)
def test_benchmark_help_works_and_shows_the_whole_description(script: str, says: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert says in done.stdout
