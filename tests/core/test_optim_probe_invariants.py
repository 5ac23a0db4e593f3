"""Property tests of the SkillOpt loop's invariants (skillopt_core/optim), driven by hypothesis.

The world is a toy environment whose target and optimizer are pure functions of their request
(stateless, so a resumed run sees the same answers): an item passes when the skill carries its
rule and not its harm, or by a seeded coin; the optimizer proposes adds, deletes and replaces
from a small pool (so edits come back after they were rejected), sometimes in a malformed reply.
Every invariant is read back from the run's artifacts and re-checked with an independent,
uncached evaluator.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillopt_core.backends._protocol import BudgetExceeded, Completion, CompletionRequest, Usage
from skillopt_core.backends.budget import Budget, Ledger, Totals
from skillopt_core.backends.journal import read_journal
from skillopt_core.backends.managed import ManagedBackend
from skillopt_core.backends.runtime import Roles
from skillopt_core.config import TrainConfig, validate
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.gate import GatePolicy, learned_chars
from skillopt_core.optim.schedule import KINDS, LRSchedule
from skillopt_core.optim.trainer import Trainer
from skillopt_core.records import Item, Rollout, Score
from skillopt_core.rundir import RunDir

SEED_SKILL = "# Toy skill\n\nAnswer briefly.\nrule-0: check units.\n"
RULES = 4
HARMS = 3

# Six derandomized examples keep the file under 20 s; OPTIM_PROBE_EXAMPLES=120 for a deeper search
# (every property here held at 120 examples).
FAST = settings(
    max_examples=int(os.environ.get("OPTIM_PROBE_EXAMPLES", "6")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Durability is not under test here; a loaded disk's fsyncs would dominate the run time."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def _h(*parts: object) -> int:
    return int(hashlib.sha256(repr(parts).encode()).hexdigest()[:12], 16)


class ToyEnv:
    name = "toy"

    def __init__(self, n_train: int, n_val: int) -> None:
        self._items = {
            "train": [Item(f"t{i}", {"index": i}) for i in range(n_train)],
            "val": [Item(f"v{i}", {"index": i}) for i in range(n_val)],
            "test": [Item("x0", {"index": 0})],
        }

    def items(self, split: str) -> list[Item]:
        return self._items[split]

    def rollout(self, skill: str, item: Item, target: Any, sample: int = 0) -> Rollout:
        request = CompletionRequest.of(
            f"{item.id}\n{skill}",
            max_tokens=16,
            purpose="rollout",
            metadata={"skill": skill, "item": item.id, "index": item.get("index"), "s": sample},
        )
        completion = target.complete(request)
        return Rollout(item.id, completion.text, ({"role": "user", "content": item.id},))

    def score(self, item: Item, rollout: Rollout) -> Score:
        hard, soft = rollout.response.split()
        return Score(float(hard), float(soft), "ok" if hard == "1" else "wrong")


class Fn:
    """A stateless backend: its answer is a function of the request."""

    def __init__(self, name: str, answer: Callable[[CompletionRequest], str]) -> None:
        self.name, self.model, self.answer = name, f"{name}-1", answer

    def health_check(self) -> None:
        return None

    def complete(self, request: CompletionRequest) -> Completion:
        text = self.answer(request)
        return Completion(text=text, usage=Usage(len(request.prompt_text) // 4, 1), model="m")


def target_answer(seed: int) -> Callable[[CompletionRequest], str]:
    def answer(request: CompletionRequest) -> str:
        skill, index = request.metadata["skill"], int(request.metadata["index"])
        rule = f"rule-{index % RULES}" in skill and f"harm-{index % HARMS}" not in skill
        coin = _h(seed, skill, request.metadata["item"], request.metadata["s"]) % 5 == 0
        soft = (_h(seed, skill, request.metadata["item"]) % 101) / 100
        return f"{1 if rule or coin else 0} {soft}"

    return answer


def _pool(skill: str) -> list[dict[str, str]]:
    lines = [ln for ln in skill.splitlines() if ln.strip() and not ln.startswith(("#", "<!--"))]
    pool: list[dict[str, str]] = [
        {"op": "add", "anchor": "", "content": f"rule-{k}: apply rule {k}."} for k in range(RULES)
    ]
    pool += [{"op": "add", "anchor": "", "content": f"harm-{j}: shortcut {j}."} for j in range(2)]
    pool += [{"op": "delete", "anchor": ln} for ln in lines]
    pool += [{"op": "replace", "anchor": ln, "content": f"{ln} Be careful."} for ln in lines[:2]]
    return pool


def optimizer_answer(seed: int) -> Callable[[CompletionRequest], str]:
    def answer(request: CompletionRequest) -> str:
        meta = request.metadata
        if request.purpose == "reflect":
            key = (seed, meta["step"], meta["minibatch"], meta["skill"], meta.get("reask", 0))
            if _h("bad", *key) % 9 == 0:
                return "not json at all"
            pool = _pool(meta["skill"])
            picks = [pool[_h(*key, n) % len(pool)] for n in range(1 + _h(*key) % 4)]
            return json.dumps({"edits": [{**p, "rationale": "r"} for p in picks]})
        if request.purpose == "slow_update":
            k = _h(seed, meta["epoch"], meta["skill"]) % (RULES + 1)
            return "" if k == RULES else f"- remember rule-{k}"
        return f"notes {_h(seed, request.prompt_text) % 1000}"

    return answer


@dataclass(frozen=True)
class World:
    seed: int
    config: TrainConfig
    n_train: int
    n_val: int

    def env(self) -> ToyEnv:
        return ToyEnv(self.n_train, self.n_val)

    def backends(self) -> tuple[Fn, Fn]:
        return Fn("opt", optimizer_answer(self.seed)), Fn("tgt", target_answer(self.seed))

    def roles(self) -> Roles:
        optimizer, target = self.backends()
        return Roles(optimizer, target)

    def trainer(self, out: Path, roles: Roles | None = None) -> Trainer:
        return Trainer(self.config, self.env(), roles or self.roles(), RunDir(out), SEED_SKILL)


@st.composite
def worlds(draw: st.DrawFn, *, gated_slow: bool = True) -> World:
    kind = draw(st.sampled_from(KINDS))
    top = draw(st.integers(1, 4))
    lr = LRSchedule(kind, top, draw(st.integers(1, top)))
    gate = GatePolicy(
        metric=draw(st.sampled_from(["hard", "soft", "mixed"])),
        max_chars=draw(st.sampled_from([0, 0, 60, 90])),
        no_regression=draw(st.booleans()),
        min_delta=draw(st.sampled_from([0.0, 0.0, 0.1])),
    )
    config = TrainConfig(
        env="toy",
        epochs=draw(st.integers(1, 3)),
        batch_size=draw(st.integers(2, 5)),
        minibatch_size=draw(st.integers(1, 3)),
        eval_samples=draw(st.integers(1, 2)),
        workers=draw(st.sampled_from([1, 3])),
        seed=draw(st.integers(0, 3)),
        lr=lr,
        gate=gate,
        slow_update=draw(st.booleans()),
        slow_update_gated=True if gated_slow else draw(st.booleans()),
        meta_skill=draw(st.booleans()),
        credit=draw(st.booleans()),
    )
    return World(draw(st.integers(0, 10**6)), validate(config), draw(st.integers(3, 9)), 5)


# ---------------------------------------------------------------------------------------------
# Reading a finished run back


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def versions(out: Path) -> list[str]:
    files = sorted((out / "skills").glob("skill_v*.md"))
    assert [f.name for f in files] == [f"skill_v{i:04d}.md" for i in range(len(files))]
    return [f.read_text(encoding="utf-8") for f in files]


def val_metric(world: World, skill: str) -> float:
    _, target = world.backends()
    samples = world.config.eval_samples  # uncached, independent of the run:
    evaluator = Evaluator(world.env(), target, samples=samples, workers=1)
    gate = world.config.gate
    return evaluator.evaluate(skill, "val").metric(gate.metric, gate.mixed_weight)


def expected_budget(lr: LRSchedule, step: int, total: int) -> int:
    if lr.kind == "constant" or total <= 1:
        return lr.max_edits
    progress = step / (total - 1)
    fraction = 1 - progress if lr.kind == "linear" else (1 + math.cos(math.pi * progress)) / 2
    return lr.min_edits + math.floor((lr.max_edits - lr.min_edits) * fraction + 0.5)


def _key(edit: dict[str, Any]) -> tuple[str, str, str]:
    return (edit["op"], " ".join(edit["anchor"].split()), " ".join(edit["content"].split()))


def blocked_before(rejected: list[dict[str, Any]], step: int) -> set[tuple[str, str, str]]:
    counts: dict[tuple[str, str, str], int] = {}
    blocked = set()
    for entry in rejected:
        if entry["step"] >= step:
            continue
        key = _key(entry["edit"])
        counts[key] = counts.get(key, 0) + 1
        if entry["alone"] or counts[key] >= 2:
            blocked.add(key)
    return blocked


# ---------------------------------------------------------------------------------------------
# Invariants of one uninterrupted run


@FAST
@given(world=worlds())
def test_gate_lr_buffer_and_size_budget_hold_over_a_whole_run(
    world: World, tmp_path_factory: Any
) -> None:
    out = tmp_path_factory.mktemp("run")
    trainer = world.trainer(out)
    result = trainer.fit()
    history, total = result.history, trainer.total_steps
    state = _json(out / "runtime_state.json")
    skills = versions(out)

    # The gate: every version is strictly better on validation than the one it replaced, so the
    # accepted skill's validation score is monotone (strictly increasing) over the run.
    scores = [val_metric(world, s) for s in skills]
    for before, after in itertools.pairwise(scores):
        assert after > before, (scores, history)
    assert skills[-1] == result.best_skill == (out / "best_skill.md").read_text(encoding="utf-8")
    for record in history:
        if record["accepted"] and "credit" not in record:
            assert record["val_candidate"] > record["val_current"]
        assert record.get("val_candidate", 1) >= 0
    # Each step's recorded gate decision is strict as well.
    for gate_file in sorted((out / "steps").glob("*/gate.json")):
        decision = _json(gate_file)
        if decision["accepted"]:
            assert decision["candidate"] - decision["current"] > world.config.gate.min_delta

    # The textual learning rate: the documented schedule, never exceeded.
    for record in history:
        step = record["step"]
        budget = expected_budget(world.config.lr, step, total)
        assert record["lr_budget"] == budget
        assert budget == world.config.lr.budget(step, total)
        assert record["selected"] <= budget
        assert record.get("applied", 0) <= budget
        patches = _json(out / "steps" / f"step_{step:04d}" / "patches.json")
        assert len(patches["selected"]) <= budget == patches["budget"]
        taken = [e for e in state["accepted"] if e["step"] == step]
        assert len(taken) <= budget
        if "credit" in record:
            assert len(record["credit"]["singles"]) <= budget
    for step in range(total - 1):
        assert world.config.lr.budget(step, total) >= world.config.lr.budget(step + 1, total)
    if total > 1:
        assert world.config.lr.budget(0, total) == world.config.lr.max_edits
        if world.config.lr.kind != "constant":
            assert world.config.lr.budget(total - 1, total) == world.config.lr.min_edits

    # The rejected-edit buffer: an edit blocked before a step is never selected or accepted there.
    for record in history:
        step = record["step"]
        blocked = blocked_before(state["rejected"], step)
        patches = _json(out / "steps" / f"step_{step:04d}" / "patches.json")
        assert not {_key(e) for e in patches["selected"]} & blocked
        assert not {_key(e) for e in state["accepted"] if e["step"] == step} & blocked

    # The size budget: no version grows the learned text past max_chars.
    limit = world.config.gate.max_chars
    if limit:
        for older, newer in itertools.pairwise(skills):
            assert learned_chars(newer) <= max(limit, learned_chars(older))


# ---------------------------------------------------------------------------------------------
# Resume after an interruption at any backend call


class Interrupted(BaseException):
    """A kill at the k-th backend call (BaseException, like KeyboardInterrupt)."""


class Tripwire:
    def __init__(self, limit: int) -> None:
        self.limit, self.calls = limit, 0

    def wrap(self, inner: Fn) -> Fn:
        def answer(request: CompletionRequest) -> str:
            self.calls += 1
            if self.calls == self.limit:
                raise Interrupted
            return inner.answer(request)

        return Fn(inner.name, answer)


def run_files(out: Path) -> dict[str, bytes]:
    """Every file of a run directory, by relative path (the resumable result of the run)."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def count_calls(world: World, out: Path) -> int:
    counter = Tripwire(0)
    optimizer, target = world.backends()
    world.trainer(out, Roles(counter.wrap(optimizer), counter.wrap(target))).fit()
    return counter.calls


