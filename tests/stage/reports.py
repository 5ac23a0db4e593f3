"""Night reports for the report tests: a realistic staged night, a quiet one, and hostile text.

Built from the engine's own records so a field renamed there breaks these tests loudly.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

from skillopt_sleep.engine.records import (
    EditView,
    FamilyView,
    HeldOut,
    NightReport,
    SkillChange,
    Usage,
)

HOSTILE = (
    '<script>alert("x")</script></pre><b onmouseover="x()">bold</b> & `tick` | pipe ünïcødé 🌙'
)

SKILL = "/home/dev/webapp/.claude/skills/release-notes/SKILL.md"
MEMORY = "/home/dev/webapp/CLAUDE.md"

DIFF = """\
--- /home/dev/webapp/.claude/skills/release-notes/SKILL.md
+++ /home/dev/webapp/.claude/skills/release-notes/SKILL.md
@@ -1,6 +1,9 @@
 ---
 name: release-notes
 description: Write release notes from merged PRs
 ---
 # Release notes
-Summarise every PR.
+Group PRs by area (API, UI, infra) and lead with breaking changes.
+Link each item to its PR number, e.g. (#123).
+Never include internal ticket ids <JIRA-1>.
 Keep it short.
--- /dev/null
+++ /home/dev/webapp/CLAUDE.md
@@ -0,0 +1,2 @@
+# Project notes
+Run `make test` before proposing a commit.
"""


def steps(n: int) -> tuple[dict[str, Any], ...]:
    """``n`` trainer history records shaped like ``skillopt_core.optim.trainer`` writes them."""
    out: list[dict[str, Any]] = []
    current = 0.4
    for step in range(n):
        record: dict[str, Any] = {
            "step": step,
            "epoch": step // 4,
            "train_hard": round(0.3 + 0.5 * step / max(1, n), 3),
            "accepted": False,
        }
        if step % 5 == 4:
            record["decision"] = "no edits to try"
        else:
            candidate = round(min(1.0, current + (0.1 if step % 2 == 0 else -0.05)), 3)
            record.update(val_current=current, val_candidate=candidate)
            if candidate > current:
                record.update(accepted=True, decision="accepted: strictly better")
                current = candidate
            else:
                record["decision"] = "rejected: not better"
        out.append(record)
    return tuple(out)


def staged_night(
    *, step_count: int = 6, history_nights: int = 4, held: HeldOut | None = None
) -> NightReport:
    """A realistic staged night: two families, two changed files, accepted/rejected/harmful."""
    families = (
        FamilyView(
            id="release-notes",
            size=7,
            examples=(
                "write the release notes for v2.3 from the merged PRs",
                "draft release notes for this week's merges, group by area",
                "can you summarise what changed since v2.2 for the changelog?",
            ),
            judged_by="checks",
            checks=("contains: ## Breaking changes", "regex: \\(#\\d+\\)", "not_contains: JIRA-"),
            skill=SKILL,
            new_tonight=3,
            outcomes={"corrected": 2, "thanked": 3, "retried": 1},
        ),
        FamilyView(
            id="run-tests",
            size=4,
            examples=("run the tests and fix whatever fails",),
            judged_by="rubric",
            checks=(),
            skill=MEMORY,
        ),
    )
    changes = (
        SkillChange(
            path=SKILL,
            kind="skill",
            created=False,
            live_sha256="a" * 64,
            proposed_sha256="b" * 64,
            staged_file="files/00-release-notes-SKILL.md",
            accepted_edits=2,
            val_before=0.4,
            val_after=0.7,
            val_tasks=10,
            gate_split="val",
            steps=steps(step_count),
        ),
        SkillChange(
            path=MEMORY,
            kind="memory",
            created=True,
            live_sha256="",
            proposed_sha256="c" * 64,
            staged_file="files/01-webapp-CLAUDE.md",
            accepted_edits=1,
            val_before=0.5,
            val_after=0.75,
            val_tasks=2,
            gate_split="train",
            steps=steps(2),
        ),
    )
    edits = (
        EditView(
            SKILL,
            "replace",
            "Summarise every PR.",
            "Group PRs by area (API, UI, infra).",
            "three corrections asked for grouping",
            0,
            True,
            0.1,
        ),
        EditView(
            SKILL,
            "add",
            "Keep it short.",
            "Link each item to its PR number, e.g. (#123).",
            "users added PR links by hand",
            2,
            True,
            0.2,
        ),
        EditView(
            MEMORY,
            "add",
            "",
            "Run `make test` before proposing a commit.",
            "tool errors from untested commits",
            0,
            True,
            0.25,
        ),
        EditView(SKILL, "delete", "Keep it short.", "", "one long request", 1, False, -0.05),
        EditView(
            SKILL,
            "add",
            "",
            "Always include every commit message verbatim.",
            "one user pasted commits",
            3,
            False,
            -0.3,
            harmful=True,
        ),
    )
    tonight = datetime(2026, 11, 23, 3, 17, tzinfo=timezone.utc)
    history = tuple(
        {
            "night_id": (tonight - timedelta(days=history_nights - i)).strftime("%Y%m%d-%H%M%S"),
            "held_out_before": round(0.4 + 0.2 * i / max(1, history_nights), 3),
            "held_out_after": round(0.45 + 0.2 * i / max(1, history_nights), 3),
        }
        for i in range(history_nights)
    )
    return NightReport(
        night_id="20261123-031700",
        project="/home/dev/webapp",
        started_at="2026-11-23T03:17:00+00:00",
        finished_at="2026-11-23T03:21:42+00:00",
        dry_run=False,
        outcome="staged",
        message="3 edit(s) passed the gate",
        sessions=42,
        requests=118,
        tasks=31,
        families=families,
        changes=changes,
        edits=edits,
        held_out=held
        if held is not None
        else HeldOut(before=0.5, after=0.7, n=12, ci_low=0.05, ci_high=0.35, verdict="better"),
        usage=Usage(calls=1234, input_tokens=2_345_678, output_tokens=123_456, cost_usd=0.4321),
        proposal="20261123-031700",
        proposal_dir="/home/dev/.local/state/skillopt-sleep/webapp/staging/20261123-031700",
        stage_seconds={"harvest": 0.12, "mine": 3.4, "replay": 61.0, "consolidate": 140.2},
        embedder="tfidf",
        backends={"target": "mock:target", "optimizer": "mock:optimizer"},
        history=history,
    )


def quiet_night() -> NightReport:
    """Nothing new: no families, changes, edits, held-out tasks or history."""
    return replace(
        staged_night(),
        outcome="nothing new",
        message="no new sessions",
        families=(),
        changes=(),
        edits=(),
        held_out=None,
        usage=Usage(),
        proposal="",
        proposal_dir="",
        stage_seconds={},
        backends={},
        embedder="",
        history=(),
    )


def hostile_night() -> NightReport:
    """Every user- or model-written field carries markup that must not survive unescaped."""
    base = staged_night()
    family = replace(
        base.families[0],
        id=HOSTILE,
        examples=(HOSTILE, "```\n# not a heading\n```"),
        checks=(f"contains: {HOSTILE}",),
        judged_by=HOSTILE,
        outcomes={HOSTILE: 1},
    )
    edit = replace(base.edits[0], anchor=HOSTILE, content=f"````\n{HOSTILE}\n", rationale=HOSTILE)
    return replace(
        base,
        project=HOSTILE,
        message=HOSTILE,
        families=(family,),
        edits=(edit, replace(edit, accepted=False, harmful=True, delta=-0.2)),
        history=({"night_id": HOSTILE, "held_out_before": 0.2, "held_out_after": 0.3},),
        backends={"target": HOSTILE},
    )


_REQUEST = (
    "in the {area} package, {verb} so that the {thing} no longer breaks when the input is empty "
    "or has trailing whitespace; keep the public API as it is, add a regression test next to the "
    "existing ones in tests/{area}/, run the whole suite with `make test`, and summarise what "
    "you changed and why in two or three sentences for the pull request description (request {n})"
)
_AREAS = ("billing", "auth", "search", "exports", "notifications", "admin", "reports")
_VERBS = ("fix the parser", "refactor the loader", "harden the validator", "rewrite the cache")


def many_families(n: int, *, base: NightReport | None = None) -> NightReport:
    """``staged_night`` over ``n`` families whose cards are as long as real ones (three requests
    of about 400 characters, three checks, outcomes): the size a busy project mines."""
    night = base or staged_night()
    families = tuple(
        FamilyView(
            id=f"{_AREAS[i % len(_AREAS)]}-{_VERBS[i % len(_VERBS)].split()[-1]}-{i:03d}",
            size=2 + (i * 7) % 23,
            examples=tuple(
                _REQUEST.format(
                    area=_AREAS[(i + k) % len(_AREAS)],
                    verb=_VERBS[(i + k) % len(_VERBS)],
                    thing=("config", "query", "payload")[k],
                    n=f"{i}.{k}",
                )
                for k in range(3)
            ),
            judged_by=("checks", "rubric", "corrections")[i % 3],
            checks=(
                f"contains: tests/{_AREAS[i % len(_AREAS)]}/",
                "regex: def test_\\w+_empty",
                "not_contains: TODO",
            ),
            skill=(SKILL, MEMORY, "/home/dev/webapp/.claude/skills/other/SKILL.md")[i % 3],
            new_tonight=i % 4,
            outcomes={"corrected": i % 3, "failed": int(i % 5 == 0), "thanked": 1},
        )
        for i in range(n)
    )
    return replace(night, families=families, requests=sum(f.size for f in families))
