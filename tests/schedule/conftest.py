"""Schedule tests: state and config inside the test's temp dir, and a fake OS that plays the
crontab, launchctl and schtasks so no test touches the real scheduler."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from skillopt_sleep.schedule import Completed, Host
from tests._isolation import isolate_sleep_state


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)


@dataclass
class FakeOS:
    """Records every command; keeps one user crontab (None = "no crontab for user")."""

    crontab: str | None = None
    calls: list[list[str]] = field(default_factory=list)
    fail: dict[str, Completed] = field(default_factory=dict)  # argv[1] -> forced result
    writes: int = 0

    def __call__(self, argv: Sequence[str], stdin: str | None = None) -> Completed:
        argv = list(argv)
        self.calls.append(argv)
        if len(argv) > 1 and argv[1] in self.fail:
            return self.fail[argv[1]]
        if argv[:2] == ["crontab", "-l"]:
            if self.crontab is None:
                return Completed(1, "", "no crontab for dev\n")
            return Completed(0, self.crontab, "")
        if argv[:2] == ["crontab", "-"]:
            self.crontab = stdin or ""
            self.writes += 1
            return Completed(0)
        return Completed(0)


@pytest.fixture
def fake_os() -> FakeOS:
    return FakeOS()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "my project"
    root.mkdir()
    return root


def host(platform: str, runner: FakeOS, home: Path) -> Host:
    return Host(platform=platform, runner=runner, home=str(home), uid=501)