@FAST
@given(world=worlds(gated_slow=False), where=st.floats(0, 1))
def test_a_run_interrupted_at_any_call_resumes_byte_identical(
    world: World, where: float, tmp_path_factory: Any
) -> None:
    world = replace(world, config=replace(world.config, workers=1))
    straight = tmp_path_factory.mktemp("straight")
    calls = count_calls(world, straight)
    k = 1 + int(where * (calls - 1))
    resumed = tmp_path_factory.mktemp("resumed")
    trip = Tripwire(k)
    optimizer, target = world.backends()
    try:
        world.trainer(resumed, Roles(trip.wrap(optimizer), trip.wrap(target))).fit()
        raise AssertionError(f"call {k} of {calls} was never made")
    except Interrupted:
        pass
    world.trainer(resumed).fit()
    want, got = run_files(straight), run_files(resumed)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], f"{name} differs after resuming from call {k} of {calls}"


# ---------------------------------------------------------------------------------------------
# Hard call budget and the ledger's accounting


@FAST
@given(world=worlds(), max_calls=st.integers(1, 60), workers=st.sampled_from([1, 4]))
def test_the_call_budget_holds_and_the_ledger_equals_its_journal(
    world: World, max_calls: int, workers: int, tmp_path_factory: Any
) -> None:
    world = replace(world, config=replace(world.config, workers=workers))
    out = tmp_path_factory.mktemp("budget")
    journal = out / "ledger.jsonl"

    def managed(budget: Budget) -> Roles:
        ledger = Ledger(budget, journal=journal)
        optimizer, target = world.backends()
        return Roles(
            ManagedBackend(optimizer, ledger, role="optimizer"),
            ManagedBackend(target, ledger, role="target"),
            ledger,
        )

    roles = managed(Budget(max_calls=max_calls))
    result = world.trainer(out, roles).fit()
    assert roles.ledger.totals.calls <= max_calls
    summed = Totals()
    for record in read_journal(journal):
        summed = summed.plus(record)
    assert summed.calls == roles.ledger.totals.calls
    assert summed.total_tokens == roles.ledger.totals.total_tokens
    if result.stopped_reason:
        assert result.stopped_reason.startswith(("budget: ", "no usable edits"))

    # Resumed with a larger budget, the run's spend continues from the journal.
    more = managed(Budget(max_calls=max_calls + 40))
    assert more.ledger.carried.calls == roles.ledger.totals.calls
    world.trainer(out, more).fit()
    assert more.ledger.totals.calls <= max_calls + 40
    summed = Totals()
    for record in read_journal(journal):
        summed = summed.plus(record)
    assert summed.calls == more.ledger.totals.calls


