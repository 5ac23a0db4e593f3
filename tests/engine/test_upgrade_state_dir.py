"""A project's state folder an older version named stays the project's after an upgrade.

The folder is ``<readable name>-<digest of the root>``; the readable name is redacted (44c95a6:
a folder named after a secret shows as ``REDACTED-...``), so a version with other redaction rules
names it differently. Versions before 44c95a6 did not redact it at all: with the name recomputed,
``status`` said "no nights yet", pending proposals and adopt backups were out of reach and the
next night harvested the whole window again. The fixture is the folder such a version left: its
``project.json``, one history line and one pending proposal, in those versions' shapes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from skillopt_sleep.engine import status
from skillopt_sleep.engine.state import ProjectState
from skillopt_sleep.paths import project_key, state_dir

NAME = "ghp_" + "Ab1" * 12  # a GitHub token's shape: redacted today, not before 44c95a6
NIGHT = "20261120-031700"


def _old_state(project: Path, owner: Path) -> Path:
    resolved = str(project.resolve())
    folder = (
        state_dir() / "projects" / f"{NAME}-{hashlib.sha256(resolved.encode()).hexdigest()[:10]}"
    )
    staged = folder / "staging" / NIGHT
    staged.mkdir(parents=True)
    (folder / "project.json").write_text(json.dumps({"project": str(owner.resolve())}))
    line = {"night_id": NIGHT, "started_at": "2026-11-20T03:17:00+00:00", "outcome": "staged"}
    (folder / "history.jsonl").write_text(json.dumps({**line, "proposal": NIGHT}) + "\n")
    manifest = {"night_id": NIGHT, "project": resolved, "state": "pending", "files": []}
    (staged / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_the_folder_an_older_version_named_is_still_the_projects(tmp_path: Path) -> None:
    project = tmp_path / NAME
    project.mkdir()
    assert project_key(project).startswith("REDACTED")  # what a fresh state is named today
    folder = _old_state(project, project)
    assert ProjectState(project).root == folder
    now = status(project)
    assert [n.night_id for n in now.nights] == [NIGHT]
    assert [p.id for p in now.pending] == [NIGHT]


def test_a_folder_recorded_for_another_project_is_not_taken(tmp_path: Path) -> None:
    project = tmp_path / NAME
    project.mkdir()
    _old_state(project, tmp_path / "elsewhere")
    assert ProjectState(project).root.name.startswith("REDACTED")
