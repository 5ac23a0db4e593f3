"""Which transcripts the harness deleted, so the index can forget them.

A file row keeps its place (the digests of its nearest folders; no path is stored). A recording
run that went through one of those folders lists its way down from there: a missing step proves
the file gone. A folder the run did not look into, or one that cannot be listed, proves nothing.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping

from skillopt_sleep.harvest._index import FileRow, digest

PLACE_DEPTH = 3  # a file's folder, its parent and grandparent (Codex: day, month and year)


def place(path: str) -> str:
    """Where a file is, as stored: the digests of its ``PLACE_DEPTH`` nearest folders, nearest
    first, space-separated."""
    folder = os.path.dirname(path)
    return "" if folder == path else _place_of(folder)


@functools.lru_cache(maxsize=1024)
def _place_of(folder: str) -> str:
    """A folder's place chain (cached: a run's thousands of files sit in a few folders)."""
    chain = [digest(folder)]
    for _ in range(PLACE_DEPTH - 1):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        chain.append(digest(parent))
        folder = parent
    return " ".join(chain)


class Listings:
    """Folder listings, each taken at most once a run: entry path digest -> entry path (None:
    the folder could not be listed)."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, str] | None] = {}

    def __call__(self, folder: str) -> dict[str, str] | None:
        if folder not in self._seen:
            try:
                with os.scandir(folder) as entries:
                    paths = [os.path.join(folder, e.name) for e in entries]
                self._seen[folder] = {digest(p): p for p in paths}
            except OSError:
                self._seen[folder] = None
        return self._seen[folder]


def looked_into(paths: Iterable[str]) -> dict[str, str]:
    """The folders discovery went through to find ``paths`` (each file's ``PLACE_DEPTH`` nearest
    folders), by path digest: those a run may say a file is gone from."""
    folders: set[str] = set()
    level = {os.path.dirname(p) for p in paths}
    for _ in range(PLACE_DEPTH):
        folders |= level
        level = {os.path.dirname(f) for f in level}
    return {digest(f): f for f in folders}


def gone(row: FileRow, looked: Mapping[str, str], listing: Listings) -> bool:
    """Whether the file of ``row`` is confirmed deleted: from the nearest of its folders this
    run looked into, each folder on the way down to the file is listed; a missing step is the
    proof. A folder this run did not look into (a harness home not configured, a row written
    before places were kept) or one that cannot be listed proves nothing."""
    chain = row.place.split()
    depth = next((d for d, folder in enumerate(chain) if folder in looked), None)
    if depth is None:
        return False
    here = looked[chain[depth]]
    for wanted in [*reversed(chain[:depth]), row.fkey]:
        entries = listing(here)
        if entries is None:
            return False
        found = entries.get(wanted)
        if found is None:
            return True
        here = found
    return False
