"""One night: lock → harvest → mine → select → replay + consolidate per target → stage → save.

The only place the pipeline is composed. It never prints: progress goes to the ``progress``
callback as ``(stage, done, total)`` — ``harvest`` (files read), ``mine`` and its steps ``embed``,
``cluster`` and ``families``, ``replay`` (target files), ``stage``; thinned (``_thinned``) — and
the result is a :class:`NightReport`. Tonight's tasks are gathered by :mod:`.gather` (harvest
streamed into mining). Durable state is written in an order that makes a killed night safe to
re-run: the proposal is staged (atomically) before the carried optimizer state is saved, and the
harvest index is committed after the night's report, so an interrupted night re-reads its
sessions (the miner's archive de-duplicates them). The history line is appended only after the
commit, so a night whose commit failed is not in the history twice; one lost between the two is
added by the next night from the copy in the night's folder. A night's folder (``nights/<id>``)
gets its ``report.json`` last; once a night holds the lock it removes earlier folders without
one (a killed, stopped or failed night's working files), and it keeps the newest
``KEEP_NIGHTS`` finished ones. A dry run removes no folder, as it discards no proposal and
commits nothing; its own folder (its replays, when it had any) has no report, so the next real
night removes it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.backends.runtime import Budget, Roles, open_roles
from skillopt_core.errors import SkillOptError
from skillopt_sleep.engine import gather, reporting
from skillopt_sleep.engine.config import SleepConfig, load_config
from skillopt_sleep.engine.consolidate import Carry, Consolidation, consolidate
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.select import Selection, fit_to_budget, only_families, select_tasks
from skillopt_sleep.engine.state import (
    ProjectState,
    append_line,
    read_json,
    read_lines,
    write_json,
)

Progress = Callable[[str, int, int], None]
KEEP_NIGHTS = 30  # finished nights' run directories kept (rollouts, patches, gate records)
TICK_S = 0.2  # the least time between two ticks of one stage (see _thinned)
HISTORY_LINE = "history-line.json"  # a night's history line, kept until it is in history.jsonl


def _thinned(progress: Progress) -> Progress:
    """``progress`` with each stage's ticks at most every ``TICK_S`` (its first and last always
    pass): a harvest reads thousands of files, and the MCP job rewrites its file on every tick."""
    last: dict[str, float] = {}

    def tick(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage not in last or done <= 0 or done >= total or now - last[stage] >= TICK_S:
            last[stage] = now
            progress(stage, done, total)

    return tick


@dataclass(frozen=True)
class TargetRun:
    """One file trained tonight and what came of it."""

    path: Path
    kind: str
    live: bytes | None
    result: Consolidation


def _night_id(now: datetime, state: ProjectState) -> str:
    """The night's id from its start time; a second night started within the same second gets
    ``-2``, ``-3``... (ids still sort in start order), never the first one's folders."""
    base = candidate = now.strftime("%Y%m%d-%H%M%S")
    number = 1
    while state.night_dir(candidate).exists() or (state.root / "staging" / candidate).exists():
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _budget(config: SleepConfig) -> Budget:
    b = config.budget
    return Budget(b.max_calls or None, b.max_tokens or None, b.max_usd or None)


def open_night_roles(config: SleepConfig) -> tuple[Roles, Any]:
    """The optimizer and target roles (health-checked) and the judge, sharing one ledger."""
    options = {"seed": config.night.seed, **config.backends.options}
    roles = open_roles(config.backends.optimizer, config.backends.target, options, _budget(config))
    judge = None
    if config.backends.judge:
        judge = open_roles(
            config.backends.judge, config.backends.judge, options, ledger=roles.ledger
        ).optimizer
    return roles, judge


def _discard_unfinished(state: ProjectState, index: Any) -> list[str]:
    """Remove the pending proposals of nights killed after staging but before their commit.

    Their sessions were never consumed, so tonight replays them and stages anew: keeping the
    old one would offer the same edits twice. A night is finished when its commit recorded it;
    proposals older than the first such record predate it and are kept."""
    import shutil

    from skillopt_sleep.stage.proposal import readable_manifest

    finished = index.finished_nights()
    if not finished:
        return []
    oldest, removed = min(finished), []
    for directory in state.proposals():
        night = directory.name
        if night in finished or night <= oldest:
            continue
        manifest = readable_manifest(directory)  # a damaged one is left alone: nothing is lost
        if manifest is not None and manifest.get("state", "pending") == "pending":
            shutil.rmtree(directory)
            removed.append(night)
    return removed


