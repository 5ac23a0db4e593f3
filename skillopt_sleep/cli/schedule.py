"""`skillopt-sleep schedule`, `unschedule` and `daemon`: run a night every day.

Thin over :mod:`skillopt_sleep.schedule`. ``schedule`` takes the same profile flags as ``run``
and saves them in the OS entry, so the scheduled night runs exactly as ``run`` would with them;
they are validated against the configuration now, not discovered broken at 03:17.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._options import PROJECT, night_project, project_root
from skillopt_sleep.cli._profile import PROFILE, joined_sources, with_profile
from skillopt_sleep.cli._run import emit_json, handle_errors

if TYPE_CHECKING:
    from skillopt_sleep.schedule import DailyTime, Host

AT = typer.Option(
    None,
    "--at",
    help="Time of day, HH:MM on the clock the scheduler runs on (cron, launchd: the system's "
    "zone; daemon: its own), default: schedule.at in the config, 03:17.",
)
JSON = typer.Option(False, "--json", help="Print the result as JSON on stdout.")
# parameter name -> the `run` option's declaration, e.g. "--source" or "--memory/--no-memory"
_DECLS = {name: option.param_decls[0] for name, _, option, _ in PROFILE}


def profile_args(flags: Mapping[str, Any]) -> tuple[str, ...]:
    """The `run` flags that reproduce the given profile ``flags`` (unset ones dropped, paths
    made absolute), spelt as `run` declares them."""
    out: list[str] = []
    for name, value in flags.items():
        if name == "sources":
            value = joined_sources(value)
        if value is None:
            continue
        on, _, off = _DECLS[name].partition("/")
        if isinstance(value, bool):
            out.append(on if value else off)
        elif isinstance(value, Path):
            out += [on, str(value.expanduser().resolve())]
        else:
            out += [on, str(value)]
    return tuple(out)


def _host() -> Host:
    """The machine to schedule on (tests replace this function with a fake host)."""
    from skillopt_sleep.schedule import Host

    return Host.current()


def _project(project: Path | None) -> Path:
    """The project to schedule, which must exist and hold no home folder (the same errors
    and fixes as `run` gives)."""
    return night_project(project).resolve()


def _at(at: str | None) -> DailyTime | None:
    """``--at`` checked before anything else, so a bad time is a usage error (exit 2) at once."""
    from skillopt_sleep.schedule import parse_at

    return parse_at(at) if at is not None else None


def _settings(
    root: Path, when: DailyTime | None, flags: Mapping[str, Any]
) -> tuple[DailyTime, Any]:
    """The time (``--at``, else ``schedule.at`` of the configuration) and the merged
    configuration with the profile flags applied (a bad flag fails now, not at night)."""
    from skillopt_sleep.cli._profile import overrides
    from skillopt_sleep.engine import load_config
    from skillopt_sleep.schedule import parse_at

    config = load_config(root, overrides(**dict(flags)))
    config.check_names()  # the entry would fail every night
    return (when or parse_at(config.schedule.at)), config


@app.command("schedule", context_settings={"allow_extra_args": True})
@handle_errors
@with_profile()
def schedule_command(
    ctx: typer.Context,
    project: Path | None = PROJECT,
    at: str | None = AT,
    as_json: bool = JSON,
    show: bool = typer.Option(
        False, "--dry-run", "--print", help="Show the entry that would be written; change nothing."
    ),
    **profile: Any,
) -> None:
    """Run a night every day at --at, with these flags (an OS scheduler entry).

    The entry is a cron line (Linux), a launchd agent (macOS) or a scheduled task (Windows),
    with today's PATH; re-running replaces it. --dry-run prints it and changes nothing."""
    from skillopt_sleep.schedule import install_schedule, preview_schedule, schedule_info

    _no_subcommand(ctx.args)
    when = _at(at)
    root = _project(project)
    when, _ = _settings(root, when, profile)
    if show:
        host = _host()
        text = preview_schedule(root, when, profile_args(profile), host=host)
        if as_json:
            emit_json({"kind": host.kind, "at": str(when), "entry": text})
        else:
            typer.echo(text, nl=False)
        return
    host = _host()
    install_schedule(root, when, profile_args(profile), host=host)
    info = schedule_info(root, host=host)
    if as_json:
        emit_json(info)
        return
    typer.echo(f"scheduled ({info['kind']}): every day at {info['time']}")
    typer.echo(f"next run: {info['next_run_local']} ({info['next_run']})")
    if info.get("zone_note"):
        typer.echo(f"note:     {info['zone_note']}")
    typer.echo(f"command:  {info['command']}")
    typer.echo(f"log:      {info['log']}")