# ---------------------------------------------------------------------------------------------
# What must not depend on order or on thread count


@FAST
@given(world=worlds(gated_slow=False))
def test_results_do_not_depend_on_the_number_of_workers(
    world: World, tmp_path_factory: Any
) -> None:
    one = tmp_path_factory.mktemp("one")
    many = tmp_path_factory.mktemp("many")
    replace(world, config=replace(world.config, workers=1)).trainer(one).fit()
    replace(world, config=replace(world.config, workers=4)).trainer(many).fit()
    want, got = run_files(one), run_files(many)
    want.pop("config.json"), got.pop("config.json")  # records the worker count
    assert got == want


@FAST
@given(seed=st.integers(0, 10**6), perm=st.permutations(range(5)), samples=st.integers(1, 2))
def test_an_evaluation_does_not_depend_on_the_order_of_the_items(
    seed: int, perm: list[int], samples: int
) -> None:
    env = ToyEnv(1, 5)
    shuffled = ToyEnv(1, 5)
    shuffled._items["val"] = [env.items("val")[i] for i in perm]
    target = Fn("tgt", target_answer(seed))
    one = Evaluator(env, target, samples=samples, workers=1).evaluate(SEED_SKILL, "val")
    two = Evaluator(shuffled, target, samples=samples, workers=3).evaluate(SEED_SKILL, "val")
    assert (one.hard, one.soft, one.n) == (two.hard, two.soft, two.n)
    assert one.per_item_hard == two.per_item_hard and one.per_item_soft == two.per_item_soft


