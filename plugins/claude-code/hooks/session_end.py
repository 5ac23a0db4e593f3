"""SessionEnd hook: note the ended session for the next SkillOpt-Sleep night, then get out.

SessionEnd hooks share a budget of about 1.5 s and cannot block the session ending, so this reads
the hook's JSON from stdin with a short bound, appends one line (session id, transcript path,
cwd, reason, time) to ``<state>/session-end.jsonl`` and exits 0 whatever happens, with one
exception: when the engine ``skillopt-sleep install`` recorded is gone (the clone or its venv
moved or deleted), no night runs until it is reinstalled, so it says so on stderr, with the fix,
and exits 2, the code whose stderr Claude Code shows the user at the end of a session (any other
failure of a hook is hidden). Stdlib only.

The log is bounded: once it passes ``MAX_LOG`` bytes the hook that made it so renames it to a
segment of its own (``session-end.<UTC time>-<pid>-<random>.jsonl``) and the next hook starts a
new log; only the newest ``KEEP_SEGMENTS`` segments are kept. Hooks append without a lock, so a rename
never overwrites (each segment has a new name) and a line written through a descriptor opened
just before the rename lands in the segment: no line is lost to a concurrent rotation. Readers
(``status``) read the log and the segments written since the time they care about.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

MAX_INPUT = 1 << 16
READ_SECONDS = 0.3
SHOWN = 2  # SessionEnd: the exit code whose stderr Claude Code shows the user
LOG = "session-end.jsonl"
SEGMENT_PREFIX = "session-end."  # + "<UTC time>-<pid>-<random>.jsonl" (status reads them too)
MAX_LOG = 256 * 1024  # about a thousand sessions
KEEP_SEGMENTS = 3


def _read_stdin() -> dict[str, object]:
    """The hook's JSON from stdin, read from the raw descriptor in a helper thread so that a
    stdin that never closes costs at most READ_SECONDS (the buffered ``sys.stdin`` would hold a
    lock that aborts the interpreter at exit)."""
    chunks: list[bytes] = []

    def read() -> None:
        with contextlib.suppress(OSError, ValueError):
            size = 0
            while size < MAX_INPUT:
                chunk = os.read(0, MAX_INPUT - size)
                if not chunk:
                    return
                chunks.append(chunk)
                size += len(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(READ_SECONDS)
    try:
        data = json.loads(b"".join(chunks)) if chunks else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def main() -> int:
    try:
        from _locate import state_dir

        event = _read_stdin()
        record = {
            "harness": "claude",
            "session_id": event.get("session_id", ""),
            "transcript_path": event.get("transcript_path", ""),
            "cwd": event.get("cwd", ""),
            "reason": event.get("reason", ""),
            "at": datetime.now(timezone.utc).isoformat(),
        }
        folder = state_dir()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        append(folder, json.dumps(record))
    except Exception:  # a hook must never fail the session
        pass
    return _engine_gone()


def append(folder: Path, line: str) -> None:
    """Append ``line`` to the log in ``folder``, and rotate the log once it is too long."""
    fd = os.open(folder / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
        written = os.fstat(fd)
    finally:
        os.close(fd)
    if written.st_size > MAX_LOG:
        _rotate(folder, written)


def _rotate(folder: Path, written: os.stat_result) -> None:
    """Rename the log this hook wrote to a new segment (unless another hook just did), then
    delete the oldest segments. Failures are left for the next hook (Windows refuses to rename
    a file another process has open)."""
    live = folder / LOG
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    with contextlib.suppress(OSError):
        if not os.path.samestat(os.stat(live), written):
            return  # rotated already: the log is another, new file
        unique = f"{stamp}-{os.getpid()}-{os.urandom(4).hex()}"  # a rename must not overwrite
        os.rename(live, folder / f"{SEGMENT_PREFIX}{unique}.jsonl")
    for old in segments(folder)[:-KEEP_SEGMENTS]:
        with contextlib.suppress(OSError):  # another hook may have deleted it first
            old.unlink()


def segments(folder: Path) -> list[Path]:
    """The rotated segments in ``folder``, oldest first (their names start with the time)."""
    try:
        found = [p for p in folder.glob(f"{SEGMENT_PREFIX}*.jsonl") if p.name != LOG]
    except OSError:
        return []
    return sorted(found)


def _engine_gone() -> int:
    """SHOWN, after one line on stderr, when the recorded engine is gone; else 0."""
    try:
        from _locate import missing_engine

        line = missing_engine()
        if line is None:
            return 0
        os.write(2, (line + "\n").encode("utf-8", "replace"))
    except Exception:
        return 0
    return SHOWN


if __name__ == "__main__":
    os._exit(main())  # do not wait for (or tear down) a reader still blocked on stdin
