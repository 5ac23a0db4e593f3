"""Undo a reply's ``Content-Encoding`` ourselves, in bounded pieces, so that its size can be capped.

The HTTP library decodes only after the response hook has wrapped the bytes, so a cap in the
hook counts compressed bytes: a gzip bomb (kilobytes that inflate to gigabytes) passes it and is
then inflated into memory whole. Instead :mod:`._guard` takes the raw bytes through
:func:`decoded`, which inflates each layer with zlib at most :data:`PIECE_BYTES` at a time, and
drops the header so that the library passes the bytes on as they are. Only the codings the
client asks for (:data:`ACCEPT_ENCODING`) are decoded; a server that sends another is refused.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

from skillopt_core.backends._protocol import BackendError
from skillopt_core.backends.api.errors import PROXY_HINT
from skillopt_core.backends.retry import TransientError

ACCEPT_ENCODING = "gzip, deflate"
PIECE_BYTES = 1 << 20
MAX_CODINGS = 3
"""More layers than a real server uses; each costs a zlib window and one piece in flight."""

_GZIP = zlib.MAX_WBITS | 16
_WBITS = {"gzip": _GZIP, "x-gzip": _GZIP, "deflate": zlib.MAX_WBITS}


def codings(values: Iterable[str], label: str) -> list[str]:
    """The codings to undo, in the order they were applied, from the header's values."""
    applied = [v.strip().lower() for v in values if v.strip().lower() not in ("", "identity")]
    unknown = [c for c in applied if c not in _WBITS]
    if unknown:
        raise BackendError(
            f"{label}: the reply has Content-Encoding {unknown[0]!r}, which the client did not "
            f"ask for (it accepts {ACCEPT_ENCODING})",
            hint=PROXY_HINT,
        )
    if len(applied) > MAX_CODINGS:
        raise BackendError(
            f"{label}: the reply is compressed {len(applied)} times over (at most "
            f"{MAX_CODINGS} layers are decoded)",
            hint=PROXY_HINT,
        )
    return applied


def decoded(chunks: Iterable[bytes], applied: list[str], label: str) -> Iterator[bytes]:
    """The bytes of ``chunks`` with ``applied`` codings undone, in pieces of bounded size."""
    stream: Iterable[bytes] = chunks
    for coding in reversed(applied):
        stream = _inflate(stream, coding, label)
    yield from stream


def _inflate(chunks: Iterable[bytes], coding: str, label: str) -> Iterator[bytes]:
    wbits = _WBITS[coding]
    inflater = zlib.decompressobj(wbits)
    started = False
    for chunk in chunks:
        try:
            try:
                piece = inflater.decompress(chunk, PIECE_BYTES)
            except zlib.error:
                if started or coding != "deflate":
                    raise
                inflater = zlib.decompressobj(-zlib.MAX_WBITS)  # deflate without its zlib header
                piece = inflater.decompress(chunk, PIECE_BYTES)
            started = started or bool(chunk)
            while piece:
                yield piece
                piece = inflater.decompress(inflater.unconsumed_tail, PIECE_BYTES)
        except zlib.error as exc:
            raise TransientError(f"{label}: the reply's {coding} body is damaged ({exc})") from exc