# ---------------------------------------------------------------------------------------------
# A budget stop at any call, then a resume with more budget


class Spent(Tripwire):
    """The call budget runs out at the k-th call, as the ledger reports it."""

    def wrap(self, inner: Fn) -> Fn:
        def answer(request: CompletionRequest) -> str:
            self.calls += 1
            if self.calls >= self.limit:
                raise BudgetExceeded("call budget reached (test)")
            return inner.answer(request)

        return Fn(inner.name, answer)


@FAST
@given(world=worlds(gated_slow=False), where=st.floats(0, 1))
def test_a_run_stopped_by_its_budget_at_any_call_resumes_byte_identical(
    world: World, where: float, tmp_path_factory: Any
) -> None:
    world = replace(world, config=replace(world.config, workers=1))
    straight = tmp_path_factory.mktemp("straight")
    calls = count_calls(world, straight)
    k = 1 + int(where * (calls - 1))
    resumed = tmp_path_factory.mktemp("resumed")
    spent = Spent(k)
    optimizer, target = world.backends()
    stopped = world.trainer(resumed, Roles(spent.wrap(optimizer), spent.wrap(target))).fit()
    assert stopped.stopped_reason.startswith("budget: ")
    world.trainer(resumed).fit()
    want, got = run_files(straight), run_files(resumed)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], f"{name} differs after a budget stop at call {k}/{calls}"


