"""The readers' optional C folds (``_claude_fast.c``, ``_codex_fast.c``, built by setup.py).

A fold reads a line exactly as its reader's ``feed`` does (the tests compare the two on every
shape) and leaves every line it is not sure of to ``feed``. It is not used when the package was
built without it (no C compiler), when the build is older than its source (an editable install
not rebuilt: ``pip install -e .`` again), or when ``SKILLOPT_PURE_PYTHON`` is set (to
anything but 0).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Literal

from skillopt_sleep.harvest._events import INPUT_CHARS, REDACT_MARGIN, RESULT_CHARS, TEXT_CHARS

FOLDS = ("_claude_fast", "_codex_fast")
Status = Literal["built", "stale", "not built", "off"]
_HERE = Path(__file__).parent
_HEADERS = ("_json_scan.h", "_fold.h")  # in setup.py's order


def status(name: str) -> tuple[Status, ModuleType | None]:
    """Whether the compiled module ``name`` is usable, and the module when it is."""
    if os.environ.get("SKILLOPT_PURE_PYTHON", "0") not in ("", "0"):
        return "off", None
    try:
        module = importlib.import_module(f"skillopt_sleep.harvest.{name}")
    except ImportError:
        return "not built", None
    with contextlib.suppress(OSError):  # a wheel ships no source: nothing to compare
        sources = b"".join((_HERE / f).read_bytes() for f in (f"{name}.c", *_HEADERS))
        if hashlib.sha256(sources).hexdigest() != module.SOURCE_DIGEST:
            return "stale", None
    return "built", module


def load(name: str) -> ModuleType | None:
    """The compiled module ``name``, configured, or None to read in pure Python."""
    module = status(name)[1]
    if module is not None:
        windows = (TEXT_CHARS, INPUT_CHARS, RESULT_CHARS)
        module.configure(*(limit + REDACT_MARGIN for limit in windows))
    return module