def _restore_history(state: ProjectState, index: Any) -> list[str]:
    """Append the history line of each finished night that has none: one killed (or failing)
    between its commit and its line, which the history would otherwise miss (or, with the
    line written first, count twice: its sessions read again by the next night). The line was
    kept in the night's folder before the commit; returns the nights restored."""
    from skillopt_core.errors import StorageError

    recorded = {str(r.get("night_id", "")) for r in read_lines(state.history_path)}
    newest, restored = max(recorded, default=""), []
    for night in sorted(index.finished_nights()):
        if night in recorded or night <= newest:
            continue
        try:
            line = read_json(state.night_dir(night) / HISTORY_LINE)
        except StorageError:  # damaged: the history goes without that night, as before
            continue
        if line is not None:
            append_line(state.history_path, line)
            restored.append(night)
    return restored


def _nothing_new(config: SleepConfig, first_night: bool) -> str:
    """Why a night found no session: nights read only ``night.since`` back from the first one,
    so older transcripts (or none from these harnesses at all) looked like "nothing new since
    the last night" on a night that had no last night, and without the way to a wider window."""
    if not first_night:
        return "no new sessions since the last night"
    sources = ", ".join(config.night.sources)
    return (
        f"no session of this project in the last {config.night.since} ({sources}): nights "
        f"read back to that long before the first one (night.since); for older ones, set since "
        f"under [night] in the config, or run with SKILLOPT_SLEEP_NIGHT_SINCE=120d"
    )


def _group_by_target(
    selection: Selection, routes: Mapping[str, Any]
) -> dict[Path, tuple[Any, Selection]]:
    """Tonight's selection split by the file each family is routed to. A file whose families
    kept no training task (the budget trimmed them) is left for another night."""
    targets = {routes[f].path: routes[f] for f in selection.families}
    out: dict[Path, tuple[Any, Selection]] = {}
    for path, target in targets.items():
        families = {f for f in selection.families if routes[f].path == path}
        part = only_families(selection, families)
        if part.train:
            out[path] = (target, replace(part, families=tuple(sorted(families))))
    return out


def run_night(
    project: str | Path,
    config: SleepConfig | None = None,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
    home: Path | None = None,
    now: datetime | None = None,
) -> NightReport:
    """Run one night for ``project`` (see the module docstring). Raises SkillOptError subclasses:
    BusyError when another night holds the project, NoEvidenceError when nothing usable came back,
    BackendError when a backend is dead, StorageError when state cannot be written."""
    night = _Night(
        ProjectState(project),
        config or load_config(project),
        dry_run=dry_run,
        progress=_thinned(progress or (lambda stage, done, total: None)),
        home=home or Path.home(),
        started=now or datetime.now(timezone.utc),
    )
    with night.state.night_lock(), contextlib.ExitStack() as stack:
        try:
            return night.run(stack)
        except SkillOptError as exc:
            night.record_stopped(exc)
            raise