# ---------------------------------------------------------------------------------------------
# A kill between the writes of a completed step


@FAST
@given(world=worlds(), at=st.integers(0, 5))
def test_a_kill_between_the_history_and_state_writes_resumes_without_a_duplicate_step(
    world: World, at: int, tmp_path_factory: Any
) -> None:
    straight = tmp_path_factory.mktemp("straight")
    total = world.trainer(straight).total_steps
    world.trainer(straight).fit()
    at = at % total
    out = tmp_path_factory.mktemp("killed")
    saved: dict[str, bytes] = {}

    def on_step(record: dict[str, Any]) -> None:
        state = out / "runtime_state.json"
        if record["step"] == at:
            # history.json already holds this step; the state write is what the kill prevents.
            if at == 0:
                state.unlink()
            else:
                state.write_bytes(saved["state"])
            raise Interrupted
        saved["state"] = state.read_bytes()

    trainer = Trainer(world.config, world.env(), world.roles(), RunDir(out), SEED_SKILL, on_step)
    with contextlib.suppress(Interrupted):
        trainer.fit()
    world.trainer(out).fit()
    history = _json(out / "history.json")
    assert [h["step"] for h in history] == list(range(total))
    assert history == _json(straight / "history.json")
    assert (out / "best_skill.md").read_bytes() == (straight / "best_skill.md").read_bytes()


