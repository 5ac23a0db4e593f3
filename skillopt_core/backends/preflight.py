"""Preflight: how many calls and tokens a run will need, and whether its budget allows that.

The caller (a dry run) describes the run as groups of similar calls — e.g. "target, rollout,
240 calls, ~6 000 prompt characters, up to 1 024 output tokens" — and gets the same upper-bound
arithmetic the ledger uses before each real call, so the dry run and the run agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from skillopt_core.backends.budget import CHARS_PER_TOKEN_BOUND, MESSAGE_OVERHEAD_TOKENS, Budget
from skillopt_core.backends.pricing import FREE, Price


@dataclass(frozen=True)
class CallGroup:
    role: str
    purpose: str
    calls: int
    prompt_chars: int
    max_output_tokens: int
    messages: int = 2

    @property
    def input_tokens_per_call(self) -> int:
        return (
            -(-self.prompt_chars // CHARS_PER_TOKEN_BOUND) + MESSAGE_OVERHEAD_TOKENS * self.messages
        )


@dataclass(frozen=True)
class GroupEstimate:
    group: CallGroup
    input_tokens: int
    output_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class PreflightEstimate:
    groups: tuple[GroupEstimate, ...]

    @property
    def calls(self) -> int:
        return sum(g.group.calls for g in self.groups)

    @property
    def input_tokens(self) -> int:
        return sum(g.input_tokens for g in self.groups)

    @property
    def output_tokens(self) -> int:
        return sum(g.output_tokens for g in self.groups)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def cost_usd(self) -> float:
        return sum(g.cost_usd for g in self.groups)

    def over_budget(self, budget: Budget) -> list[str]:
        """Each limit the run would hit at its worst case (empty when it fits)."""
        problems = []
        if budget.max_calls is not None and self.calls > budget.max_calls:
            problems.append(f"needs up to {self.calls} calls; --max-calls is {budget.max_calls}")
        if budget.max_tokens is not None and self.total_tokens > budget.max_tokens:
            problems.append(
                f"needs up to {self.total_tokens} tokens; --max-tokens is {budget.max_tokens}"
            )
        if budget.max_usd is not None and self.cost_usd > budget.max_usd:
            problems.append(
                f"may cost up to ${self.cost_usd:.2f}; --max-usd is ${budget.max_usd:.2f}"
            )
        return problems

    def lines(self) -> list[str]:
        """A small table for a dry run's output."""
        rows = [
            f"{'role':<10} {'purpose':<14} {'calls':>7} {'tokens in':>11} {'tokens out':>11} {'USD':>9}"
        ]
        for g in self.groups:
            rows.append(
                f"{g.group.role:<10} {g.group.purpose:<14} {g.group.calls:>7} "
                f"{g.input_tokens:>11} {g.output_tokens:>11} {g.cost_usd:>9.4f}"
            )
        rows.append(
            f"{'total':<25} {self.calls:>7} {self.input_tokens:>11} {self.output_tokens:>11} "
            f"{self.cost_usd:>9.4f}"
        )
        return rows


def preflight(
    groups: Iterable[CallGroup], prices: Mapping[str, Price] | None = None
) -> PreflightEstimate:
    """Upper-bound totals for ``groups``; ``prices`` maps role -> price (free when absent)."""
    estimates = []
    for group in groups:
        price = (prices or {}).get(group.role, FREE)
        tokens_in = group.calls * group.input_tokens_per_call
        tokens_out = group.calls * group.max_output_tokens
        estimates.append(
            GroupEstimate(group, tokens_in, tokens_out, price.cost(tokens_in, tokens_out))
        )
    return PreflightEstimate(tuple(estimates))


def role_prices(roles: object) -> dict[str, Price]:
    """Prices of the role backends that :func:`open_roles` returned (free for unmanaged ones)."""
    return {
        role: getattr(getattr(roles, role, None), "price", FREE) for role in ("optimizer", "target")
    }
