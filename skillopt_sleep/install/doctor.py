"""``skillopt-sleep doctor``: what is installed, what is missing, what is stale, and the fix.

The reference implementation's users mostly met "engine not found", the wrong Python, and shims
left behind by an upgrade; each check here names one of those and says what to run. Read-only:
it writes nothing and calls no model.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillopt_core.errors import SkillOptError
from skillopt_sleep.install import _fs
from skillopt_sleep.install._proc import VERSION_TIMEOUT_S, run_bounded
from skillopt_sleep.install.edit_block import (
    block_text,
    find_block,
    parse_error,
    unmarked_table,
)
from skillopt_sleep.install.edit_json import dig, load_config
from skillopt_sleep.install.engine_command import (
    cli_argv,
    pointer,
    pointer_path,
    resolves,
    shell_command,
)
from skillopt_sleep.install.layout import HARNESSES, Homes
from skillopt_sleep.install.manifest import Entry, Manifest, sha256
from skillopt_sleep.install.specs import BlockSpec, FileSpec, InstallError, JsonKeySpec

Level = Literal["ok", "warn", "fail", "info"]
CLIS = {"claude-code": "claude", "codex": "codex", "copilot": "copilot"}
# harvest source harness -> our harness name (Copilot's are the CLI and VS Code's chat)
_SOURCE_HARNESS = {"claude": "claude-code", "codex": "codex", "copilot": "copilot"}


@dataclass(frozen=True)
class Check:
    name: str
    level: Level
    detail: str
    hint: str = ""


def _version(executable: str) -> str:
    ran = run_bounded([executable, "--version"], VERSION_TIMEOUT_S)
    if ran.failure and not (ran.stdout or ran.stderr):
        return f"(no version: {ran.failure})"
    lines = (ran.stdout or ran.stderr).strip().splitlines()
    return lines[0] if lines else ""


def engine_checks() -> list[Check]:
    from skillopt_sleep import __version__

    here = pointer()
    checks = [
        Check("engine", "ok", f"skillopt-sleep {__version__} at {here['python']}"),
        compiled_check(),
    ]
    path = pointer_path()
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [*checks, Check("engine pointer", "info", f"none at {path} (nothing installed)")]
    except (OSError, ValueError) as exc:
        recorded = exc
    if not isinstance(recorded, dict):
        return [
            *checks,
            Check(
                "engine pointer",
                "fail",
                f"{path} is damaged or unreadable",
                f"move {path} aside, then `skillopt-sleep install all`",
            ),
        ]
    for kind in ("cli", "mcp"):
        argv = recorded.get(kind) or []
        if not resolves(argv):
            checks.append(
                Check(
                    f"engine pointer ({kind})",
                    "fail",
                    f"{argv[:1]} no longer exists (interpreter moved or uninstalled)",
                    f"{shell_command(cli_argv())} install",
                )
            )
        elif argv != here[kind]:
            checks.append(
                Check(
                    f"engine pointer ({kind})",
                    "warn",
                    f"points at {argv[0]}, not this interpreter",
                    "run install again from the environment you want the shims to use",
                )
            )
        else:
            checks.append(Check(f"engine pointer ({kind})", "ok", argv[0]))
    return checks


def compiled_check() -> Check:
    """The C folds of the Claude Code and Codex readers and the redactor's C scans: without them
    a harvest gives the same sessions, in about 1.5 times the CPU."""
    from skillopt_core._redaction_scan import compiled_status
    from skillopt_sleep.harvest._compiled import FOLDS, status

    found = {status(name)[0] for name in FOLDS} | {compiled_status()[0]}
    if found == {"built"}:
        return Check(
            "compiled readers",
            "ok",
            "the Claude Code and Codex readers' C folds and the redactor's C scans",
        )
    if "off" in found:
        return Check("compiled readers", "info", "off: SKILLOPT_PURE_PYTHON is set")
    if "stale" in found:
        return Check(
            "compiled readers",
            "warn",
            "built from an older source (harvests run in pure Python: same sessions, slower)",
            "rebuild them: `pip install -e .` in the project's environment",
        )
    return Check(
        "compiled readers",
        "info",
        "not built, no C compiler at install (harvests run in pure Python: same sessions, slower)",
        "to build them, install a C compiler (gcc, Xcode's command line tools or MSVC) and "
        "reinstall skillopt-sleep",
    )


def harness_checks(homes: Homes, project: Path) -> list[Check]:
    """Each harness: its CLI and version, and how many transcript files a night of ``project``
    would consider."""
    project = project.expanduser().resolve()
    counts = transcript_counts(homes, project)
    checks: list[Check] = []
    for harness in HARNESSES:
        executable = shutil.which(CLIS[harness])
        if executable is None:
            checks.append(Check(harness, "info", f"`{CLIS[harness]}` not on PATH"))
        else:
            checks.append(Check(harness, "ok", f"{executable} ({_version(executable)})"))
        count, unreadable = counts.get(harness, (0, 0))
        files = f"{count} file{'' if count == 1 else 's'}"
        detail = f"{files} for {project}"
        if harness == "codex":
            detail = f"{files} in {homes.codex}, all projects' (each file names its own)"
        if unreadable:
            detail += f"; {unreadable} place(s) could not be read"
        level: Level = "warn" if unreadable else "ok" if count else "info"
        checks.append(Check(f"{harness} transcripts", level, detail))
    return checks


def transcript_counts(homes: Homes, project: Path) -> dict[str, tuple[int, int]]:
    """Per harness, the transcript files a harvest of ``project`` would consider, found the way
    the harvest finds them (each source's ``discover``), and the places it could not read.
    Claude Code's and Copilot's are narrowed to the project by folder; Codex records the project
    inside each file, so all of its files count."""
    from skillopt_core.errors import SkillOptError
    from skillopt_sleep.engine import load_config
    from skillopt_sleep.harvest import HarvestConfig, load_sources

    read: dict[str, Path] = {"claude": homes.claude, "codex": homes.codex, "copilot": homes.copilot}
    with contextlib.suppress(SkillOptError):  # a config it cannot read: the harness defaults
        read.update(load_config(project).homes)  # ``[homes]``: where a night reads them
    config = HarvestConfig(project=project, homes=read)
    registry = load_sources()
    counts: dict[str, tuple[int, int]] = {}
    for name in registry.names():
        source = registry.get(name)
        harness = _SOURCE_HARNESS.get(source.harness, source.harness)
        found = unreadable = 0
        try:
            for item in source.discover(config):
                if isinstance(item, Path):
                    found += 1
                else:
                    unreadable += 1
        except OSError:
            unreadable += 1
        before = counts.get(harness, (0, 0))
        counts[harness] = (before[0] + found, before[1] + unreadable)
    return counts


def project_checks(project: Path) -> list[Check]:
    from skillopt_sleep.engine import status

    if not project.is_dir():
        return [Check("project", "fail", f"{project} is not a folder", "pass a project with -p")]
    try:
        state = status(project, check_backends=True)
    except SkillOptError as exc:
        return [Check("project", "fail", str(exc))]
    checks = [Check("project", "ok", f"{state.project} (state {state.state_dir})")]
    for role, spec in state.backends.items():
        if not spec:
            continue
        health = state.health.get(role, "ok")
        if health == "ok":
            checks.append(Check(f"backend {role}", "ok", f"{spec} (health check passed)"))
        else:
            message, _, fix = health.partition("\n  fix: ")
            checks.append(Check(f"backend {role}", "fail", f"{spec}: {message}", fix))
    return [*checks, *schedule_checks(dict(state.schedule))]


def schedule_checks(schedule: dict[str, object]) -> list[Check]:
    """:func:`schedule_check`, then one failure per problem that stops the recorded entry from
    running tonight (its engine or project gone, a log it cannot write), each with its fix."""
    found = schedule.get("problems")
    problems = found if isinstance(found, list) else []
    return [
        schedule_check(schedule),
        *(Check("schedule", "fail", str(p["detail"]), str(p["fix"])) for p in problems),
    ]


def gone_project_checks() -> list[Check]:
    """A schedule recorded for a project whose folder is gone (renamed, deleted): its entry
    fires every night and fails, and ``status`` in the project's new place cannot see it."""
    from skillopt_sleep.paths import state_dir
    from skillopt_sleep.schedule.health import project_gone
    from skillopt_sleep.schedule.record import read_record
    from skillopt_sleep.schedule.where import RECORD_NAME

    checks: list[Check] = []
    try:
        records = sorted((state_dir() / "projects").glob(f"*/{RECORD_NAME}"))
    except OSError:
        return []
    for path in records:
        try:
            record = read_record(path)
        except SkillOptError:  # damaged: `status` of that project says so
            continue
        if record is not None and not Path(record.project).is_dir():
            gone = project_gone(record.project)
            checks.append(Check("schedule", "warn", gone.detail, gone.fix))
    return checks


def schedule_check(schedule: dict[str, object]) -> Check:
    """The schedule as ``status`` found it. An entry the OS scheduler holds with no record (the
    state dir was deleted) keeps firing but ``unschedule`` cannot see it: a warning with the note
    and the fix ``status`` gives, never "ok"; a damaged record likewise, never "not scheduled"."""
    if schedule.get("error"):
        message, _, fix = str(schedule["error"]).partition("\n  fix: ")
        return Check("schedule", "warn", message, fix)
    if schedule.get("installed") and schedule.get("recorded") is False:
        at = f"; fires at {schedule['at']}" if schedule.get("at") else ""
        return Check("schedule", "warn", f"{schedule.get('note')}{at}", str(schedule.get("hint")))
    if schedule.get("installed"):
        return Check("schedule", "ok", f"{schedule.get('kind')} at {schedule.get('at')}")
    return Check("schedule", "info", "not scheduled", "skillopt-sleep schedule")


def shim_checks(homes: Homes, manifest: Manifest) -> list[Check]:
    """Each recorded file: still there, its engine still there, unchanged since install, and
    what install writes today."""
    from skillopt_sleep.install import specs_for

    current: dict[tuple[str, str], str] = {}
    for harness in HARNESSES:
        for spec in specs_for(harness, homes, vscode_project=None):
            if isinstance(spec, FileSpec):
                current[(harness, str(spec.path))] = sha256(spec.content)
            elif isinstance(spec, BlockSpec):
                current[(harness, str(spec.path))] = sha256(block_text(spec.body))
            elif isinstance(spec, JsonKeySpec):
                current[(harness, str(spec.path))] = sha256(json.dumps(spec.value, sort_keys=True))
    checks: list[Check] = []
    for entry in manifest.entries:
        if entry.kind == "command" or entry.harness == "engine":
            continue
        name = f"{entry.harness} shim"
        path = Path(entry.path)
        if not path.exists():
            checks.append(
                Check(name, "warn", f"{path} is gone", f"skillopt-sleep install {entry.harness}")
            )
            continue
        gone = _engine_gone(entry, manifest)
        if gone is not None:
            detail = f"{path} runs {gone}, which no longer exists (moved or deleted)"
            checks.append(Check(name, "fail", detail, f"{shell_command(cli_argv())} install"))
            continue
        problem = _recorded_problem(entry)
        if problem is not None:
            checks.append(Check(name, *problem))
            continue
        if current.get((entry.harness, entry.path), entry.sha256) != entry.sha256:
            checks.append(
                Check(name, "warn", f"{path} is stale", f"skillopt-sleep install {entry.harness}")
            )
            continue
        checks.append(Check(name, "ok", f"{path}{' ' + entry.key if entry.key else ''}"))
    if not checks:
        checks.append(Check("shims", "info", "none installed", "skillopt-sleep install all"))
    return checks


def _engine_gone(entry: Entry, manifest: Manifest) -> str | None:
    """The first executable on the way from ``entry`` to the engine (its wrapper, then what the
    wrapper runs, as the manifest recorded them) that is no longer there; None when all are."""
    runs = {e.path: e.engine for e in manifest.of("engine") if e.engine}
    path, seen = entry.engine, set()
    while path and path not in seen:
        if not Path(path).exists():
            return path
        seen.add(path)
        path = runs.get(path, "")
    return None


def _recorded_problem(entry: Entry) -> tuple[Level, str, str] | None:
    """What is wrong with one recorded shim in its file (level, detail, fix), None when fine."""
    path = Path(entry.path)
    again = f"skillopt-sleep install {entry.harness}"
    try:
        if entry.kind == "file":
            edited = sha256(_fs.read(path) or b"") != entry.sha256
            return ("warn", f"{path} was edited since install", "") if edited else None
        text = _fs.read_text(path) or ""
    except InstallError as exc:
        return ("fail", exc.message, exc.hint)
    if entry.kind == "json-key":
        try:
            data, _ = load_config(path, lenient=True)  # VS Code's mcp.json may be JSONC
        except InstallError as exc:
            return ("fail", exc.message, f"fix it, then `{again}`")
        value = dig(data, entry.key.split("."))
        if value is None:
            return ("warn", f"{entry.key} is gone from {path}", again)
        return None
    if entry.kind == "text-block":
        error = parse_error(text)
        if error is not None:
            return ("fail", f"{path} is not valid TOML ({error})", f"fix it, then `{again}`")
        if find_block(text) is None and unmarked_table(text, entry) is None:
            return ("warn", f"the managed block is gone from {path}", again)
    return None


def diagnose(project: Path, homes: Homes | None = None) -> list[Check]:
    homes = homes or Homes.from_env()
    try:
        shims = shim_checks(homes, Manifest())
    except InstallError as exc:
        shims = [Check("install manifest", "fail", exc.message, exc.hint)]
    return [
        *engine_checks(),
        *harness_checks(homes, project),
        *project_checks(project),
        *gone_project_checks(),
        *shims,
    ]
