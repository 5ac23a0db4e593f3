"""``skillopt-sleep install | uninstall | doctor``: put the shims where each harness looks.

    install(["codex"])              # skill + MCP server for Codex, recorded in the manifest
    install(["all"], dry_run=True)  # what would be written, nothing touched
    uninstall(["codex"])            # exactly what was written, and only while unchanged

Every harness file names the engine by absolute path (see :mod:`.engine_command`); what was
written is in the manifest (see :mod:`.manifest`); how files are written, backed up and removed is
in :mod:`.changes`; each harness's list of changes is in its own module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from skillopt_core.errors import UsageError
from skillopt_sleep.install import claude, codex, copilot
from skillopt_sleep.install.changes import Action, FileSpec, Spec, apply, undo
from skillopt_sleep.install.engine_command import pointer, pointer_path
from skillopt_sleep.install.layout import HARNESSES, Harness, Homes
from skillopt_sleep.install.manifest import Manifest

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
            chosen.append(name)  # type: ignore[arg-type]
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


def _pointer_spec() -> FileSpec:
    return FileSpec(ENGINE, pointer_path(), json.dumps(pointer(), indent=2) + "\n")


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
    """Write each harness's shims (or, with ``dry_run``, say what would be written)."""
    homes = homes or Homes.from_env()
    manifest = manifest or Manifest()
    actions = [apply(_pointer_spec(), manifest, dry_run)]
    for harness in harnesses_of(names):
        if harness == "claude-code" and claude_plugin and not claude.plugin_commands():
            actions.append(Action("skip", "claude plugin install", claude.NO_CLAUDE))
        for spec in specs_for(
            harness, homes, mcp=mcp, claude_plugin=claude_plugin, vscode_project=vscode_project
        ):
            actions.append(apply(spec, manifest, dry_run))
    if not dry_run:
        manifest.save()
    return actions


def uninstall(
    names: Sequence[str], *, dry_run: bool = False, manifest: Manifest | None = None
) -> list[Action]:
    """Remove what install wrote for these harnesses, newest first; the engine pointer goes with
    the last harness."""
    manifest = manifest or Manifest()
    actions: list[Action] = []
    chosen = harnesses_of(names)
    for harness in chosen:
        for entry in reversed(manifest.of(harness)):
            actions.append(undo(entry, manifest, dry_run))
    remaining = {e.harness for e in manifest.entries} - {ENGINE} - set(chosen if dry_run else ())
    if not remaining:
        for entry in manifest.of(ENGINE):
            actions.append(undo(entry, manifest, dry_run))
    if not dry_run:
        if manifest.entries:
            manifest.save()
        elif manifest.path.exists():
            manifest.path.unlink()
    return actions


__all__ = ["HARNESSES", "Action", "Homes", "harnesses_of", "install", "specs_for", "uninstall"]
