"""The README read as a promise, checked against the code a new user runs: every command line it
shows names flags its command has, each exit-code list matches what the CLI can return and its
``--help`` says, the TOML examples load with the values they show, and every ``<state>/...`` path
names a folder the engine really uses (staging and the night log live in a project's folder, not
at the top of the state dir, as the README once said)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from skillopt_core.cli import app as core_app
from skillopt_core.errors import (
    EXIT_BUDGET,
    EXIT_BUSY,
    EXIT_DRIFT,
    EXIT_ERROR,
    EXIT_HANDOFF,
    EXIT_NO_EVIDENCE,
    EXIT_OK,
    EXIT_USAGE,
)
from skillopt_core.interrupts import EXIT_SIGTERM
from skillopt_sleep.cli import app as sleep_app
from tests._isolation import isolate_sleep_state

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
EVERY_EXIT = {
    EXIT_OK,
    EXIT_ERROR,
    EXIT_USAGE,
    EXIT_HANDOFF,
    EXIT_BUDGET,
    EXIT_BUSY,
    EXIT_DRIFT,
    EXIT_NO_EVIDENCE,
    130,
    EXIT_SIGTERM,
}
CLIS = {"skillopt": core_app, "skillopt-sleep": sleep_app}


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def _command_lines() -> list[str]:
    """Every `skillopt ...` / `skillopt-sleep ...` line of the README's shell blocks (continuations
    joined, comments dropped) and every inline code span that is such a command."""
    lines = []
    for block in _blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            lines.append(line.split(" #", 1)[0].strip())
    spans = re.findall(r"`([^`\n]+)`", README)
    sleep_commands = set(getattr(typer.main.get_command(sleep_app), "commands", {}))
    lines += [f"skillopt-sleep {s}" for s in spans if s.split()[0] in sleep_commands and " -" in s]
    found = []
    for line in lines + spans:
        words = line.split()
        if len(words) > 1 and words[0].removeprefix(".venv/bin/") in CLIS:
            found.append(" ".join([words[0].removeprefix(".venv/bin/"), *words[1:]]))
    return found


def _command(line: str) -> Any:
    """The click command a README line runs (``skillopt-sleep config show`` -> ``show``; typer
    may bundle its own click, so groups are told by their ``commands``)."""
    words = line.split()
    command: Any = typer.main.get_command(CLIS[words[0]])
    for word in words[1:]:
        if word not in getattr(command, "commands", {}):
            break
        command = command.commands[word]
    return command


def _flags(command: Any) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


COMMAND_LINES = _command_lines()


def test_the_readme_shows_commands_of_both_clis() -> None:
    shown = {" ".join(line.split()[:2]) for line in COMMAND_LINES}
    assert {"skillopt train", "skillopt eval", "skillopt-sleep run", "skillopt-sleep mine"} <= shown


@pytest.mark.parametrize("line", COMMAND_LINES)
def test_every_flag_a_readme_command_shows_exists(line: str) -> None:
    command = _command(line)
    runs_alone = getattr(command, "invoke_without_command", False)  # `refused` lists, `forget`
    assert runs_alone or not hasattr(command, "commands"), f"{line!r} names no command"
    shown = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", line))
    missing = shown - _flags(command)
    assert not missing, f"README: `{line}` shows {sorted(missing)}, not options of that command"


def test_the_embedders_the_readme_lists_are_those_mine_offers() -> None:
    (listed,) = re.findall(r"mine +\[--project P\] \[--embedder ([\w|-]+)\]", README)
    mine = _command("skillopt-sleep mine")
    (embedder,) = [p for p in mine.params if p.name == "embedder"]
    offered = str(embedder.help).split(" (")[0].split(" | ")
    assert listed.split("|") == offered


def _readme_exit_codes(section: str) -> set[int]:
    body = README.split(section, 1)[1]
    paragraph = body[body.index("Exit codes:") :].split("\n\n", 1)[0]
    return {int(code) for code in re.findall(r"`(\d+)`", paragraph)}


def _help_exit_codes(text: str) -> set[int]:
    listed = text[text.index("Exit codes:") :].split("\n\n", 1)[0]
    return {int(code) for code in re.findall(r"(?<![\w-])(\d+) [a-z]", listed)}


@pytest.mark.parametrize(
    ("cli", "section", "returns"),
    [
        ("skillopt", "## The optimizer: `skillopt`", EVERY_EXIT - {EXIT_DRIFT}),
        ("skillopt-sleep", "## The nightly engine: `skillopt-sleep`", EVERY_EXIT),
    ],
)
def test_exit_codes_in_readme_and_help_are_every_code_the_cli_returns(
    cli: str, section: str, returns: set[int]
) -> None:
    assert _readme_exit_codes(section) == returns
    help_text = str(typer.main.get_command(CLIS[cli]).help)
    assert _help_exit_codes(help_text) == returns


def test_skillopt_train_interrupted_exits_130_as_documented(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("skillopt_core.cli._run_training", interrupted)
    toy = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"
    args = ["train", "--split-dir", str(toy), "--out-root", str(tmp_path / "run")]
    result = CliRunner().invoke(core_app, [*args, "--backend", "mock"])
    assert result.exit_code == 130, result.output


def test_the_nightly_config_example_loads_with_the_defaults_it_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.engine.config import load_config

    isolate_sleep_state(tmp_path, monkeypatch)
    (example,) = [b for b in _blocks("toml") if "[night]" in b]
    user = tmp_path / "user.toml"
    user.write_text(example)
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(user))
    shown = load_config(tmp_path).flat()
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(tmp_path / "none.toml"))
    defaults = load_config(tmp_path).flat()
    assert shown == defaults
    written = {f"{s}.{k}" for s, table in tomllib.loads(example).items() for k in table}
    assert {"homes.claude", "schedule.at", "night.since"} <= written


def test_the_optimizer_config_example_is_a_valid_config() -> None:
    from skillopt_core.config import backend_choice_from_mapping, config_from_mapping

    (example,) = [b for b in _blocks("toml") if "[slow_update]" in b]
    data = tomllib.loads(example)
    assert config_from_mapping(data).epochs == 4
    assert backend_choice_from_mapping(data).optimizer == "openai:gpt-5.5"


def test_every_state_path_names_a_folder_the_engine_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.install.manifest import install_dir
    from skillopt_sleep.paths import project_state_dir, state_dir

    isolate_sleep_state(tmp_path, monkeypatch)
    project = project_state_dir(tmp_path)
    assert project.parent == state_dir() / "projects" and install_dir().parent == state_dir()
    paths = set(re.findall(r"`<state>/([^`]*)`", README))
    assert paths, "the README names no <state>/ path"
    from skillopt_sleep.engine.config_layers import TRUST_FILE

    for path in paths:
        assert path in ("projects/", TRUST_FILE) or path.startswith(
            ("projects/<key>/", "install/")
        ), path
    assert "projects/<key>/staging/<night-id>/" in paths
    assert "projects/<key>/logs/night.log" in paths


def test_config_show_says_when_a_config_file_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)
    typo = tmp_path / "cfg.tomll"
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(typo))
    result = CliRunner().invoke(sleep_app, ["config", "show", "-p", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"user file: {typo}\n  (no such file: not read)\n" in result.stdout
    typo.write_text("[night]\nmax_tasks = 3\n")
    result = CliRunner().invoke(sleep_app, ["config", "show", "-p", str(tmp_path), "--json"])
    assert '"user": true' in result.stdout and '"project": false' in result.stdout


def test_the_slash_command_actions_the_readme_lists_are_those_it_handles() -> None:
    command = Path(__file__).resolve().parents[2] / "plugins/claude-code/user-command"
    hint = (command / "skillopt-sleep.md").read_text(encoding="utf-8")
    (handled,) = re.findall(r'argument-hint: "\[([\w|-]+)\]', hint)
    sentence = README[README.index("so `/skillopt-sleep status` (the default)") :]
    sentence = sentence[: sentence.index("work as typed")]
    listed = re.findall(r"`(?:/skillopt-sleep )?([\w-]+)`", sentence)
    assert "`unschedule`" in hint  # handled too, though the hint leaves it out
    assert {*handled.split("|"), "unschedule"} <= set(listed)


def test_every_link_inside_the_readme_leads_to_a_heading() -> None:
    headings = re.findall(r"^#+ (.+)$", README, flags=re.M)
    slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
    links = set(re.findall(r"\]\(#([\w-]+)\)", README))
    assert {"benchmarks", "harvest", "the-optimizer-skillopt"} <= links
    assert links <= slugs, links - slugs
