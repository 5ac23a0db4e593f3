"""``skillopt-sleep install | uninstall | doctor``: put the shims where each harness looks.

    install(["codex"])              # skill + MCP server for Codex, recorded in the manifest
    install(["all"], dry_run=True)  # what would be written, nothing touched
    install([])                     # again, for every harness installed (after a move)
    uninstall(["codex"])            # exactly what was written, and only while unchanged

Every harness file names the engine by absolute path, on POSIX through a wrapper that says when
the engine is gone (see :mod:`.engine_command`); what was written is in the manifest (see
:mod:`.manifest`); how files are written, backed up and removed is in :mod:`.changes`; each
harness's list of changes is in its own module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from skillopt_core.errors import SkillOptError, UsageError
from skillopt_sleep.install import _fs, claude, codex, copilot
from skillopt_sleep.install.changes import Action, CommandSpec, FileSpec, Spec, apply, undo
from skillopt_sleep.install.engine_command import pointer, pointer_path, wrapper_script, wrappers
from skillopt_sleep.install.layout import HARNESSES, Harness, Homes
from skillopt_sleep.install.manifest import Manifest
from skillopt_sleep.install.specs import InstallError

ENGINE = "engine"


def harnesses_of(names: Iterable[str]) -> list[Harness]:
    """``["all"]`` or harness names -> the harnesses, in a stable order; UsageError on a typo."""
    chosen: list[Harness] = []
    for name in names:
        if name == "all":
            return list(HARNESSES)
        if name not in HARNESSES:
            raise UsageError(
                f"unknown harness {name!r}", hint=f"choose from {', '.join(HARNESSES)} or all"
            )
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise UsageError("name a harness", hint=f"choose from {', '.join(HARNESSES)} or all")
    return chosen


def specs_for(
    harness: Harness,
    homes: Homes,
    *,
    mcp: bool = True,
    claude_plugin: bool = True,
    vscode_project: Path | None = None,
) -> list[Spec]:
    if harness == "claude-code":
        return claude.specs(homes, plugin=claude_plugin)
    if harness == "codex":
        return codex.specs(homes, mcp=mcp)
    return copilot.specs(homes, mcp=mcp, vscode_project=vscode_project)


def installed(manifest: Manifest) -> list[Harness]:
    """The harnesses the manifest records, in a stable order."""
    return [harness for harness in HARNESSES if manifest.of(harness)]


def _engine_specs() -> list[Spec]:
    """The engine pointer, and the wrappers the shims run (see :mod:`.engine_command`)."""
    out: list[Spec] = [FileSpec(ENGINE, pointer_path(), json.dumps(pointer(), indent=2) + "\n")]
    for path, argv in wrappers().items():
        out.append(FileSpec(ENGINE, path, wrapper_script(argv), executable=True, engine=argv[0]))
    return out


def install(
    names: Sequence[str],
    *,
    dry_run: bool = False,
    homes: Homes | None = None,
    mcp: bool = True,
    claude_plugin: bool = True,
    vscode_project: Path | None = None,
    manifest: Manifest | None = None,
) -> list[Action]:
    """Write each harness's shims (or, with ``dry_run``, say what would be written); no
    ``names``: again for each harness already installed (the fix for a moved engine).

    A harness whose config cannot be edited safely is skipped whole and reported by an action
    carrying a ``fix`` (see :func:`failures`); the other harnesses are still installed. A new
    shim is recorded in the manifest before it is written, so not even a kill leaves one
    unrecorded; a second install or uninstall meanwhile is turned away (``DirectoryLocked``)."""
    manifest = manifest or Manifest()
    chosen = harnesses_of(names or installed(manifest))
    if vscode_project is not None and not vscode_project.is_dir():
        raise UsageError(
            f"--vscode {vscode_project} is not a folder", hint="pass the project's root folder"
        )
    homes = homes or Homes.from_env()
    with _held(manifest, "skillopt-sleep install", dry_run):
        actions = [_apply_all(ENGINE, _engine_specs(), manifest, dry_run)]
        for harness in chosen:
            if harness == "claude-code" and claude_plugin and not claude.plugin_commands():
                actions.append([Action("skip", "claude plugin install", claude.NO_CLAUDE)])
            if harness == "copilot" and vscode_project is not None and not mcp:
                vscode = str(vscode_project / ".vscode" / "mcp.json")
                actions.append([Action("skip", vscode, "--no-mcp: no MCP server registered")])
            specs = specs_for(
                harness, homes, mcp=mcp, claude_plugin=claude_plugin, vscode_project=vscode_project
            )
            actions.append(_apply_all(harness, specs, manifest, dry_run))
    return [action for group in actions for action in group]


def _held(manifest: Manifest, what: str, dry_run: bool) -> AbstractContextManager[None]:
    """The manifest's lock for a run that writes; a dry run only reads, like ``doctor``."""
    return nullcontext() if dry_run else manifest.locked(what)


