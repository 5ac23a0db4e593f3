"""Test-wide guards: no test may reach a real model provider or any non-loopback address, this
machine's scheduler (crontab, launchctl, schtasks, systemctl, at), or the user's real home, config
and state folders (see :mod:`tests._guard` and :func:`_isolated_machine`)."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests import _guard

# Property tests draw the same examples on every run and machine (a seed per test), and keep no
# example database: a CI run is red or green for the code, never for the draw. A failure found
# once stays a test in its own right (written out as a plain example).
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")

_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "COPILOT_GITHUB_TOKEN",
)


def _is_loopback(address: object) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # unix sockets and the like
    host = str(address[0])
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True, scope="session")
def _no_real_network() -> Iterator[None]:
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: object) -> object:
        if not _is_loopback(address):
            raise RuntimeError(f"tests may only reach loopback addresses, not {address!r}")
        return original_connect(self, address)  # type: ignore[arg-type]

    def guarded_connect_ex(self: socket.socket, address: object) -> int:
        if not _is_loopback(address):
            raise RuntimeError(f"tests may only reach loopback addresses, not {address!r}")
        return original_connect_ex(self, address)  # type: ignore[arg-type]

    socket.socket.connect = guarded_connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _no_provider_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def _scheduler_guard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_guard.Guard]:
    """The refusing scheduler stand-ins, and ``subprocess.Popen`` guarded, for the session."""
    refusing = _guard.write_stubs(tmp_path_factory.mktemp("scheduler-stand-ins"))
    guard = _guard.Guard(refusing, refusing)
    with _guard.guard_popen(guard, tmp_path_factory.getbasetemp()):
        yield guard


_HARNESS_HOMES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "VSCODE_PORTABLE")
_XDG = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_STATE_HOME": ".local/state",
    "XDG_DATA_HOME": ".local/share",
    "XDG_CACHE_HOME": ".cache",
}


# Modules whose tests run `status`, `doctor` or the MCP `status` tool on a project with no
# schedule record, which asks the crontab (see skillopt_sleep.schedule.probe): opted in to the
# fake scheduler here, as if each test requested `fake_scheduler`. A new test should request it.
_ASKS_THE_SCHEDULER = frozenset(
    {
        "tests/cli_docs/test_walkthrough_fixes.py",
        "tests/engine/test_cli_night.py",
        "tests/engine/test_kill.py",
        "tests/engine/test_night.py",
        "tests/engine/test_upgrade_state_dir.py",
        "tests/faults/test_full_output.py",
        "tests/integrations/test_claude_code.py",
        "tests/integrations/test_claude_interactive.py",
        "tests/integrations/test_codex_cli.py",
        "tests/integrations/test_copilot_cli.py",
        "tests/integrations/test_doctor.py",
        "tests/integrations/test_mcp_inspector.py",
        "tests/integrations/test_mcp_server.py",
        "tests/integrations/test_mcp_stdio.py",
        "tests/integrations/test_plugin_scripts.py",
        "tests/mcp_nights/test_detached_nights.py",
        "tests/stage/test_transaction_faults.py",
    }
)


@pytest.fixture(autouse=True)
def _isolated_machine(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    _scheduler_guard: _guard.Guard,
) -> Iterator[Path]:
    """Every test: HOME and the XDG folders (so platformdirs' state and config dirs, and
    ``~/.claude``, ``~/.codex``, ``~/.copilot``) in a fresh temp folder; none of the developer's
    ``SKILLOPT_SLEEP_*`` or harness home variables; the refusing scheduler stand-ins first on
    PATH. A test that ran one (it did not request ``fake_scheduler``) fails here, naming the call."""
    guard = _scheduler_guard
    home = tmp_path_factory.mktemp("home")
    for name in list(os.environ):
        if name.startswith("SKILLOPT_SLEEP_") or name in _HARNESS_HOMES:
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    if sys.platform == "win32":  # pragma: no cover - platformdirs reads these there
        for name in ("USERPROFILE", "APPDATA", "LOCALAPPDATA"):
            monkeypatch.setenv(name, str(home))
    for name, relative in _XDG.items():
        monkeypatch.setenv(name, str(home / relative))
    monkeypatch.setenv("PATH", f"{guard.refusing}{os.pathsep}{os.environ.get('PATH', '')}")
    guard.first = guard.refusing
    if request.node.nodeid.split("::")[0] in _ASKS_THE_SCHEDULER:
        request.getfixturevalue("fake_scheduler")
    start = _guard.log_size(guard.refusing)
    yield home
    guard.first = guard.refusing
    refused = _guard.read_calls(guard.refusing, start)
    if refused and "scheduler_refusals" not in request.fixturenames:
        shown = "; ".join(" ".join(c.argv) for c in refused)
        pytest.fail(
            f"this test ran the scheduler ({shown}) without the fake_scheduler fixture: the "
            "real one must never be reached from a test",
            pytrace=False,
        )


@pytest.fixture
def fake_scheduler(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    _scheduler_guard: _guard.Guard,
) -> _guard.StandIns:
    """Opt in to fake schedulers, first on PATH: ``crontab`` plays a user crontab kept in a temp
    file (absent = "no crontab for tester"), the others succeed; every call is recorded."""
    folder = tmp_path_factory.mktemp("fake-scheduler")
    table = folder / "crontab.txt"
    _guard.write_stubs(folder, table)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    _scheduler_guard.first = folder
    return _guard.StandIns(table, folder, 0)


@pytest.fixture
def scheduler_refusals(_scheduler_guard: _guard.Guard) -> Callable[[], list[tuple[str, ...]]]:
    """For a test of the guard itself: the refused calls so far (which then do not fail it)."""
    folder = _scheduler_guard.refusing
    start = _guard.log_size(folder)
    return lambda: [c.argv for c in _guard.read_calls(folder, start)]


def _expose_project_harness_clis() -> None:
    """Put the harness CLIs that `scripts/bootstrap.sh --dev` installed under .tools/ on PATH."""
    import os
    from pathlib import Path

    bin_dir = Path(__file__).resolve().parent.parent / ".tools" / "node" / "node_modules" / ".bin"
    if bin_dir.is_dir() and str(bin_dir) not in os.environ.get("PATH", ""):
        os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


_expose_project_harness_clis()
