"""The experiments' command lines refuse what they cannot do, before any work, in one line each.

A negative seed was a numpy traceback, ``--nights 0`` and ``-1`` "succeeded" on the baseline,
``--json`` into a folder or a missing folder failed with a traceback after the whole run, a reused
``--keep`` folder silently scored the baseline again ("nothing new"), ``--transfer`` ignored
``--keep``/``--profile``/``--backend`` while claiming to keep a world, and the sweep's bad
``--seeds``/``--out`` were tracebacks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from experiments import sweep
from experiments.run_experiment import main


def _refused(capsys: pytest.CaptureFixture[str], code: int, expected: int, words: str) -> None:
    out, err = capsys.readouterr()
    assert code == expected
    assert err.startswith("error: ") and words in err and "Traceback" not in err
    assert "baseline" not in out  # refused before any work


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--seed", "-1"], "--seed must be 0 or more"),
        (["--nights", "0"], "--nights must be 1 to 12"),
        (["--nights", "-1"], "--nights must be 1 to 12"),
        (["--nights", "1", "--json", "."], "is a folder"),
        (["--nights", "1", "--json", "missing/result.json"], "does not exist"),
        (["--nights", "1", "--transfer", "--keep", "world"], "--transfer does not combine"),
        (["--nights", "1", "--transfer", "--profile", "b"], "--transfer does not combine"),
    ],
)
def test_run_experiment_refuses_before_any_work(
    argv: list[str],
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    _refused(capsys, main(argv), 2, words)
    assert not (tmp_path / "world").exists()


def test_a_kept_world_is_never_reused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = tmp_path / "world"
    (kept / "state").mkdir(parents=True)
    _refused(capsys, main(["--nights", "1", "--keep", str(kept)]), 2, "not an empty folder")


def _fake_run(job: sweep.Job) -> dict[str, Any]:
    return {"key": job.key, "persona": job.persona, "ablation": job.ablation, "seed": job.seed}


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--seeds", "x"], "give seeds as 0-4"),
        (["--seeds", "4-0", "--transfer-seeds", "4-0"], "is empty"),
        (["--seeds", "-1"], "give seeds as 0-4"),
        (["--transfer-seeds", ""], "give seeds as 0-4"),
    ],
)
def test_sweep_refuses_seeds_it_cannot_read(
    argv: list[str],
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sweep, "run_job", _fake_run)
    with pytest.raises(SystemExit) as stopped:
        sweep.main([*argv, "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["--workers", "0"], 2, "--workers must be 1 or more"),
        (["--nights", "0"], 2, "--nights must be 1 to 12"),
        (["--out", "a-file"], 1, "cannot use a-file for the sweep"),
    ],
)
def test_sweep_refuses_before_any_run(
    argv: list[str],
    code: int,
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    ran: list[sweep.Job] = []

    def run_job(job: sweep.Job) -> dict[str, Any]:
        ran.append(job)
        return _fake_run(job)

    monkeypatch.setattr(sweep, "run_job", run_job)
    argv = ["--seeds", "0", "--transfer-seeds", "0", "--out", "out", *argv]
    try:
        result: object = sweep.main(argv)
    except Exception as exc:  # a traceback is the fault this test is about
        result = exc
    err = capsys.readouterr().err
    assert result == code and err.startswith("error: ") and words in err
    assert not ran
