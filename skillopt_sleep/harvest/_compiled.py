"""The readers' optional C folds (``_claude_fast.c``, ``_codex_fast.c``, built by setup.py).

A fold reads a line exactly as its reader's ``feed`` does (the tests compare the two on every
shape) and leaves every line it is not sure of to ``feed``. It is not used when the package was
built without it (no C compiler), when the build is older than its source (an editable install
not rebuilt: ``pip install -e .`` again), or when ``SKILLOPT_PURE_PYTHON`` is set (to
anything but 0).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from skillopt_core import _native
from skillopt_core._native import Status
from skillopt_sleep.harvest._events import INPUT_CHARS, REDACT_MARGIN, RESULT_CHARS, TEXT_CHARS

FOLDS = ("_claude_fast", "_codex_fast")
_HERE = Path(__file__).parent
_HEADERS = ("_json_scan.h", "_fold.h")  # in setup.py's order


def status(name: str) -> tuple[Status, ModuleType | None]:
    """Whether the compiled module ``name`` is usable, and the module when it is."""
    sources = [_HERE / f for f in (f"{name}.c", *_HEADERS)]
    return _native.status(f"skillopt_sleep.harvest.{name}", sources)


def load(name: str) -> ModuleType | None:
    """The compiled module ``name``, configured, or None to read in pure Python."""
    module = status(name)[1]
    if module is not None:
        windows = (TEXT_CHARS, INPUT_CHARS, RESULT_CHARS)
        module.configure(*(limit + REDACT_MARGIN for limit in windows))
    return module
