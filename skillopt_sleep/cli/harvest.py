"""`skillopt-sleep harvest`: show (or record) the sessions a night would harvest for a project.

By default the project's index is only read, never advanced, so looking does not consume what the
next night will mine; ``--commit`` advances it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._options import (
    CLAUDE_HOME,
    CODEX_HOME,
    COPILOT_HOME,
    PROJECT,
    SINCE,
    STATE_DIR,
    VSCODE_HOME,
    checked_since,
    escape,
    exits_on_error,
    harness_homes,
    project_root,
    terminal,
)
from skillopt_sleep.cli._run import handle_errors

if TYPE_CHECKING:
    from rich.console import Console

    from skillopt_sleep.harvest import HarvestRun, HarvestStats

SOURCE_CHOICES = ("claude", "codex", "copilot", "vscode", "all")


@app.command("harvest")
@handle_errors
def harvest_command(
    project: Path | None = PROJECT,
    source: list[str] = typer.Option(
        ["all"],
        "--source",
        "-s",
        help="claude | codex | copilot | vscode | all: repeat it or give a comma list.",
    ),
    since: str | None = SINCE,
    as_json: bool = typer.Option(False, "--json", help="Print the sessions as JSON on stdout."),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the sessions as JSON to this file (its missing folders are made).",
    ),
    claude_home: Path | None = CLAUDE_HOME,
    codex_home: Path | None = CODEX_HOME,
    copilot_home: Path | None = COPILOT_HOME,
    vscode_home: Path | None = VSCODE_HOME,
    state_dir: Path | None = STATE_DIR,
    commit: bool = typer.Option(
        False,
        "--commit",
        help="Advance the index, once the output is safely written: the sessions then count "
        "as read, and no later night sees them (nights advance it themselves).",
    ),
    include_sidechains: bool = typer.Option(
        False, "--include-sidechains", help="Keep sub-agent records."
    ),
) -> None:
    """Harvest new transcript sessions of a project (redacted) and summarise them per harness.

    Sessions stream to --json / --output as they are read. With --commit the index advances only
    after every output is written and synced, so a failed or killed run delivers them again.
    """
    source = checked_sources(source, since)
    root = project_root(project)
    homes = harness_homes(claude_home, codex_home, copilot_home, vscode_home)
    with exits_on_error():
        homes = configured_homes(root, homes)
        _harvest(
            root,
            tuple(source),
            since,
            state_dir,
            homes,
            include_sidechains,
            commit=commit,
            as_json=as_json,
            output=output,
            report=lambda stats: _summary(terminal(stderr=as_json), stats, root),
        )


def configured_homes(root: Path, given: dict[str, Path]) -> dict[str, Path]:
    """The harness homes a night of ``root`` reads (``[homes]`` in a config file, or
    ``SKILLOPT_SLEEP_HOMES_*``), under the ones given as flags: a harvest read other folders
    than the night whose index it advances. The config is loaded only when a file or a variable
    could hold one (loading it costs a tenth of a second of start-up)."""
    from skillopt_sleep.paths import project_config_path, user_config_path

    may = any(name.startswith("SKILLOPT_SLEEP_") for name in os.environ) or any(
        path.is_file() for path in (user_config_path(), project_config_path(root))
    )
    if not may:
        return given
    from skillopt_sleep.engine import load_config

    return {**load_config(root).homes, **given}


def checked_sources(source: list[str], since: str | None) -> list[str]:
    """The checks made before anything is read (``typer.BadParameter``: a usage error); the
    sources, comma lists split (``--source claude,codex``, as `run` takes them)."""
    from skillopt_sleep.cli._profile import source_names

    names = source_names(source)
    unknown = [s for s in names if s not in SOURCE_CHOICES]
    if unknown or not names:
        raise typer.BadParameter(
            f"unknown source {(unknown or [''])[0]!r}; choose from {', '.join(SOURCE_CHOICES)}",
            param_hint="'--source' / '-s'",
        )
    checked_since(since)
    return names


def _harvest(
    root: Path,
    sources: tuple[str, ...],
    since: str | None,
    state_dir: Path | None,
    homes: dict[str, Path],
    include_sidechains: bool,
    *,
    commit: bool,
    as_json: bool,
    output: Path | None,
    report: Callable[[Mapping[str, HarvestStats]], None],
) -> None:
    """Stream the run's sessions to the sinks, close them durably, ``report`` the stats, then
    (maybe) commit: output that could not be written (a full disk, a closed pipe) leaves the
    index where it was, so the next run delivers the same sessions again."""
    from skillopt_sleep.harvest import HarvestRun, open_index
    from skillopt_sleep.harvest._output import JsonSink

    with contextlib.ExitStack() as stack:
        index = stack.enter_context(open_index(root, state_dir))
        if commit:
            stack.enter_context(index.locked())
        sinks = [JsonSink(output)] if output is not None else []
        if as_json:
            sinks.append(JsonSink(None))
        try:
            run = HarvestRun(
                root,
                sources,
                since,
                index,
                homes=homes,
                include_sidechains=include_sidechains,
                record=commit,
            )
            with _progress(terminal(stderr=True), run):
                if sinks:
                    for document in run.json():
                        for sink in sinks:
                            sink.write_json(document)
                else:
                    run.drain()  # the summary alone: no session needs building
            for sink in sinks:
                sink.close()
            report(run.stats)
        except BaseException:
            for sink in sinks:
                sink.abort()
            index.rollback()
            raise
        if commit:
            index.commit()


@contextlib.contextmanager
def _progress(console: Console, run: HarvestRun) -> Iterator[None]:
    """A transient progress bar fed by the run (only on a terminal: none in pipes and logs),
    redrawn without a thread (``threadless_bar``): the run forks its reading workers."""
    if not console.is_terminal:
        yield
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from skillopt_sleep.cli._run import threadless_bar

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with threadless_bar(console, *columns) as update:
        run.progress = lambda name, done, total: update(f"harvest {escape(name)}", done, total)
        yield


def _summary(console: Console, stats_by_harness: Mapping[str, HarvestStats], root: Path) -> None:
    from rich import box
    from rich.table import Table

    from skillopt_sleep.cli._render import missing_project_note

    headers: tuple[str, ...] = ("harness", "files read", "sessions", "turns", "tool calls")
    headers += ("tool errors",)
    headers += ("corrections", "skipped lines", "skipped files")
    rows = [
        (
            stats.harness,
            f"{stats.files_read}/{stats.files_seen}",
            *(str(n) for n in (stats.sessions, stats.turns, stats.tool_calls, stats.tool_errors)),
            str(stats.corrections),
            str(stats.skipped_line_count),
            str(sum(stats.skipped_files.values())),
        )
        for stats in stats_by_harness.values()
    ]
    # No column rules, and each column at least as wide as its longest word or cell, so at 80
    # columns (a pipe, a log) headers wrap between words and no name or number is cut ("copil…").
    table = Table(title="Harvest summary", box=box.SIMPLE_HEAD, padding=0)
    for at, header in enumerate(headers):
        widest = max([len(w) for w in header.split()] + [len(row[at]) for row in rows])
        table.add_column(
            header, justify="right" if at else "left", min_width=widest, max_width=widest
        )
    for row in rows:
        table.add_row(*row)
    from skillopt_sleep.cli._render import fits

    if fits(console, table):
        console.print(table)
    else:  # a narrow terminal would crop the columns that do not fit: one line per harness
        for row in rows:
            cells = ", ".join(
                f"{header} {cell}" for header, cell in zip(headers[1:], row[1:], strict=True)
            )
            console.print(escape(f"{row[0]}: {cells}"))
    for stats in stats_by_harness.values():
        for label, reasons in (
            ("skipped lines", stats.skipped_lines),
            ("skipped files", stats.skipped_files),
            ("sessions not kept", stats.skipped_sessions),
        ):
            if reasons:
                detail = ", ".join(f"{reason}: {count}" for reason, count in reasons.items())
                console.print(escape(f"  {stats.harness} {label}: {detail}"))
    note = missing_project_note(root, sum(s.sessions for s in stats_by_harness.values()))
    if note:
        console.print(escape(note), soft_wrap=True)


# -- start-up fast path -------------------------------------------------------------------------
# To parse a command line, typer builds a pydantic validator per parameter: with the imports that
# takes about a tenth of a second, paid before anything is read, by a command whose whole run can
# take half a second. ``run_plain`` parses a plain ``harvest`` command line itself, from the same
# option declarations, and calls the same command; anything else (help, an unknown, malformed or
# unusual option, a value typer would reject) returns False, untouched, for typer to handle.

_PLAIN_KINDS = {"bool": "flag", "Path | None": "path", "str | None": "text", "list[str]": "texts"}


def _plain_options() -> dict[str, tuple[str, str, Any]] | None:
    """Each spelling of ``harvest_command``'s options -> (parameter, kind, default); None when an
    option is not a plain flag, text, path or repeatable text (a callback, an environment
    variable, a prompt, a path check, an on/off pair, ... are left to typer)."""
    import inspect

    from typer.models import OptionInfo

    table: dict[str, tuple[str, str, Any]] = {}
    for name, param in inspect.signature(harvest_command).parameters.items():
        info, kind = param.default, _PLAIN_KINDS.get(str(param.annotation))
        if kind is None or not isinstance(info, OptionInfo):
            return None
        plain = (
            info.callback is None
            and info.envvar is None
            and info.parser is None
            and info.default_factory is None
            and info.path_type is None
            and info.expose_value
            and not (info.is_eager or info.prompt or info.count or info.exists)
            and not (info.resolve_path or info.writable or info.allow_dash)
        )
        decls = info.param_decls or ()
        if not plain or not decls or any("/" in d or not d.startswith("-") for d in decls):
            return None
        for decl in decls:
            table[decl] = (name, kind, info.default)
    return table


def _parse_plain(
    argv: Sequence[str], table: Mapping[str, tuple[str, str, Any]]
) -> dict[str, Any] | None:
    """Keyword arguments for ``harvest_command`` (None: not a plain command line)."""
    values: dict[str, Any] = {}
    for name, kind, default in table.values():
        values[name] = list(default) if kind == "texts" else default
    given: set[str] = set()
    at = 0
    while at < len(argv):
        spelling, _, attached = argv[at].partition("=")
        known = table.get(spelling) if spelling.startswith("--") or not attached else None
        if known is None:
            return None
        name, kind, _default = known
        at += 1
        if kind == "flag":
            if attached or argv[at - 1] != spelling:
                return None
            values[name] = True
            continue
        if argv[at - 1] != spelling:
            value = attached
        elif at < len(argv):
            value, at = argv[at], at + 1
        else:
            return None
        if not value or value.startswith("-"):
            return None
        if kind == "path":
            path = Path(value)
            if os.path.exists(path) and not os.access(path, os.R_OK):
                return None  # typer's "is not readable" usage error
            values[name] = path
        elif kind == "texts":
            values[name] = [*values[name], value] if name in given else [value]
        else:
            values[name] = value
        given.add(name)
    return values


def run_plain(argv: Sequence[str]) -> bool:
    """Run ``harvest`` for the arguments after ``harvest`` without typer's parser; False (and
    nothing done) when they are not a plain harvest command line. Exits as typer would."""
    if os.name == "nt" or any(name.endswith("_COMPLETE") for name in os.environ):
        return False  # argument globbing, shell completion: typer's
    table = _plain_options()
    values = _parse_plain(argv, table) if table is not None else None
    if values is None:
        return False
    try:
        checked_sources(values["source"], values["since"])
    except typer.BadParameter:
        return False  # typer reports it, with the usage line
    try:
        harvest_command(**values)
    except typer.Exit as stop:
        sys.exit(stop.exit_code)
    except KeyboardInterrupt:  # between the command's own handling and here
        from skillopt_sleep.cli._run import INTERRUPTED_HINT, fail

        sys.exit(fail("interrupted", 130, INTERRUPTED_HINT).exit_code)
    return True
