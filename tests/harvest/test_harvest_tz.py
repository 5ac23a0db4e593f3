"""The harvest output does not depend on the machine's timezone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_CHILD = """
import sys
from skillopt_sleep.harvest import harvest
from skillopt_sleep.jsonable import dumps
result = harvest(sys.argv[1], sources=("claude", "codex"), index=":memory:",
                 homes={"claude": sys.argv[2], "codex": sys.argv[3]}, since="3650d")
print(dumps(list(result.sessions)))
"""


@pytest.mark.integration
def test_same_sessions_in_shanghai_and_los_angeles(homes: dict[str, Path]) -> None:
    outputs = []
    for zone in ("Asia/Shanghai", "America/Los_Angeles", "UTC"):
        env = {**os.environ, "TZ": zone}
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _CHILD,
                "/home/dev/webapp",
                str(homes["claude"]),
                str(homes["codex"]),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert '"started_at": "2026-11-21T11:57:53.769000Z"' in outputs[0]
