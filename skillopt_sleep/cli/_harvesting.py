"""What `skillopt-sleep harvest` does, importable without typer or Rich.

:mod:`skillopt_sleep.cli.harvest` declares the command for typer (its options and help) and calls
:func:`harvest`. :func:`run_plain` runs a plain command line without typer's parser: to parse one,
typer builds a validator per parameter, and with typer's and Rich's imports that cost a harvest
about a tenth of a second before anything is read, for a whole run that can take half a second.
Rich is imported only to draw a progress bar on a terminal, to print a summary it would style
(:mod:`skillopt_sleep.cli._harvest_summary`), or to print an error.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep.cli._options import (
    escape,
    exits_on_error,
    harness_homes,
    project_root,
    source_names,
    terminal,
)

if TYPE_CHECKING:
    from rich.console import Console

    from skillopt_sleep.harvest import HarvestRun, HarvestStats

SOURCE_CHOICES = ("claude", "codex", "copilot", "vscode", "all")


def harvest(
    *,
    project: Path | None,
    source: Sequence[str],
    since: str | None,
    as_json: bool,
    output: Path | None,
    claude_home: Path | None,
    codex_home: Path | None,
    copilot_home: Path | None,
    vscode_home: Path | None,
    state_dir: Path | None,
    commit: bool,
    include_sidechains: bool,
) -> None:
    """The command, once its options are parsed and ``source`` checked (the harness names)."""
    from skillopt_sleep.cli._harvest_summary import summary
    from skillopt_sleep.harvest import missing_home_notes

    root = project_root(project)
    given = harness_homes(claude_home, codex_home, copilot_home, vscode_home)
    with exits_on_error():
        homes, origin = configured_homes(root, given)
        notes = missing_home_notes(source, homes, origin)
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
            report=lambda stats: summary(stats, root, stderr=as_json, notes=notes),
        )


def configured_homes(
    root: Path, given: dict[str, Path]
) -> tuple[dict[str, Path], Callable[[str], str]]:
    """The harness homes a night of ``root`` reads (``[homes]`` in a config file, or
    ``SKILLOPT_SLEEP_HOMES_*``), under the ones given as flags: a harvest read other folders
    than the night whose index it advances; and where each was set (its flag, variable or
    file). The config is loaded only when a file or a variable could hold one (loading it costs
    a tenth of a second of start-up)."""
    from skillopt_sleep.paths import project_config_path, user_config_path

    def flag(name: str) -> str:
        return f"--{name}-home"

    may = any(name.startswith("SKILLOPT_SLEEP_") for name in os.environ) or any(
        path.is_file() for path in (user_config_path(), project_config_path(root))
    )
    if not may:
        return given, flag
    from skillopt_sleep.engine import load_config

    config = load_config(root)

    def origin(name: str) -> str:
        return flag(name) if name in given else config.home_origin(name)

    return {**config.homes, **given}, origin


def unknown_source(source: Sequence[str]) -> str | None:
    """The first name of ``--source`` that is no harness ('' when none is given), or None."""
    names = source_names(list(source))
    unknown = [s for s in names if s not in SOURCE_CHOICES]
    return (unknown or [""])[0] if unknown or not names else None


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
    from skillopt_sleep.harvest import HarvestRun, held_for, index_location, open_index

    with contextlib.ExitStack() as stack:
        stack.enter_context(held_for(index_location(root, state_dir), commit))
        index = stack.enter_context(open_index(root, state_dir))
        sinks = []
        if output is not None or as_json:
            from skillopt_sleep.harvest._output import JsonSink

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
            with _progress(_progress_console(), run):
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


def _progress_console() -> Console | None:
    """The console a progress bar would draw on; None (and no Rich) when stderr is no terminal."""
    from skillopt_sleep.cli._plain_text import may_be_terminal

    return terminal(stderr=True) if may_be_terminal(sys.stderr) else None


@contextlib.contextmanager
def _progress(console: Console | None, run: HarvestRun) -> Iterator[None]:
    """A transient progress bar fed by the run (only on a terminal: none in pipes and logs),
    redrawn without a thread (``threadless_bar``): the run forks its reading workers."""
    if console is None or not console.is_terminal:
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


# -- start-up fast path -------------------------------------------------------------------------
# Each spelling of the command's options -> (parameter, kind), and each parameter's default: the
# declarations of ``cli.harvest.harvest_command``, which a test holds equal. Anything else (help, an
# unknown, malformed or unusual option, a value typer would reject) is left to typer, untouched.

PLAIN_OPTIONS: dict[str, tuple[str, str]] = {
    "--project": ("project", "path"),
    "-p": ("project", "path"),
    "--source": ("source", "texts"),
    "-s": ("source", "texts"),
    "--since": ("since", "text"),
    "--json": ("as_json", "flag"),
    "--output": ("output", "path"),
    "-o": ("output", "path"),
    "--claude-home": ("claude_home", "path"),
    "--codex-home": ("codex_home", "path"),
    "--copilot-home": ("copilot_home", "path"),
    "--vscode-home": ("vscode_home", "path"),
    "--state-dir": ("state_dir", "path"),
    "--commit": ("commit", "flag"),
    "--include-sidechains": ("include_sidechains", "flag"),
}
PLAIN_DEFAULTS: dict[str, Any] = {
    "project": None,
    "source": ["all"],
    "since": None,
    "as_json": False,
    "output": None,
    "claude_home": None,
    "codex_home": None,
    "copilot_home": None,
    "vscode_home": None,
    "state_dir": None,
    "commit": False,
    "include_sidechains": False,
}


def _parse_plain(argv: Sequence[str]) -> dict[str, Any] | None:
    """Keyword arguments for :func:`harvest` (None: not a plain command line)."""
    values = {name: list(v) if isinstance(v, list) else v for name, v in PLAIN_DEFAULTS.items()}
    given: set[str] = set()
    at = 0
    while at < len(argv):
        spelling, _, attached = argv[at].partition("=")
        known = PLAIN_OPTIONS.get(spelling) if spelling.startswith("--") or not attached else None
        if known is None:
            return None
        name, kind = known
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


def _plain_sources(source: list[str], since: str | None) -> list[str] | None:
    """The harness names, or None when ``--source`` or ``--since`` is a usage error (typer's)."""
    from skillopt_core.errors import UsageError
    from skillopt_sleep.harvest import parse_since

    if unknown_source(source) is not None:
        return None
    try:
        parse_since(since)
    except UsageError:
        return None
    return source_names(source)


def run_plain(argv: Sequence[str]) -> bool:
    """Run ``harvest`` for the arguments after ``harvest`` without typer's parser; False (and
    nothing done) when they are not a plain harvest command line. Exits as typer would."""
    if os.name == "nt" or any(name.endswith("_COMPLETE") for name in os.environ):
        return False  # argument globbing, shell completion: typer's
    values = _parse_plain(argv)
    sources = None if values is None else _plain_sources(values["source"], values["since"])
    if values is None or sources is None:
        return False
    from skillopt_sleep.cli._run import handle_errors

    try:
        handle_errors(harvest)(**{**values, "source": sources})
    except KeyboardInterrupt:  # between the command's own handling and here
        from skillopt_sleep.cli._run import INTERRUPTED_HINT, fail

        sys.exit(fail("interrupted", 130, INTERRUPTED_HINT).exit_code)
    except Exception as stop:
        code = _exit_code(stop)
        if code is None:
            raise
        sys.exit(code)
    return True


def _exit_code(error: Exception) -> int | None:
    """The code a ``typer.Exit`` ends the command with (None for anything else). Only a command
    that ended on an error imported typer, to raise it."""
    typer = sys.modules.get("typer")
    return error.exit_code if typer is not None and isinstance(error, typer.Exit) else None
