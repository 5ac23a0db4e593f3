"""The suite-wide guard of ``tests/conftest.py``: no test reaches this machine's scheduler
(``crontab``, ``launchctl``, ``schtasks``, ``systemctl``, ``at``) or the user's real home, config
and state folders, whether it runs them itself, through a child with its own PATH, or by path;
and a test that runs a scheduler without asking for the fake one fails, naming the call."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests._guard import REFUSED_EXIT, SCHEDULERS, StandIns

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="the stand-ins are sh scripts")
ROOT = Path(__file__).resolve().parent.parent
Refusals = Callable[[], list[tuple[str, ...]]]


def _basetemp(path: Path) -> Path:
    """The pytest temp root ``path`` is in (every test's fake home and stand-ins live there)."""
    return next(p for p in path.resolve().parents if p.name.startswith("pytest-"))


def test_home_config_and_state_are_not_the_users(tmp_path: Path) -> None:
    import platformdirs

    from skillopt_sleep.engine.config import user_config_path
    from skillopt_sleep.install import Homes
    from skillopt_sleep.paths import state_dir

    home = Path.home().resolve()
    assert home != Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()
    assert home.is_relative_to(_basetemp(tmp_path))
    homes = Homes.from_env()
    for path in (
        state_dir(),
        user_config_path(),
        Path(platformdirs.user_state_dir("skillopt-sleep")),
        Path(platformdirs.user_config_dir("skillopt-sleep")),
        homes.claude,
        homes.codex,
        homes.copilot,
    ):
        assert path.resolve().is_relative_to(home), path
    assert not [name for name in os.environ if name.startswith("SKILLOPT_SLEEP_")]


@posix_only
def test_every_scheduler_on_path_is_a_stand_in(tmp_path: Path) -> None:
    for name in SCHEDULERS:
        found = shutil.which(name)
        assert found is not None and Path(found).resolve().is_relative_to(_basetemp(tmp_path))


@posix_only
def test_a_scheduler_run_without_opting_in_is_refused_and_recorded(
    scheduler_refusals: Refusals, tmp_path: Path
) -> None:
    from skillopt_sleep.schedule import schedule_info

    done = subprocess.run(["sh", "-c", "crontab -l"], capture_output=True, text=True, check=False)
    assert done.returncode == REFUSED_EXIT and "fake_scheduler" in done.stderr
    assert schedule_info(tmp_path)["installed"] is False  # status asked, and was refused
    assert scheduler_refusals() == [("crontab", "-l"), ("crontab", "-l")]


@posix_only
def test_a_child_given_the_machines_path_still_meets_the_stand_ins(
    scheduler_refusals: Refusals, tmp_path: Path
) -> None:
    done = subprocess.run(
        ["sh", "-c", 'command -v crontab; echo "$HOME"; crontab -l'],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    found, home = done.stdout.splitlines()
    assert Path(found).resolve().is_relative_to(_basetemp(tmp_path))
    assert home == os.environ["HOME"]
    assert done.returncode == REFUSED_EXIT and scheduler_refusals() == [("crontab", "-l")]


@pytest.mark.parametrize("program", ["/usr/bin/crontab", "/bin/launchctl", "/usr/bin/systemctl"])
def test_a_scheduler_named_by_its_path_is_never_started(program: str) -> None:
    with pytest.raises(RuntimeError, match="fake_scheduler"):
        subprocess.run([program, "--help"], capture_output=True, check=False)


@posix_only
def test_an_opted_in_test_and_its_children_get_the_fake(fake_scheduler: StandIns) -> None:
    from skillopt_sleep.schedule.runner import run_command

    assert run_command(["crontab", "-"], "0 3 * * * true\n").returncode == 0
    child = subprocess.run(
        ["sh", "-c", "crontab -l"], env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True
    )
    assert child.stdout == "0 3 * * * true\n" == fake_scheduler.crontab.read_text()
    assert fake_scheduler.calls() == [("crontab", "-"), ("crontab", "-l")]


@posix_only
def test_a_test_that_runs_the_scheduler_without_opting_in_fails(tmp_path: Path) -> None:
    """An inner pytest session under this conftest: a test that runs `status`'s crontab probe
    without ``fake_scheduler`` fails at teardown, naming the call; one that requests it passes."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_inner.py").write_text(
        "import subprocess\n"
        "def test_careless():\n"
        "    subprocess.run(['crontab', '-l'], capture_output=True)\n"
        "def test_careful(fake_scheduler):\n"
        "    subprocess.run(['crontab', '-l'], capture_output=True)\n"
    )
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider"),
            *("-q", "--basetemp", str(tmp_path / "inner"), "test_inner.py"),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 passed, 1 error" in done.stdout, done.stdout  # test_careless: passed, then error
    assert "ERROR test_inner.py::test_careless" in done.stdout
    assert "ran the scheduler (crontab -l) without the fake_scheduler fixture" in done.stdout
