"""The schema of the nightly engine's configuration: one pydantic model per TOML section.

Every section forbids unknown keys, takes TOML's types strictly and refuses non-finite numbers;
:mod:`.config_layers` checks each layer's shape against it and :mod:`.config` validates the merge.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from skillopt_core.errors import UsageError


class ConfigError(UsageError):
    """A configuration value we cannot use; the message names where it came from."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class BackendsSection(_Section):
    optimizer: str = "mock"
    target: str = "mock"
    judge: str = ""  # rubric judge role; "" = rule checks only
    options: dict[str, Any] = Field(default_factory=dict)


class NightSection(_Section):
    sources: list[str] = Field(default_factory=lambda: ["claude", "codex", "copilot"])
    since: str = "30d"  # how far back before the first night the nights read (gather.window)
    max_tasks: int = Field(24, ge=1)
    samples: int = Field(2, ge=1)  # K replays per task
    min_val_tasks: int = Field(2, ge=1)
    auto_adopt: bool = False
    memory: bool = False  # also improve the harness memory file (CLAUDE.md / AGENTS.md / ...)
    learned_skill_dir: str = ""  # where the managed learned skill lives ("" = by harness)
    seed: int = 0


class BudgetSection(_Section):
    max_calls: int = Field(400, ge=0)  # 0 = no limit
    max_tokens: int = Field(0, ge=0)
    max_usd: float = Field(0.0, ge=0.0)


class MineSection(_Section):
    embedder: str = "auto"
    min_family_size: int = Field(2, ge=1)
    recall_k: int = Field(3, ge=0)
    families: bool = True  # false (an ablation): every request is its own task, no recurrence
    confirm_budget: int = Field(8, ge=0)  # optimizer calls that may confirm or split families


class TrainSection(_Section):
    minibatch_size: int = Field(8, ge=1)
    lr_max: int = Field(4, ge=1)
    lr_min: int = Field(2, ge=1)
    gate_metric: Literal["hard", "soft", "mixed"] = "hard"
    slow_update: bool = True
    meta: bool = True
    workers: int = Field(4, ge=1, le=64)  # as skillopt_core.config.MAX_WORKERS
    gate: bool = True  # false (an ablation): every candidate is accepted
    buffer: bool = True  # false (an ablation): rejected edits are forgotten between nights
    credit: bool = True  # re-gate a rejected bundle's edits alone before blaming them
    # The learned text's size budget: read into every session that loads the skill, it must
    # not grow night after night; past it only edits that keep or cut its length pass (0 = none).
    max_learned_chars: int = Field(8000, ge=0)


class ScheduleSection(_Section):
    at: str = Field("03:17", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")


class HomesSection(_Section):
    claude: str = ""
    codex: str = ""
    copilot: str = ""
    vscode: str = ""


class SleepSettings(_Section):
    backends: BackendsSection = Field(default_factory=BackendsSection)
    night: NightSection = Field(default_factory=NightSection)
    budget: BudgetSection = Field(default_factory=BudgetSection)
    mine: MineSection = Field(default_factory=MineSection)
    train: TrainSection = Field(default_factory=TrainSection)
    schedule: ScheduleSection = Field(default_factory=ScheduleSection)
    homes: HomesSection = Field(default_factory=HomesSection)


# The trust boundary. A project's own config file (<project>/.skillopt-sleep/config.toml) may
# come with a cloned repository, and a tool call's arguments are chosen by a model: neither is
# the user's hand. Keys that widen where data goes, what runs, what is written or what is spent
# are taken from those layers only when they do not widen anything (or, for the project file,
# when the user trusted that project's file as it is: `skillopt-sleep config trust`).
BACKEND_KEYS: frozenset[str] = frozenset(
    {"backends.optimizer", "backends.target", "backends.judge"}
)
"""The keys that name a backend (``NAME`` or ``NAME:MODEL``). Its ``NAME`` is the provider: who
is called and billed, with whichever key the user exports for it (``ANTHROPIC_API_KEY``)."""
USER_ONLY: frozenset[str] = frozenset(
    {
        *BACKEND_KEYS,  # the provider is the user's: only the model (after the colon) may change
        "backends.options",  # endpoints, keys, executables, arguments, env: PROJECT_OPTIONS only
        "night.auto_adopt",  # live files change with no one asking: false only
        "night.learned_skill_dir",  # where a night writes: a relative folder inside the project
        "budget.max_calls",  # a budget may only be lowered (0 = no limit is never lower)
        "budget.max_tokens",
        "budget.max_usd",
        "homes.claude",  # whose transcripts are read: "" (the usual place) only
        "homes.codex",
        "homes.copilot",
        "homes.vscode",
    }
)
PROJECT_OPTIONS: frozenset[str] = frozenset(
    {
        "model",
        "timeout",
        "deadline",
        "stream",
        "structured",
        "api",
        "api_version",
        "deployment",
        "health_prompt",
        "seed",
        "concurrency",
        "max_retries",
        "retry_base_s",
        "retry_cap_s",
    }
)
"""The ``[backends.options]`` keys (shared or in a role table) an untrusted layer may set: none
of them changes where a prompt goes, which credentials it carries, what program runs or what a
call is priced at. Any other key (``base_url``, ``api_key``, ``executable``, ``extra_args``,
``env``, ``dir``, ``prices``, a plugin's own keys, ...) is user-only."""
