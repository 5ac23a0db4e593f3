"""The optional C fast path of the Claude Code reader. Without a C compiler the build goes on
without it (``optional``) and the reader runs in pure Python, with the same results."""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "skillopt_sleep/harvest/_claude_fast.c"
# The module carries its source's digest: an editable install compiled from an older source is
# recognised as stale and not used (see ``claude._compiled_fold``).
DIGEST = hashlib.sha256((Path(__file__).parent / SOURCE).read_bytes()).hexdigest()

setup(
    ext_modules=[
        Extension(
            "skillopt_sleep.harvest._claude_fast",
            [SOURCE],
            define_macros=[("SOURCE_DIGEST", f'"{DIGEST}"')],
            optional=True,
        )
    ]
)