_INSTEAD = {
    "status": "`skillopt-sleep status` shows the schedule (`--json`: its `schedule` object)",
    "show": "`skillopt-sleep status` shows the schedule (`--json`: its `schedule` object)",
    "list": "`skillopt-sleep status` shows the schedule (`--json`: its `schedule` object)",
    "install": "`skillopt-sleep schedule` (no word after it) installs the entry",
    "add": "`skillopt-sleep schedule` (no word after it) installs the entry",
    "remove": "`skillopt-sleep unschedule` removes the entry",
    "uninstall": "`skillopt-sleep unschedule` removes the entry",
    "delete": "`skillopt-sleep unschedule` removes the entry",
}


def _no_subcommand(words: list[str] | None) -> None:
    """`schedule` takes options only: ``schedule status`` (as other CLIs spell it) is a usage
    error that names the command meant, not click's bare "unexpected extra argument"."""
    from skillopt_core.errors import UsageError

    if not words:
        return
    hint = _INSTEAD.get(words[0].lower(), "see `skillopt-sleep schedule --help`")
    raise UsageError(f"`schedule` takes no argument {words[0]!r}", hint=hint)


@app.command("unschedule")
@handle_errors
def unschedule_command(project: Path | None = PROJECT, as_json: bool = JSON) -> None:
    """Remove exactly the entry `schedule` wrote for this project."""
    from skillopt_sleep.schedule import remove_schedule

    root = project_root(project).expanduser().resolve()
    removal = remove_schedule(root, host=_host())
    if as_json:
        emit_json({"kind": removal.kind, "removed": list(removal.removed)})
        return
    if not removal.removed:
        typer.echo("nothing was scheduled for this project")
    for what in removal.removed:
        typer.echo(f"removed {what}")


@app.command("daemon")
@handle_errors
@with_profile()
def daemon_command(
    project: Path | None = PROJECT,
    at: str | None = AT,
    as_json: bool = typer.Option(False, "--json", help="Print events as JSON lines on stdout."),
    **profile: Any,
) -> None:
    """Stay running instead of a scheduler entry: a night every day at --at.

    A night missed while the machine slept runs once on wake, and the harvest is refreshed as
    transcripts change. Stop it with Ctrl-C or SIGTERM."""
    from skillopt_sleep.cli._profile import overrides
    from skillopt_sleep.engine import load_config
    from skillopt_sleep.schedule.daemon import Daemon, install_signal_handlers
    from skillopt_sleep.schedule.watch import configured_dirs

    when = _at(at)
    root = _project(project)
    when, _ = _settings(root, when, profile)
    settings = overrides(**profile)

    def load() -> Any:
        return load_config(root, settings)

    daemon = Daemon(
        project=root,
        at=when,
        load_config=load,
        watch_dirs=configured_dirs(root, load),
        emit=_json_line if as_json else _text_line,
    )
    install_signal_handlers(daemon.stop)
    raise typer.Exit(daemon.serve())


def _json_line(event: Mapping[str, Any]) -> None:
    import json

    typer.echo(json.dumps(dict(event), default=str))


def _text_line(event: Mapping[str, Any]) -> None:
    from datetime import datetime

    stamp = datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S")
    rest = " ".join(f"{k}={v}" for k, v in event.items() if k != "event")
    typer.echo(f"{stamp} {event.get('event', '')} {rest}".rstrip())
