"""A task learned on a later night is named in the managed skill's description: a harness loads a
skill by its description, and it used to be written once, on the first night, never to change.

The history: a developer asks for paper summaries (corrected: the arXiv id on its own line) for
six days, the first night learns them, then asks for deployment manifests (corrected: the resource
limits) for six more. The second night's proposal names the manifests; what its gate validated is
byte for byte what it stages; adopt, rollback and the drift checks see the description line."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.errors import DriftError
from skillopt_sleep.engine import NightReport, adopt, load_config, rollback, run_night
from skillopt_sleep.skills.discover import frontmatter_fields
from skillopt_sleep.skills.route import DESCRIPTION_LIMIT
from tests.engine._history import _record

START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
SUMMARY = "summarize arXiv paper 2401.{n} for the reading group"
SUMMARY_FIX = "no, the arXiv id goes on its own line, formatted as arXiv:2401.{n}"
MANIFEST = "write a deployment manifest for the billing-{n} service"
MANIFEST_FIX = "no, you forgot - include the resource limits"


@dataclass(frozen=True)
class Project:
    path: Path
    home: Path
    folder: Path

    @property
    def managed(self) -> Path:
        return self.path / ".claude" / "skills" / "skillopt-learned" / "SKILL.md"


def _session(project: Project, number: int, ask: str, fix: str) -> None:
    sid = str(uuid.UUID(int=number + 1))
    when = START + timedelta(days=number)
    user = _record("user", sid, project.path, when, None, {"role": "user", "content": ask})
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
    records = [user, _record("assistant", sid, project.path, when, user["uuid"], reply)]
    message = {"role": "user", "content": fix}
    later = when + timedelta(minutes=1)
    records.append(_record("user", sid, project.path, later, records[-1]["uuid"], message))
    text = "".join(json.dumps(r) + "\n" for r in records)
    (project.folder / f"{sid}.jsonl").write_text(text, encoding="utf-8")


def _days(project: Project, first: int, ask: str, fix: str) -> None:
    for n in range(first, first + 6):
        _session(project, n, ask.format(n=10000 + n), fix.format(n=10000 + n))


def _night(project: Project, day: int, **extra: Any) -> NightReport:
    overrides = {
        "homes.claude": str(project.home / ".claude"),
        "night.sources": "claude",
        "night.since": "3650d",
        "mine.embedder": "tfidf",
        "train.workers": 1,
        **extra,
    }
    config = load_config(project.path, overrides)
    return run_night(project.path, config, home=project.home, now=START + timedelta(days=day))


def _description(text: str) -> str:
    return frontmatter_fields(text)["description"]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    path, home = tmp_path / "dev" / "work", tmp_path / "home"
    path.mkdir(parents=True)
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(path))
    folder.mkdir(parents=True)
    made = Project(path, home, folder)
    _days(made, 0, SUMMARY, SUMMARY_FIX)
    first = _night(made, 6)
    assert first.proposal and first.changes[0].path == str(made.managed)
    adopt(made.path, first.proposal, home=home)
    assert "summarize arxiv paper" in _description(made.managed.read_text()).lower()
    _days(made, 6, MANIFEST, MANIFEST_FIX)
    return made


def _spy(monkeypatch: pytest.MonkeyPatch, *, learn: bool = True) -> list[tuple[str, Any]]:
    """Record each file's starting text and result; ``learn=False``: every edit is rejected."""
    import skillopt_sleep.engine.night as night

    seen: list[tuple[str, Any]] = []
    original = night.consolidate

    def spy(base_text: str, *args: Any, **kwargs: Any) -> Any:
        result = original(base_text, *args, **kwargs)
        if not learn:
            result = replace(result, proposed_text=base_text, accepted=())
        seen.append((base_text, result))
        return result

    monkeypatch.setattr(night, "consolidate", spy)
    return seen


def test_a_later_nights_task_is_named_and_the_gate_saw_that_text(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = project.managed.read_bytes()
    seen = _spy(monkeypatch)
    report = _night(project, 12)
    assert report.proposal, report.message
    (change,) = [c for c in report.changes if c.path == str(project.managed)]
    staged = (Path(report.proposal_dir) / change.staged_file).read_text(encoding="utf-8")
    said = _description(staged).lower()
    assert "deployment manifest" in said and "summarize arxiv paper" in said
    assert len(_description(staged)) <= DESCRIPTION_LIMIT
    (base_text, result) = next(s for s in seen if "deployment manifest" in s[0])
    assert staged == result.proposed_text  # what the gate validated is what is staged
    assert _description(base_text) == _description(staged)

    adopt(project.path, report.proposal, home=project.home)
    assert project.managed.read_text(encoding="utf-8") == staged
    rollback(project.path, report.proposal)
    assert project.managed.read_bytes() == before


def test_a_description_edited_after_staging_is_drift(project: Project) -> None:
    report = _night(project, 12)
    assert report.proposal
    live = project.managed.read_text(encoding="utf-8")
    edited = live.replace("Use when the request resembles:", "Use for:", 1)
    assert edited != live
    project.managed.write_text(edited, encoding="utf-8")
    with pytest.raises(DriftError):
        adopt(project.path, report.proposal, home=project.home)
    project.managed.write_text(live, encoding="utf-8")
    adopt(project.path, report.proposal, home=project.home)
    adopted = project.managed.read_text(encoding="utf-8")
    project.managed.write_text(adopted.replace("resembles:", "looks like:", 1), encoding="utf-8")
    with pytest.raises(DriftError):
        rollback(project.path, report.proposal)


def test_a_night_that_learns_nothing_stages_no_new_description(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = project.managed.read_bytes()
    seen = _spy(monkeypatch, learn=False)
    report = _night(project, 12)
    assert any("deployment manifest" in _description(base).lower() for base, _ in seen)
    assert not [c for c in report.changes if c.path == str(project.managed)]
    assert project.managed.read_bytes() == before


def test_a_user_skill_keeps_its_description_even_in_the_engines_words(tmp_path: Path) -> None:
    path, home = tmp_path / "dev" / "work", tmp_path / "home"
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(path))
    folder.mkdir(parents=True)
    made = Project(path, home, folder)
    mine = path / ".claude" / "skills" / "papers" / "SKILL.md"
    mine.parent.mkdir(parents=True)
    frontmatter = (
        '---\nname: papers\ndescription: "Procedures learned overnight by SkillOpt-Sleep from '
        "this project's recurring requests. Use when the request resembles: summarize arXiv "
        'paper summaries for the reading group"\n---\n'
    )
    mine.write_text(f"{frontmatter}\n# Papers\n\nMy own notes.\n", encoding="utf-8")
    _days(made, 0, SUMMARY, SUMMARY_FIX)
    report = _night(made, 6)
    (change,) = report.changes
    assert change.path == str(mine)
    staged = (Path(report.proposal_dir) / change.staged_file).read_text(encoding="utf-8")
    assert staged.startswith(frontmatter) and staged != mine.read_text(encoding="utf-8")
    assert not made.managed.exists()
