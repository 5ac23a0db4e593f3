"""The nightly engine's library API: the one place a night is composed.

    from skillopt_sleep.engine import load_config, run_night, status, adopt, reject, rollback

    report = run_night("/path/to/project", load_config("/path/to/project"))
    adopt("/path/to/project", report.proposal)

Every front end (the ``skillopt-sleep`` CLI, the scheduler and daemon, the MCP server, the harness
plugins, the experiments) calls these functions and adds no logic of its own. They never print;
errors are :mod:`skillopt_core.errors` classes that carry their exit code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillopt_core.errors import SkillOptError, exit_code_for
from skillopt_sleep.engine.api import (
    adopt,
    list_proposals,
    read_report,
    reject,
    report_path,
    rollback,
    status,
    three_way_diff,
)
from skillopt_sleep.engine.config import ConfigError, SleepConfig, load_config
from skillopt_sleep.engine.preview import preview_families, preview_sessions
from skillopt_sleep.engine.records import (
    AdoptResult,
    EditView,
    FamilyView,
    HeldOut,
    NightReport,
    NightSummary,
    Proposal,
    SkillChange,
    StagedReport,
    Status,
)
from skillopt_sleep.engine.state import ProjectState

if TYPE_CHECKING:
    from skillopt_sleep.engine.night import Progress, run_night


def __getattr__(name: str) -> Any:
    """``run_night`` loads the pipeline (numpy, the miner, the optimizer) only when first used,
    so `status`, `adopt` and the MCP server's light tools stay fast."""
    if name in ("run_night", "Progress"):
        from skillopt_sleep.engine import night

        return getattr(night, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AdoptResult",
    "ConfigError",
    "EditView",
    "FamilyView",
    "HeldOut",
    "NightReport",
    "NightSummary",
    "Progress",
    "ProjectState",
    "Proposal",
    "SkillChange",
    "SkillOptError",
    "SleepConfig",
    "StagedReport",
    "Status",
    "adopt",
    "exit_code_for",
    "list_proposals",
    "load_config",
    "preview_families",
    "preview_sessions",
    "read_report",
    "reject",
    "report_path",
    "rollback",
    "run_night",
    "status",
    "three_way_diff",
]
