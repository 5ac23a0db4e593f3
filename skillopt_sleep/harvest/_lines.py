"""Incremental line reading of append-only transcript files.

Reads from a byte offset to the end of the last complete (newline-terminated) line; a half-written
last line is left for the next read. Lines longer than ``max_line`` are skipped in constant memory.
A file that was rewritten or truncated since the stored offset is recognised by its identity
(device, inode), its size and a hash of its head.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHUNK = 1 << 22  # 4 MiB reads
HEAD_BYTES = 4096
DEFAULT_MAX_LINE = 8 << 20  # 8 MiB: larger single records are skipped, not buffered


@dataclass(frozen=True, slots=True)
class FileId:
    """What a file looked like when it was last read."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    head_len: int = 0
    head_hash: str = ""


class NotARegularFile(OSError):
    """A transcript path that is a FIFO, a device or a socket (or a link to one): opening a FIFO
    waits for a writer forever and a device never ends, so such a path is never read."""


def stat_id(path: str | Path) -> FileId:
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotARegularFile(f"{path} is not a regular file")
    return FileId(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def head_hash(path: str | Path, length: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.blake2b(handle.read(length), digest_size=16).hexdigest()


def with_head(path: str | Path, fid: FileId, offset: int, head: bytes = b"") -> FileId:
    """Record the hash of the bytes already read (up to ``HEAD_BYTES``).

    ``head``: the file's first bytes if the caller read them, which saves opening it again.
    """
    length = min(offset, HEAD_BYTES)
    digest = (
        hashlib.blake2b(head[:length], digest_size=16).hexdigest()
        if len(head) >= length
        else head_hash(path, length)
    )
    return FileId(fid.dev, fid.ino, fid.size, fid.mtime_ns, length, digest)


def unchanged(old: FileId, new: FileId) -> bool:
    return (old.dev, old.ino, old.size, old.mtime_ns) == (new.dev, new.ino, new.size, new.mtime_ns)


def continues(path: str | Path, old: FileId, new: FileId, offset: int) -> bool:
    """True when ``new`` is ``old`` with bytes appended, so reading can resume at ``offset``."""
    if (old.dev, old.ino) != (new.dev, new.ino) or new.size < offset:
        return False
    return not old.head_len or head_hash(path, old.head_len) == old.head_hash


@dataclass
class LineRead:
    """Outcome of one read: where the next read starts and what was skipped."""

    offset: int
    oversized: int = 0
    tail: bytes = b""  # an unterminated last line, left unread unless the caller accepts it
    head: bytes = b""  # the file's first ``HEAD_BYTES``, when the read started at offset 0


def iter_blocks(
    path: str | Path, offset: int, result: LineRead, max_line: int = DEFAULT_MAX_LINE
) -> Iterator[tuple[bytes, int]]:
    """Yield ``(data, end)``: ``data[:end]`` is a run of complete lines from ``offset``, each
    ending in a newline and none over ``max_line`` (empty lines included); ``result`` is updated
    as blocks are consumed.

    ``result.offset`` always points just after the last block consumed (or line skipped), so a
    caller that stops early re-reads, and never loses, what it had not finished.
    """
    result.offset = offset
    with open(path, "rb") as handle:
        handle.seek(offset)
        pos = offset
        at_start = offset == 0
        carry = b""
        skipping = False
        while True:
            chunk = handle.read(CHUNK)
            if not chunk:
                break
            if at_start:
                result.head, at_start = chunk[:HEAD_BYTES], False
            if skipping:
                cut = chunk.find(b"\n")
                if cut < 0:
                    pos += len(chunk)
                    continue
                skipping = False
                pos += cut + 1
                result.offset = pos
                result.oversized += 1
                chunk = chunk[cut + 1 :]
            data = carry + chunk if carry else chunk
            end = data.rfind(b"\n") + 1
            carry = data[end:]
            if end:
                pos += end
                if end > max_line:  # it may hold a line too long to keep
                    data, end = _without_long_lines(data[:end], max_line, result)
                yield data, end
                result.offset = pos
            if len(carry) > max_line:
                pos += len(carry)
                carry = b""
                skipping = True
        if not skipping:
            result.tail = carry


def _without_long_lines(block: bytes, max_line: int, result: LineRead) -> tuple[bytes, int]:
    lines = block.split(b"\n")
    kept = [line for line in lines if len(line) <= max_line]
    result.oversized += len(lines) - len(kept)
    joined = b"\n".join(kept)
    return joined, len(joined)