# ---------------------------------------------------------------------------------------------
# Regressions: a budget that runs out part-way through a step's credit or an epoch close


class Sticky:
    """Like a ledger past its limit: from the first call ``trips`` matches, every call raises."""

    def __init__(self, trips: Callable[[CompletionRequest], bool]) -> None:
        self.trips, self.spent = trips, False

    def wrap(self, inner: Fn) -> Fn:
        def answer(request: CompletionRequest) -> str:
            self.spent = self.spent or self.trips(request)
            if self.spent:
                raise BudgetExceeded("call budget reached (test)")
            return inner.answer(request)

        return Fn(inner.name, answer)


def _good_bad_world(**overrides: Any) -> World:
    config = TrainConfig(
        env="toy",
        epochs=1,
        batch_size=2,
        minibatch_size=2,
        workers=1,
        lr=LRSchedule("constant", 2, 2),
        slow_update=False,
        meta_skill=False,
        credit=True,
    )
    return World(7, validate(replace(config, **overrides)), 2, 3)


def _good_bad_backends() -> tuple[Fn, Fn]:
    def optimizer(request: CompletionRequest) -> str:
        if request.purpose == "reflect":
            edits = [{"op": "add", "anchor": "", "content": c} for c in ("- good", "- bad")]
            return json.dumps({"edits": edits})
        if request.purpose == "slow_update":
            return f"- guidance {_h(request.metadata['skill']) % 7}"
        return "notes"

    def target(request: CompletionRequest) -> str:
        skill = request.metadata["skill"]
        return f"{int('- good' in skill and '- bad' not in skill)} 0.5"

    return Fn("opt", optimizer), Fn("tgt", target)


def _stopped_then_resumed(
    world: World, tmp_path: Path, trips: Callable[[CompletionRequest], bool]
) -> tuple[Path, Path, str]:
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    world.trainer(straight, Roles(*_good_bad_backends())).fit()
    sticky = Sticky(trips)
    optimizer, target = _good_bad_backends()
    stopped = world.trainer(resumed, Roles(sticky.wrap(optimizer), sticky.wrap(target))).fit()
    world.trainer(resumed, Roles(*_good_bad_backends())).fit()
    return straight, resumed, stopped.stopped_reason


def test_a_budget_that_runs_out_while_crediting_a_bundle_stops_the_step_uncommitted(
    tmp_path: Path,
) -> None:
    """The bundle (good + bad) is rejected; re-gating "good" alone is where the budget ends."""

    def regating_good_alone(request: CompletionRequest) -> bool:
        skill = request.metadata.get("skill", "")
        return request.purpose == "rollout" and "- good" in skill and "- bad" not in skill

    world = _good_bad_world()
    straight, resumed, reason = _stopped_then_resumed(world, tmp_path, regating_good_alone)
    assert "- good" in (straight / "best_skill.md").read_text()
    assert reason.startswith("budget: ")
    assert run_files(resumed) == run_files(straight)


def test_a_budget_that_runs_out_in_the_meta_update_does_not_keep_half_an_epoch_close(
    tmp_path: Path,
) -> None:
    """A force-accepted slow update, then the meta update finds the budget spent."""
    world = _good_bad_world(
        epochs=2, credit=False, slow_update=True, slow_update_gated=False, meta_skill=True
    )
    straight, resumed, reason = _stopped_then_resumed(
        world, tmp_path, lambda request: request.purpose == "meta"
    )
    assert reason.startswith("budget: ")
    assert run_files(resumed) == run_files(straight)


