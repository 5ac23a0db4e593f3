"""One night: lock → harvest → mine → select → replay + consolidate per target → stage → save.

The only place the pipeline is composed. It never prints: progress goes to the ``progress``
callback as ``(stage, done, total)`` — ``harvest`` (files read), ``mine`` and its steps ``embed``,
``cluster`` and ``families``, ``replay`` (target files), ``stage``; thinned (``_thinned``) — and
the result is a :class:`NightReport`. Tonight's tasks are gathered by :mod:`.gather` (harvest
streamed into mining), its backends opened by :mod:`.roles` and its families routed to their files
by :mod:`.targets`. Durable state is written in an order that makes a killed night safe to
re-run: the proposal is staged (atomically) before the carried optimizer state is saved, and the
night ends as :mod:`.finish` says (report, then the harvest index's commit, then the history
line), which also repairs what a killed night left. A night's folder (``nights/<id>``) gets its
``report.json`` last; once a night holds the lock it removes earlier folders without one (a
killed, stopped or failed night's working files), and it keeps the newest ``KEEP_NIGHTS``
finished ones (the history, the harvest index's night rows and the archive's cached family
verdicts are kept bounded too: see :mod:`.finish`, ``harvest._index_retention`` and
``mine._retention``). A dry run removes no folder, as it discards no proposal and commits
nothing; its own folder (its replays, when it had any) has no report, so the next real night
removes it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.backends.runtime import Roles
from skillopt_core.errors import SkillOptError
from skillopt_sleep.engine import gather, reporting
from skillopt_sleep.engine.config import SleepConfig, load_config
from skillopt_sleep.engine.consolidate import Carry, consolidate
from skillopt_sleep.engine.finish import discard_unfinished as _discard_unfinished
from skillopt_sleep.engine.finish import restore_history as _restore_history
from skillopt_sleep.engine.finish import save_night
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.roles import open_night_roles
from skillopt_sleep.engine.select import Selection, fit_to_budget, select_tasks
from skillopt_sleep.engine.state import ProjectState, append_line, read_json, write_json
from skillopt_sleep.engine.targets import TargetRun, group_by_target, route

__all__ = ["KEEP_NIGHTS", "Progress", "TargetRun", "open_night_roles", "run_night"]

Progress = Callable[[str, int, int], None]
KEEP_NIGHTS = 30  # finished nights' run directories kept (rollouts, patches, gate records)
TICK_S = 0.2  # the least time between two ticks of one stage (see _thinned)


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


def _night_id(now: datetime, state: ProjectState) -> str:
    """The night's id from its start time; a second night started within the same second gets
    ``-2``, ``-3``... (ids still sort in start order), never the first one's folders."""
    base = candidate = now.strftime("%Y%m%d-%H%M%S")
    number = 1
    while state.night_dir(candidate).exists() or (state.root / "staging" / candidate).exists():
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _retain_verdicts(state: ProjectState) -> None:
    """Drop the archive's cached family verdicts no recent night used (``mine._retention``,
    one transaction); tidying up never fails a night."""
    from skillopt_sleep.mine.archive import open_archive

    with contextlib.suppress(SkillOptError), open_archive(state.archive_path) as archive:
        archive.retain_confirmations()


def _nothing_new(config: SleepConfig, first_night: bool) -> str:
    """Why a night found no session: nights read only ``night.since`` back from the first one,
    so older transcripts (or none from these harnesses at all) looked like "nothing new since
    the last night" on a night that had no last night, and without the way to a wider window."""
    if not first_night:
        return "no new sessions since the last night"
    sources = ", ".join(config.night.sources)
    wider = "730d" if config.night.since == "365d" else "365d"  # never the window it has
    return (
        f"no session of this project to read in the last {config.night.since} ({sources}): a "
        f"first night reads back that far (night.since; for older sessions set a longer since "
        f"under [night] in the config, or run with SKILLOPT_SLEEP_NIGHT_SINCE={wider}), and "
        f"never what a `harvest --commit` delivered already"
    )


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
        self.notes: list[str] = []  # said after the message: missing homes, linked-out skills
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
        missing = config.missing_home_notes()  # a mistyped home read nothing: say so first
        if not sessions:  # the index advances only when a night finishes
            report = reporting.quiet_night(
                self._basics(0, None),
                None,
                "nothing new",
                "; ".join([*missing, _nothing_new(config, first_night)]),
                self.timings,
                history=reporting.history(state),
            )
            return self._finish(report, index)
        self.notes.extend(missing)
        roles, judge = open_night_roles(config)  # a dead backend fails before any work
        self.roles = roles
        self.tick("mine", 0, 1)
        mined = self.mined = gather.mine(
            state, config, harvested, self.night_id, roles.optimizer, self.tick
        )
        del harvested  # its candidates are in the archive now
        if not self.dry_run:  # housekeeping under the lock: cached verdicts no night uses
            _retain_verdicts(state)
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
            return self._finish(reporting.with_notes(report, self.notes), index)
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

        refused = [e for e in report.edits if e.refused]
        if refused:  # something tried to slip an instruction in tonight: the user looks first
            note = (
                f"not adopted: the edit screen refused {len(refused)} edit(s) tonight "
                f"({refused[0].refused}); review the report, then: skillopt-sleep adopt "
                f"{report.proposal}"
            )
            return replace(report, message=f"{report.message}; {note}")
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
        routes, skipped = route(self.state.project, self.home, self.config.night, mined)
        self.notes.extend(skipped)
        return routes

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
        that links out of the project (a planted managed skill or memory file) is not read.
        Kept here, calling this module's ``consolidate``: tests and benchmarks spy on it."""
        from skillopt_sleep.skills import link_problem, managed_target

        night = self.config.night
        managed = managed_target(self.state.project, night.sources, night.learned_skill_dir).path
        runs: list[TargetRun] = []
        groups = sorted(group_by_target(selection, routes).items())
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
        """Save the night (:func:`.finish.save_night`). An interrupted adopt the night undid
        first is said in the report's message."""
        if self.recovered:
            report = replace(report, message="; ".join([*self.recovered, report.message]))
        return save_night(self.state, report, index, dry_run=self.dry_run, keep=KEEP_NIGHTS)
