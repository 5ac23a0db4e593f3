"""The optional C modules: the Claude Code and Codex readers' folds and the redactor's scans.
Without a C compiler the build goes on without them (``optional``) and the code runs in pure
Python, with the same results."""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
FOLDER = "skillopt_sleep/harvest"
HEADERS = [f"{FOLDER}/_json_scan.h", f"{FOLDER}/_fold.h"]


def compiled(module: str, sources: list[str]) -> Extension:
    """``module`` built from ``sources[0]`` (the rest are its headers). It carries the digest
    of its sources, so an editable install compiled from older ones is recognised as stale and
    not used (``skillopt_core._native``)."""
    digest = hashlib.sha256(b"".join((HERE / s).read_bytes() for s in sources)).hexdigest()
    return Extension(
        module,
        sources[:1],
        depends=sources[1:],
        define_macros=[("SOURCE_DIGEST", f'"{digest}"')],
        optional=True,
    )


def fold(name: str) -> Extension:
    """One reader's fold."""
    return compiled(f"skillopt_sleep.harvest.{name}", [f"{FOLDER}/{name}.c", *HEADERS])


setup(
    ext_modules=[
        fold("_claude_fast"),
        fold("_codex_fast"),
        compiled("skillopt_core._redaction_fast", ["skillopt_core/_redaction_fast.c"]),
    ]
)