class _Night:
    """One night's working state; each method is one stage, in the order ``run`` calls them."""

    def __init__(
        self,
        state: ProjectState,
        config: SleepConfig,
        *,
        dry_run: bool,
        progress: Progress,
        home: Path,
        started: datetime,
    ) -> None:
        self.state, self.config, self.dry_run = state, config, dry_run
        self.tick, self.home, self.started = progress, home, started
        self.night_id = _night_id(started, state)
        self.timings: dict[str, float] = {}
        self.recovered: list[str] = []  # what undoing an interrupted adopt did, said in the report
        self.notes: list[str] = []  # skill files left out for where they link to, said as well
        self.sessions = 0  # what a stopped night had read, spent and mined (record_stopped)
        self.roles: Roles | None = None
        self.mined: Any = None
        self._clock = time.perf_counter()
        self._wall_began = datetime.now(timezone.utc)  # ``started`` may be a simulated clock

    def _lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + now - self._clock
        self._clock = now

    def run(self, stack: contextlib.ExitStack) -> NightReport:
        from skillopt_sleep.stage import transaction

        state, config = self.state, self.config
        # a misspelt backend or embedder fails tonight, not on the first night with work
        config.check_names()
        self.recovered = [r.message for r in transaction.recover(state)]
        if not self.dry_run:  # housekeeping, unsaid like pruning; a dry run removes no folder
            state.remove_unfinished_nights(self.night_id)
        state.rotate_night_log()
        first_night = not state.history_path.exists()
        self.tick("harvest", 0, 1)
        since = gather.window(state, config, self.started)
        harvested, index = gather.harvest(state, config, since, stack, self.tick, self.started)
        if not self.dry_run:
            _discard_unfinished(state, index)
            _restore_history(state, index)
        self._lap("harvest")
        sessions = self.sessions = harvested.sessions
        if not sessions:  # the index advances only when a night finishes
            report = reporting.quiet_night(
                self._basics(0, None),
                None,
                "nothing new",
                _nothing_new(config, first_night),
                self.timings,
                history=reporting.history(state),
            )
            return self._finish(report, index)
        roles, judge = open_night_roles(config)  # a dead backend fails before any work
        self.roles = roles
        self.tick("mine", 0, 1)
        mined = self.mined = gather.mine(
            state, config, harvested, self.night_id, roles.optimizer, self.tick
        )
        del harvested  # its candidates are in the archive now
        self._lap("mine")
        self.tick("mine", 1, 1)
        basics = self._basics(sessions, mined)
        selection = select_tasks(
            mined,
            max_tasks=config.night.max_tasks,
            has_judge=bool(config.backends.judge),
            min_val_tasks=config.night.min_val_tasks,
        )
        selection = fit_to_budget(
            selection,
            config.night.samples,
            config.train.minibatch_size,
            config.budget.max_calls,
            spent=roles.ledger.totals.calls,  # mining's own calls and their retries so far
        )
        mined = replace(mined, recalled={})  # selection took its recall: free the vectors
        if selection.empty:
            report = reporting.quiet_night(
                basics,
                mined,
                "no change",
                reporting.nothing_to_replay(mined, has_judge=bool(config.backends.judge)),
                self.timings,
                history=reporting.history(state),
            )
            return self._finish(report, index)
        routes = self._routes(mined)
        carry_all: dict[str, Any] = read_json(state.optimizer_path, {}) or {}
        runs = self._train(selection, routes, mined, roles, judge, carry_all)
        report = reporting.full_night(
            basics, mined, routes, runs, roles, self.timings, history=reporting.history(state)
        )
        report = reporting.with_notes(report, self.notes)
        if not self.dry_run and report.changes:
            self.tick("stage", 0, 1)
            report = reporting.stage_report(state, report, runs)
            if config.night.auto_adopt:
                report = self._auto_adopt(report)
            self.tick("stage", 1, 1)
        if not self.dry_run:
            write_json(state.optimizer_path, carry_all)
        return self._finish(report, index)

    def _auto_adopt(self, report: NightReport) -> NightReport:
        """Adopt what was staged (the night already holds the lock). A live file changed while
        the night ran, or a write that failed (and was put back), leaves the proposal pending
        with the reason in the night's message: the night itself still finishes, its sessions
        consumed and its optimizer memory kept (a refusal used to abort it after staging)."""
        from skillopt_core.errors import DriftError, StorageError
        from skillopt_sleep.stage import transaction

        try:
            transaction.adopt(self.state, report.proposal, home=self.home)
        except (DriftError, StorageError) as exc:
            note = f"not adopted ({exc.message}); review it: skillopt-sleep adopt {report.proposal}"
            return replace(report, message=f"{report.message}; {note}")
        return reporting.mark_adopted(report)

    def record_stopped(self, error: SkillOptError) -> None:
        """Keep why a night stopped part-way (a backend that failed, a budget reached, replies
        that were no answers) and what it spent: its report.json and a history line, so `status`
        shows it stopped, why and at what cost, where it showed the night before as the last.
        Nothing is staged or carried and the index is not committed: the next night reads the
        same sessions again. A night that spent nothing, or that failed to write its state (a
        full disk), is not recorded, and a failure to record must not hide ``error``."""
        from skillopt_core.errors import StorageError
        from skillopt_sleep.jsonable import to_jsonable

        spent = self.roles.ledger.totals if self.roles is not None else None
        if self.dry_run or spent is None or not spent.calls or isinstance(error, StorageError):
            return  # nothing spent, or the state cannot be written: the error says it all
        report = reporting.stopped_night(
            self._basics(self.sessions, self.mined), self.mined, error, spent, self.timings
        )
        with contextlib.suppress(SkillOptError, OSError):
            write_json(self.state.night_dir(self.night_id) / "report.json", to_jsonable(report))
            append_line(self.state.history_path, reporting.summary_line(report))

    def _basics(self, sessions: int, mined: Any) -> reporting.Basics:
        backends = self.config.backends
        return reporting.Basics(
            night_id=self.night_id,
            project=str(self.state.project),
            started_at=self.started.isoformat(),
            finished_at=(
                self.started + (datetime.now(timezone.utc) - self._wall_began)
            ).isoformat(),
            dry_run=self.dry_run,
            sessions=sessions,
            requests=int(mined.stats.get("candidates", 0)) if mined is not None else 0,
            embedder=mined.embedder_name if mined is not None else "",
            backends={
                "optimizer": backends.optimizer,
                "target": backends.target,
                "judge": backends.judge,
            },
        )

    def _routes(self, mined: Any) -> dict[str, Any]:
        from skillopt_sleep.skills import (
            discover_skills,
            managed_target,
            memory_file,
            route_families,
        )
        from skillopt_sleep.skills.route import Target

        night = self.config.night
        fallback = (
            Target(memory_file(self.state.project, night.sources), "memory", "memory")
            if night.memory
            else managed_target(self.state.project, night.sources, night.learned_skill_dir)
        )
        requests = {f.id: list(f.requests) for f in mined.families}
        skills, skipped = discover_skills(self.state.project, self.home)
        self.notes.extend(skipped)
        return route_families(requests, skills, fallback)

    def _train(
        self,
        selection: Selection,
        routes: Mapping[str, Any],
        mined: Any,
        roles: Roles,
        judge: Any,
        carry_all: dict[str, Any],
    ) -> list[TargetRun]:
        """Replay and consolidate each target file's families; ``carry_all`` is updated. A file
        that links out of the project (a planted managed skill or memory file) is not read."""
        from skillopt_sleep.skills import link_problem, managed_target

        night = self.config.night
        managed = managed_target(self.state.project, night.sources, night.learned_skill_dir).path
        runs: list[TargetRun] = []
        groups = sorted(_group_by_target(selection, routes).items())
        for number, (path, (target, part)) in enumerate(groups):
            self.tick("replay", number, len(groups))
            problem = link_problem(path, self.state.project, self.home)
            if problem:
                self.notes.append(f"not trained: {problem}")
                continue
            live = path.read_bytes() if path.is_file() else None
            base_text = reporting.base_text(target, live, mined, part.families, managed)
            result = consolidate(
                base_text,
                part,
                roles,
                self.config,
                self.state.night_dir(self.night_id) / f"target-{number:02d}",
                Carry.from_json(carry_all.get(str(path))),
                judge=judge,
            )
            carry_all[str(path)] = result.carry.to_json()
            runs.append(TargetRun(path, target.kind, live, result))
        self.tick("replay", len(groups), len(groups))
        self._lap("replay+consolidate")
        return runs

    def _finish(self, report: NightReport, index: Any) -> NightReport:
        """Save the night's report and history line, then commit the harvest index (last). An
        interrupted adopt the night undid first is said in the report's message."""
        from skillopt_sleep.jsonable import to_jsonable

        if self.recovered:
            report = replace(report, message="; ".join([*self.recovered, report.message]))

        if self.dry_run:
            index.rollback()
            return report
        folder = self.state.night_dir(report.night_id)
        line = reporting.summary_line(report)
        write_json(folder / HISTORY_LINE, line)
        write_json(folder / "report.json", to_jsonable(report))
        index.commit(night=report.night_id)  # finished: its sessions are consumed
        self._append_history(report, line)
        self.state.prune_nights(KEEP_NIGHTS)
        return report

    def _append_history(self, report: NightReport, line: dict[str, Any]) -> None:
        """The finished night's history line; one that cannot be written is added by the next
        night (:func:`_restore_history`), so the error says the night itself is done."""
        from skillopt_core.errors import StorageError

        try:
            append_line(self.state.history_path, line)
        except StorageError as exc:
            staged = f" and staged proposal {report.proposal}" if report.proposal else ""
            raise StorageError(
                f"{exc.message}; the night {report.night_id} finished{staged} (its sessions "
                "are consumed), and the next night adds its line to the history",
                hint=exc.hint,
            ) from None
