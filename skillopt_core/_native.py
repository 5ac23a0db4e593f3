"""Whether an optional compiled module (built by setup.py) is usable.

It is not when the package was built without it (no C compiler), when the build is older than
its source (an editable install not rebuilt: ``pip install -e .`` again), or when
``SKILLOPT_PURE_PYTHON`` is set (to anything but 0); the pure-Python code then runs, with the
same results. Shared by the redactor's scans and the harvest readers' folds.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Literal

Status = Literal["built", "stale", "not built", "off"]


def status(module: str, sources: Iterable[Path]) -> tuple[Status, ModuleType | None]:
    """Whether the compiled ``module`` is usable, and the module when it is: its
    ``SOURCE_DIGEST`` must be the SHA-256 of ``sources`` concatenated (setup.py's order)."""
    if os.environ.get("SKILLOPT_PURE_PYTHON", "0") not in ("", "0"):
        return "off", None
    try:
        compiled = importlib.import_module(module)
    except ImportError:
        return "not built", None
    with contextlib.suppress(OSError):  # a wheel ships no source: nothing to compare
        digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()
        if digest != compiled.SOURCE_DIGEST:
            return "stale", None
    return "built", compiled
