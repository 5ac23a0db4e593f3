"""Deployment-shaped splits: does the skill help the *next* time a task comes up?

Within a family, requests are ordered by first sighting: the earliest train, later ones validate,
the latest held-out share tests. Splits are sticky — a request keeps the split it was given on an
earlier night, so no request text ever moves between splits — and new requests fill whatever the
family's targets are short of, latest-first into test and validation. Families smaller than
``min_eval_size`` only train. Pure and deterministic: same inputs, same splits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from skillopt_sleep.records import Split


@dataclass(frozen=True)
class SplitPolicy:
    val_share: float = 0.25
    test_share: float = 0.15
    min_eval_size: int = 3  # below this a family only trains
    min_test_size: int = 6  # below this a family has no test share


@dataclass(frozen=True)
class Member:
    key: str  # text hash: one request text, however many times it was asked
    first_seen: datetime
    split: Split | None = None  # assigned on an earlier night


def targets(size: int, policy: SplitPolicy) -> dict[str, int]:
    if size < policy.min_eval_size:
        return {"train": size, "val": 0, "test": 0}
    test = max(1, math.floor(size * policy.test_share)) if size >= policy.min_test_size else 0
    val = max(1, math.floor(size * policy.val_share))
    return {"train": size - val - test, "val": val, "test": test}


def assign_family(members: Sequence[Member], policy: SplitPolicy) -> dict[str, Split]:
    """Splits for one family's requests; already-assigned requests keep theirs."""
    ordered = sorted(members, key=lambda m: (m.first_seen, m.key))
    want = targets(len(ordered), policy)
    result: dict[str, Split] = {m.key: m.split for m in ordered if m.split is not None}
    have = {name: sum(1 for s in result.values() if s == name) for name in ("train", "val", "test")}
    for member in reversed([m for m in ordered if m.split is None]):
        split: Split = "train"
        if have["test"] < want["test"]:
            split = "test"
        elif have["val"] < want["val"]:
            split = "val"
        result[member.key] = split
        have[split] += 1
    return result


def assign_splits(
    families: Mapping[str, Sequence[Member]], policy: SplitPolicy | None = None
) -> dict[str, Split]:
    """Splits for every family's requests, keyed by request text hash."""
    policy = policy or SplitPolicy()
    out: dict[str, Split] = {}
    for family in sorted(families):
        out.update(assign_family(families[family], policy))
    return out
