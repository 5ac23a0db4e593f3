"""An interrupted or damaged sweep resumes from its whole rows, and one sweep at a time writes a
folder.

Before: half a line left by a full disk made every later run fail on ``json.loads`` (and a new
row appended after it was lost); Ctrl-C was a traceback; two sweeps into one folder both ran every
job and appended duplicates. The runs are faked here: what is tested is the bookkeeping.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from experiments import sweep

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--seeds", "0", "--transfer-seeds", "0", "--nights", "1"]  # 50 jobs


def fake_row(job: sweep.Job) -> dict[str, Any]:
    return {
        "key": job.key,
        "persona": job.persona,
        "ablation": job.ablation,
        "seed": job.seed,
        "nights": job.nights,
        "baseline": 0.0,
        "per_night": [0.5] * job.nights,
        "final": 0.5,
        "delta": 0.5,
        "ci_low": 0.25,
        "ci_high": 0.75,
        "accepted": 1,
        "rejected": 1,
        "harmful_proposed": 1,
        "harmful_rejected": 1,
        "harmful_landed": 0,
        "proof_holds": True,
        "calls": 10,
        "tokens": 100,
    }


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    keys: list[str] = []

    def run_job(job: sweep.Job) -> dict[str, Any]:
        keys.append(job.key)
        return fake_row(job)

    monkeypatch.setattr(sweep, "run_job", run_job)
    return keys


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_half_a_line_is_run_again_and_never_merged(
    tmp_path: Path, ran: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = list(sweep.jobs([0], 1, [0]))
    results = tmp_path / "results.jsonl"
    whole = "".join(json.dumps(fake_row(j)) + "\n" for j in jobs[:3])
    old = {**fake_row(jobs[4]), "tokens": None}
    del old["calls"]  # a row of an older format lacks a field
    results.write_text(whole + json.dumps(old) + "\n" + json.dumps(fake_row(jobs[3]))[:40])
    assert sweep.main([*ARGS, "--out", str(tmp_path)]) == 0
    rows = _lines(results)
    assert sorted(r["key"] for r in rows) == sorted(j.key for j in jobs)
    assert ran == [j.key for j in jobs[3:]]
    assert "dropped 2 unreadable line(s)" in capsys.readouterr().out


def test_a_second_sweep_into_the_same_folder_exits_5(
    tmp_path: Path, ran: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from skillopt_core.lock import exclusive

    with exclusive(tmp_path, "sweep"):
        code = sweep.main([*ARGS, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 5 and "another sweep is using" in err and not ran


def test_an_interrupted_sweep_keeps_its_rows_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    keys: list[str] = []

    def interrupted(job: sweep.Job) -> dict[str, Any]:
        if len(keys) == 4 and not resumed:
            raise KeyboardInterrupt
        keys.append(job.key)
        return fake_row(job)

    resumed = False
    monkeypatch.setattr(sweep, "run_job", interrupted)
    try:
        code: object = sweep.main([*ARGS, "--out", str(tmp_path)])
    except KeyboardInterrupt:
        code = "a traceback"
    err = capsys.readouterr().err
    assert code == 130 and "4 of 50 runs finished" in err and "error: interrupted" in err
    assert [r["key"] for r in _lines(tmp_path / "results.jsonl")] == keys
    assert not (tmp_path / "report.md").exists()
    resumed = True
    assert sweep.main([*ARGS, "--out", str(tmp_path)]) == 0
    assert len(keys) == 50 and len(set(keys)) == 50
    assert "46 to run" in capsys.readouterr().out


FULL_DISK = """
import resource, signal, sys
sys.path.insert(0, {tests!r})
from test_sweep_resume import fake_row
from experiments import sweep
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (2000, resource.RLIM_INFINITY))
sweep.run_job = fake_row
sys.exit(sweep.main(sys.argv[1:]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_write_that_fails_leaves_only_whole_lines(tmp_path: Path, ran: list[str]) -> None:
    """A file-size limit stands in for a full disk: the write that crosses it is cut short."""
    script = FULL_DISK.format(tests=str(Path(__file__).parent))
    argv = [sys.executable, "-c", script, *ARGS, "--out", str(tmp_path)]
    failed = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1, failed.stderr
    assert failed.stderr.startswith("error: could not write") and "Traceback" not in failed.stderr
    kept = _lines(tmp_path / "results.jsonl")  # every line parses
    assert 0 < len(kept) < 50
    assert sweep.main([*ARGS, "--out", str(tmp_path)]) == 0
    assert len(_lines(tmp_path / "results.jsonl")) == 50 and len(ran) == 50 - len(kept)