# ---------------------------------------------------------------------------------------------
# The mock world through the `skillopt train` front door: budget, journal and resume


TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"


def _toy_split(root: Path) -> Path:
    for split, count in (("train", 8), ("val", 6), ("test", 3)):
        items = _json(TOY / split / "items.json")[:count]
        (root / split).mkdir(parents=True)
        (root / split / "items.json").write_text(json.dumps(items), encoding="utf-8")
    (root / "seed_skill.md").write_text((TOY / "seed_skill.md").read_text(), encoding="utf-8")
    return root


def _journal_calls(out: Path) -> int:
    return sum(record.attempts for record in read_journal(out / "ledger.jsonl"))


@FAST
@given(max_calls=st.integers(1, 120), workers=st.sampled_from([1, 4]), credit=st.booleans())
def test_mock_runs_keep_their_call_budget_and_resume_to_the_unlimited_result(
    max_calls: int, workers: int, credit: bool, tmp_path_factory: Any
) -> None:
    from skillopt_core.training import TrainRequest, run_training

    root = tmp_path_factory.mktemp("mock")
    split = _toy_split(root / "split")
    config = validate(TrainConfig(epochs=2, batch_size=4, workers=workers, credit=credit))

    def train(out: Path, limit: int | None) -> Any:
        limits = {"max_calls": limit}
        request = TrainRequest(split, out, backend="mock", limits=limits)
        return run_training(request, config)

    straight = train(root / "straight", None)
    stopped = train(root / "run", max_calls)
    assert (
        stopped.usage["calls"] <= max_calls == stopped.usage["calls"] or stopped.stop_error is None
    )
    assert _journal_calls(root / "run") == stopped.usage["calls"] <= max_calls
    ledger = _json(root / "run" / "ledger.json")
    assert ledger["totals"]["calls"] == sum(c["attempts"] for c in ledger["calls"])
    resumed = train(root / "run", None)
    assert _journal_calls(root / "run") == resumed.usage["calls"]
    assert resumed.stop_error is None and resumed.stopped_reason == ""
    for name in ("best_skill.md", "history.json", "runtime_state.json"):
        assert (root / "run" / name).read_bytes() == (root / "straight" / name).read_bytes(), name
    assert resumed.final == straight.final


def test_credit_does_not_blame_an_edit_the_size_budget_refused_unweighed(tmp_path: Path) -> None:
    """The bundle (a long add, plus a delete that makes room) fits the size budget and is
    rejected. Alone, the add would grow the skill past it: refused before any evaluation, so it
    has no evidence against it, and must not be blocked for the rest of the run."""
    long_line = "- keep this long line about units " + "x" * 30
    seed = f"# Toy skill\n\n{long_line}\n"
    add = {"op": "add", "anchor": "", "content": "- good " + "y" * 30}
    delete = {"op": "delete", "anchor": long_line}

    def optimizer(request: CompletionRequest) -> str:
        return json.dumps({"edits": [add, delete]})

    def target(request: CompletionRequest) -> str:
        skill = request.metadata["skill"]
        return f"{int('- good' in skill and long_line in skill)} 0.5"

    gate = GatePolicy(max_chars=len(long_line) + 10)
    config = replace(_good_bad_world().config, gate=gate, credit=True)
    trainer = Trainer(
        validate(config),
        ToyEnv(2, 3),
        Roles(Fn("o", optimizer), Fn("t", target)),
        RunDir(tmp_path),
        seed,
    )
    result = trainer.fit()
    (record,) = result.history
    assert "credit" in record, record
    blocked = trainer.rejected.blocked_keys()
    assert ("add", "", add["content"]) not in blocked
    assert ("delete", long_line, "") in blocked
