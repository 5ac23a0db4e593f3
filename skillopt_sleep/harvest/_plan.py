"""Which of a source's files a run reads, and from where: discovery, then the plan.

Discovery lists the source's transcript files by path digest and counts the places it could not
read; the plan compares each file with its committed index row and reads new files from the
start, grown ones from their offset, and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from skillopt_sleep.harvest._build import clean_path
from skillopt_sleep.harvest._gone import place
from skillopt_sleep.harvest._index import FileRow, HarvestIndex, digest
from skillopt_sleep.harvest._lines import NotARegularFile, continues, stat_id, unchanged
from skillopt_sleep.harvest._reading import ReadJob
from skillopt_sleep.harvest._registry import HarvestConfig, Source, Unreadable
from skillopt_sleep.harvest._stats import Tally


@dataclass
class Plan:
    """What a run does with one source's files."""

    jobs: list[ReadJob]  # files to read
    absent: list[FileRow]  # committed rows of files not discovered (gone, or not looked for)
    unplaced: dict[str, str]  # path digest -> place, of rows written before places were kept


def plan_reads(
    source: Source,
    paths: dict[str, str],
    index: HarvestIndex,
    cutoff: float | None,
    tally: Tally,
) -> Plan:
    """What to read: new files from the start, grown ones from their offset, nothing else."""
    rows = index.rows(source.name)
    plan = Plan([], [], {})
    jobs = plan.jobs
    for fkey, path in paths.items():
        tally.files_seen += 1
        row = rows.get(fkey)
        if row is not None and not row.place:
            plan.unplaced[fkey] = place(path)
        try:
            fid = stat_id(path)
            if row is not None and unchanged(row.fid, fid):
                tally.files_unchanged += 1
                continue
            if cutoff is not None and fid.mtime_ns / 1e9 < cutoff:
                tally.skipped_files["older than --since (left unread)"] += 1
                continue
            resumable = row is not None and continues(path, row.fid, fid, row.offset)
        except NotARegularFile:
            tally.skipped_files["not a regular file (a pipe or a device)"] += 1
            continue
        except OSError:
            tally.skipped_files["unreadable file"] += 1
            continue
        if row is not None and resumable:
            if not row.in_scope:
                tally.files_unchanged += 1  # another project's session grew: nothing to read
                continue
            jobs.append(ReadJob(path, fid, row.offset, index.state(fkey), True, fkey=fkey))
            continue
        if row is not None:
            tally.skipped_files["rewritten or truncated (re-read)"] += 1
        jobs.append(ReadJob(path, fid, 0, None, False, rewritten=row is not None, fkey=fkey))
    plan.absent = [row for fkey, row in rows.items() if fkey not in paths]
    return plan


def discover(source: Source, config: HarvestConfig, tally: Tally) -> tuple[dict[str, str], bool]:
    """The source's files by path digest, and whether every place could be read (unreadable
    ones are counted by name, redacted). Paths are kept as strings: a ``Path`` costs several
    times more memory per file."""
    found: dict[str, str] = {}
    complete = True
    try:
        for item in source.discover(config):
            if isinstance(item, Unreadable):
                complete = False
                tally.skipped_files[
                    f"unreadable: {clean_path(str(item.path))} ({item.reason})"
                ] += 1
            else:
                path = str(item)
                found[digest(path)] = path
    except OSError as exc:
        complete = False
        where = clean_path(str(exc.filename or "transcript directory"))
        tally.skipped_files[f"unreadable: {where} ({exc.strerror or exc})"] += 1
    return found, complete
