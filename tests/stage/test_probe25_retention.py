"""Retention over months: adopted proposals are pruned too, but never the one that can still
undo a live file, and never the text a forced rollback kept for the user.

Before, adopted proposals were never removed (a user who adopts every night kept every night's
staging and backups for good), and pruning a settled proposal removed its whole backup folder,
the ``NN.at-rollback`` file the forced rollback had told the user their changed text was kept
in included."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.engine import ProjectState, adopt, list_proposals, reject, rollback
from skillopt_sleep.stage.proposal import FileChange, stage
from skillopt_sleep.stage.retention import KEEP_ADOPTED, KEEP_SETTLED


def _night(night: int) -> str:
    return f"2026{night // 28 + 1:02d}{night % 28 + 1:02d}-030000"


def _stage(night: int, *skills: Path) -> str:
    changes = [
        FileChange(s, "skill", s.read_bytes(), f"{s.read_text()}advice {night}\n", 1)
        for s in skills
    ]
    stage(ProjectState(skills[0].parents[3]), _night(night), changes, {})
    return _night(night)


def _states(project: Path) -> dict[str, str]:
    return {p.id: p.state for p in list_proposals(project)}


def test_adopting_every_night_keeps_a_bounded_history_and_every_files_last_adopt(
    skill: Path, old: bytes
) -> None:
    project = skill.parents[3]
    other = skill.parents[1] / "t" / "SKILL.md"
    other.parent.mkdir()
    other.write_bytes(old)
    once = _stage(0, other)  # adopted once, never adopted over: its undo stays
    adopt(project, once)
    nights = []
    for n in range(1, KEEP_ADOPTED + 4):
        nights.append(_stage(n, skill))
        adopt(project, nights[-1])

    states = _states(project)
    adopted = [n for n, s in states.items() if s == "adopted"]
    assert adopted == [once, *nights[-KEEP_ADOPTED:]]
    backups = ProjectState(project).root / "backups"
    assert sorted(p.name for p in backups.iterdir() if p.name != "by-sha256") == adopted
    rollback(project, once)  # the one undo of that file still works
    assert other.read_bytes() == old
    for night in reversed(nights[-KEEP_ADOPTED:]):  # and the newest adopts, one by one
        rollback(project, night)
    assert skill.read_text().endswith(f"advice {len(nights) - KEEP_ADOPTED}\n")


def test_the_text_a_forced_rollback_kept_outlives_its_proposal(skill: Path) -> None:
    project = skill.parents[3]
    first = _stage(0, skill)
    adopt(project, first)
    skill.write_bytes(skill.read_bytes() + b"my own note\n")
    mine = skill.read_bytes()
    result = rollback(project, first, force=True)
    kept = Path(result.backup_dir) / "00.at-rollback"
    assert kept.read_bytes() == mine and str(kept.parent) in result.message

    for night in range(1, KEEP_SETTLED + 5):  # many rejected nights: first is pruned
        reject(project, _stage(night, skill))
    assert first not in _states(project)
    assert kept.read_bytes() == mine
    assert sorted(p.name for p in kept.parent.iterdir()) == ["00.at-rollback"]


def test_a_proposal_superseded_by_an_adopt_pruned_for_its_age_stays_superseded(
    skill: Path, old: bytes
) -> None:
    """``after_stage`` offered again a superseded proposal whose superseding one was gone (meant
    for a killed night's proposal): with old adopts pruned, a months-old proposal made from
    text long replaced would have turned pending again."""
    project = skill.parents[3]
    other = skill.parents[1] / "t" / "SKILL.md"
    other.parent.mkdir()
    other.write_bytes(old)
    both = _stage(0, skill, other)
    first = _stage(1, skill)
    adopt(project, first)
    assert _states(project)[both] == "superseded"
    night = 1
    while first in _states(project):  # until pruned: neither newest nor any file's last adopt
        night += 1
        adopt(project, _stage(night, skill))
    assert night == KEEP_ADOPTED + 1
    _stage(night + 1, skill)
    assert _states(project)[both] == "superseded"


def test_a_files_newest_adopt_is_the_last_adopted_not_the_last_staged(tmp_path: Path) -> None:
    """A proposal staged earlier can be adopted later (``adopt --force`` over one whose adopt
    failed to mark it superseded): it, not the higher id, is the file's undo and must stay.
    Before, retention took the highest id (found by a review)."""
    from skillopt_sleep.stage.retention import _old_adopts

    def adopted(night: int, at: str, path: str) -> tuple[Path, dict[str, object]]:
        files = [{"live_path": path, "live_sha256": ""}]
        return tmp_path / _night(night), {"state": "adopted", "adopted_at": at, "files": files}

    late = adopted(0, "2026-12-31T03:00:00+00:00", "/p/SKILL.md")  # staged first, adopted last
    others = [
        adopted(n, f"2026-01-{n:02d}T03:00:00+00:00", f"/p/{n}.md") for n in range(1, KEEP_ADOPTED)
    ]
    over = adopted(KEEP_ADOPTED, "2026-02-01T03:00:00+00:00", "/p/SKILL.md")
    assert late[0] not in _old_adopts([late, *others, over])