def _apply_all(
    harness: str, specs: Sequence[Spec], manifest: Manifest, dry_run: bool
) -> list[Action]:
    """Apply one harness's specs: all checked first (parse, shape, writable), then written."""
    try:
        for spec in specs:
            if not isinstance(spec, CommandSpec):
                _fs.check_writable(spec.path)
                apply(spec, manifest, dry_run=True)
    except InstallError as exc:
        return [_failed(harness, exc, written=False)]
    done: list[Action] = []
    for spec in specs:
        try:
            done.append(apply(spec, manifest, dry_run))
        except (InstallError, OSError) as exc:
            return [*done, _failed(harness, exc, written=bool(done))]
        finally:
            if not dry_run:
                manifest.save()
    return done


def _failed(harness: str, exc: OSError | InstallError, *, written: bool) -> Action:
    path = exc.path if isinstance(exc, InstallError) else str(exc.filename or "")
    message = exc.message if isinstance(exc, SkillOptError) else (exc.strerror or str(exc))
    hint = exc.hint if isinstance(exc, SkillOptError) and exc.hint else "check the permissions"
    state = "partly installed (what was written is recorded)" if written else "not installed"
    preview = exc.preview if isinstance(exc, InstallError) else ""
    return Action(
        "skip",
        path,
        f"{message}; {harness} {state}; other harnesses unaffected",
        fix=hint,
        preview=preview,
    )


def failures(actions: Sequence[Action]) -> list[Action]:
    """The actions that are errors the user must fix (the CLI exits non-zero on them)."""
    return [action for action in actions if action.fix]


def uninstall(
    names: Sequence[str], *, dry_run: bool = False, manifest: Manifest | None = None
) -> list[Action]:
    """Remove what install wrote for these harnesses, newest first; the engine pointer goes with
    the last harness. What could not be undone (a failed ``claude plugin uninstall``, a config
    that no longer parses) is an action with a ``fix`` and stays in the manifest for next time."""
    manifest = manifest or Manifest()
    actions: list[Action] = []
    chosen = harnesses_of(names)
    with _held(manifest, "skillopt-sleep uninstall", dry_run):
        for harness in chosen:
            for entry in reversed(manifest.of(harness)):
                actions.append(undo(entry, manifest, dry_run))
        remaining = (
            {e.harness for e in manifest.entries} - {ENGINE} - set(chosen if dry_run else ())
        )
        if not remaining:
            for entry in reversed(manifest.of(ENGINE)):  # newest first, like the harnesses
                actions.append(undo(entry, manifest, dry_run))
        if not dry_run:
            if manifest.entries:
                manifest.save()
            elif manifest.path.exists():
                manifest.path.unlink()
    return actions


__all__ = [
    "HARNESSES",
    "Action",
    "Homes",
    "failures",
    "harnesses_of",
    "install",
    "installed",
    "specs_for",
    "uninstall",
]
