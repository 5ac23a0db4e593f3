"""Output that cannot be written (a full disk, a closed pipe) is a message, and nothing is lost.

``/dev/full`` fails every write with ENOSPC, as a full disk does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from faults._cli import home_args, sleep_cli
from faults._sessions import PROJECT, write_session

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"


def _to_full(argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    with open("/dev/full", "wb") as full:
        return subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, timeout=300, check=False)


def _clean_failure(result: subprocess.CompletedProcess[bytes]) -> str:
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 1, err
    assert "Traceback" not in err
    assert "could not write" in err and "No space left on device" in err
    return err


def test_a_committed_harvest_whose_summary_cannot_be_printed_is_not_committed(
    tmp_path: Path,
) -> None:
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix the login test"])
    base = ["harvest", "-p", PROJECT, *home_args({"claude": home}),
            "--state-dir", str(tmp_path / "state")]  # fmt: skip
    _clean_failure(_to_full([sys.executable, "-m", "skillopt_sleep", *base, "--commit"]))
    out = tmp_path / "sessions.json"
    again = sleep_cli([*base, "--commit", "-o", str(out)])
    assert again.returncode == 0, again.stderr.decode()
    assert [s["session_id"] for s in json.loads(out.read_text())] == ["s1"]  # delivered again


@pytest.mark.parametrize("command", [["mine", "--embedder", "jaccard"], ["status"]])
def test_json_to_a_full_disk_is_a_message(tmp_path: Path, command: list[str]) -> None:
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix the login test"])
    write_session(home, "s2", ["fix the login test again"])
    homes = home_args({"claude": home}) if command[0] == "mine" else []
    project = PROJECT if command[0] == "mine" else str(tmp_path)  # status needs a real folder
    argv = [sys.executable, "-m", "skillopt_sleep", *command, "-p", project, *homes, "--json"]
    if command[0] == "mine":
        argv += ["--archive", str(tmp_path / "archive.sqlite3")]
    _clean_failure(_to_full(argv))


def test_train_json_to_a_full_disk_is_a_message(tmp_path: Path) -> None:
    script = "import sys; from skillopt_core.cli import main; sys.argv[0] = 'skillopt'; main()"
    argv = [sys.executable, "-c", script, "train", "--split-dir", str(TOY), "--out-root",
            str(tmp_path / "run"), "--backend", "mock", "--epochs", "1", "--json"]  # fmt: skip
    _clean_failure(_to_full(argv))


def test_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    for number in range(40):
        write_session(home, f"s{number}", [f"fix the login test {number}"])
    argv = [sys.executable, "-m", "skillopt_sleep", "harvest", "-p", PROJECT,
            *home_args({"claude": home}), "--state-dir", str(tmp_path / "state"), "--json"]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()  # the reader goes away, as `| head -c 10` does
    err = process.stderr.read().decode("utf-8", "replace")
    assert process.wait(timeout=120) in (0, 1)
    assert "Traceback" not in err and "Exception ignored" not in err


def test_harvest_json_into_a_closed_pipe_says_the_reader_left(tmp_path: Path) -> None:
    """`harvest --json | head`: the disk is fine, so the fix must not say "free space"."""
    home = tmp_path / ".claude"
    for number in range(40):
        write_session(home, f"s{number}", [f"fix the login test number {number} " + "x" * 2000])
    argv = [sys.executable, "-m", "skillopt_sleep", "harvest", "-p", PROJECT,
            *home_args({"claude": home}), "--state-dir", str(tmp_path / "state"),
            "--json", "--commit"]  # fmt: skip
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        done = subprocess.run(argv, stdout=write_end, stderr=subprocess.PIPE, timeout=300)
    finally:
        os.close(write_end)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1 and "Traceback" not in err, err
    assert "closed the pipe" in err and "free space" not in err
    out = tmp_path / "sessions.json"
    again = sleep_cli([*argv[3:-2], "--commit", "-o", str(out)])
    assert again.returncode == 0, again.stderr.decode()
    assert len(json.loads(out.read_text())) == 40  # nothing was recorded by the failed run
