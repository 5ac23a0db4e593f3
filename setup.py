"""The optional C folds of the Claude Code and Codex readers. Without a C compiler the build goes
on without them (``optional``) and the readers run in pure Python, with the same results."""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
FOLDER = "skillopt_sleep/harvest"
HEADERS = [f"{FOLDER}/_json_scan.h", f"{FOLDER}/_fold.h"]


def fold(name: str) -> Extension:
    """One reader's fold. It carries the digest of its sources, so an editable install compiled
    from older ones is recognised as stale and not used (``harvest._compiled``)."""
    sources = [f"{FOLDER}/{name}.c", *HEADERS]
    digest = hashlib.sha256(b"".join((HERE / s).read_bytes() for s in sources)).hexdigest()
    return Extension(
        f"skillopt_sleep.harvest.{name}",
        sources[:1],
        depends=HEADERS,
        define_macros=[("SOURCE_DIGEST", f'"{digest}"')],
        optional=True,
    )


setup(ext_modules=[fold("_claude_fast"), fold("_codex_fast")])
