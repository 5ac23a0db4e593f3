"""A developer's days as Claude Code transcripts, written one day at a time, and nights on a
simulated clock: months of nightly use, cheaply.

Each day has a session per recurring task, each corrected the way that task is always corrected,
so every night has failures to learn from; a new task joins every few days, as a developer's
work changes.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from skillopt_sleep.engine import NightReport, load_config, run_night
from tests.engine._history import _record

START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
TASKS = (  # (request, correction): the correction states what the answer must have
    ("summarize arXiv paper 2401.{n} for the reading group",
     "no, add a Summary section at the end"),
    ("write a deployment manifest for the billing-{n} service",
     "no, you forgot - include the resource limits"),
    ("draft the incident postmortem for outage {n}",
     "no, add a Timeline section"),
    ("write release notes for version 3.{n}",
     "wrong format - name the release version like v3.1.0"),
)  # fmt: skip


@dataclass
class Developer:
    """One project's developer: ``day(n)`` writes day ``n``'s sessions, ``night(n)`` runs the
    night after it on the simulated clock."""

    root: Path
    new_task_every: int = 3

    def __post_init__(self) -> None:
        self.project = self.root / "dev" / "work"
        self.project.mkdir(parents=True, exist_ok=True)
        self.claude = self.root / "home" / ".claude"
        folder = re.sub(r"[^A-Za-z0-9]", "-", str(self.project))
        self.folder = self.claude / "projects" / folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.sessions = 0

    def overrides(self, **extra: Any) -> dict[str, Any]:
        return {
            "homes.claude": str(self.claude),
            "night.sources": "claude",
            "night.since": "3650d",
            "mine.embedder": "tfidf",
            "train.workers": 1,
            **extra,
        }

    def day(self, n: int) -> None:
        tasks = TASKS[: min(len(TASKS), 1 + n // self.new_task_every)]
        for number, (ask, fix) in enumerate(tasks):
            when = START + timedelta(days=n, hours=number)
            self._session(when, ask.format(n=10000 + n), fix)

    def night(self, n: int, **extra: Any) -> NightReport:
        config = load_config(self.project, self.overrides(**extra))
        when = START + timedelta(days=n + 1, hours=-6)
        return run_night(self.project, config, home=self.root / "home", now=when)

    def _session(self, when: datetime, ask: str, fix: str) -> None:
        self.sessions += 1
        sid = str(uuid.UUID(int=self.sessions))
        user = _record("user", sid, self.project, when, None, {"role": "user", "content": ask})
        reply = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
        records = [user, _record("assistant", sid, self.project, when, user["uuid"], reply)]
        later = when + timedelta(minutes=1)
        message = {"role": "user", "content": fix}
        records.append(_record("user", sid, self.project, later, records[-1]["uuid"], message))
        text = "".join(json.dumps(r) + "\n" for r in records)
        (self.folder / f"{sid}.jsonl").write_text(text, encoding="utf-8")
