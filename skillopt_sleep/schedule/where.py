"""Where a project's schedule files live: the record of what was written and the log.

These are ``ProjectState(project).schedule_path`` and ``.logs_dir`` of
:mod:`skillopt_sleep.engine.state` (a test keeps them equal). They are derived here from
:func:`skillopt_sleep.paths.project_state_dir` because importing the engine costs a third of a
second (pydantic, numpy) and ``status`` calls :func:`skillopt_sleep.schedule.schedule_info`,
which must stay instant.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from skillopt_sleep.paths import project_key, project_state_dir

RECORD_NAME = "schedule.json"
LOGS_NAME = "logs"
LOG_NAME = "night.log"
WINDOWS_SCRIPT_NAME = "run-night.cmd"


@dataclass(frozen=True)
class ScheduleFiles:
    key: str
    state_dir: Path

    @classmethod
    def for_project(cls, project: str | os.PathLike[str]) -> ScheduleFiles:
        root = Path(project).expanduser().resolve()
        return cls(project_key(root), project_state_dir(root))

    @property
    def record(self) -> Path:
        return self.state_dir / RECORD_NAME

    @property
    def logs_dir(self) -> Path:
        return self.state_dir / LOGS_NAME

    @property
    def log(self) -> Path:
        return self.logs_dir / LOG_NAME

    @property
    def windows_script(self) -> Path:
        return self.state_dir / WINDOWS_SCRIPT_NAME
