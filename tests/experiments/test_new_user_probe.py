"""What a skeptical new user met running the experiments, each fixed.

Before: ``--keep world/`` (relative, as ``--help`` shows it) wrote transcripts whose ``cwd`` no
project matched, so every night found nothing and the proof failed with 0 calls; ``--nights 13``
ran nights over "days 1-0"; a run printed nothing until it had finished; a stopped run left its
half-filled ``--keep`` folder, which the same command then refused, without a word; a summary
listed 3 of 7 landed harmful edits as if they were all; ``--json`` through a link replaced the
link, and into a pipe renamed a file over it (over ``/dev/stdout`` itself, run as root).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from experiments import proof, sweep
from experiments._cli import check_output_file, write_whole
from experiments.proof import EditRecord, ExperimentResult, ExperimentSpec
from experiments.render import summary_lines
from experiments.run_experiment import main
from skillopt_sleep.engine import run_night as engine_night


def test_a_relative_keep_folder_is_the_world_the_nights_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--nights", "1", "--keep", "world/", "--json", "out.json"]) == 0
    (result,) = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert result["totals"]["calls"] > 0 and result["final"] > result["baseline"]
    assert sorted(p.name for p in (tmp_path / "world").iterdir()) == ["dev", "home", "state"]


def test_more_nights_than_training_days_are_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("ran")

    monkeypatch.setattr("experiments.run_experiment.run", never)
    monkeypatch.setattr(sweep, "run_job", never)
    assert main(["--nights", "13"]) == 2
    assert "error: --nights must be 1 to 12, not 13" in capsys.readouterr().err
    assert sweep.main(["--nights", "13", "--out", str(tmp_path / "out")]) == 2
    assert "error: --nights must be 1 to 12, not 13" in capsys.readouterr().err


def _stopped_at_night(night: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C as the run reaches ``night``'s first project."""
    calls: list[Path] = []

    def run_night(project: Path, *args: Any, **kwargs: Any) -> Any:
        calls.append(project)
        if len(calls) > 2 * (night - 1):  # two projects a night (the researcher's)
            raise KeyboardInterrupt
        return engine_night(project, *args, **kwargs)

    monkeypatch.setattr(proof, "run_night", run_night)


def test_a_run_shows_each_night_as_it_lands(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stopped_at_night(2, monkeypatch)
    assert main(["--nights", "2"]) == 130
    out = capsys.readouterr().out
    assert "baseline (before night 1): 0.0%" in out and "  night 1 (days 1-6" in out


def test_a_stopped_kept_run_says_its_world_is_left_and_how_to_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "world"
    _stopped_at_night(1, monkeypatch)
    assert main(["--nights", "1", "--keep", str(kept)]) == 130
    err = capsys.readouterr().err
    assert err.startswith("error: interrupted")
    assert f"unfinished world is left in {kept}" in err and "another --keep" in err


def test_a_refused_keep_folder_is_not_called_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mine.txt").write_text("a user's file", encoding="utf-8")
    assert main(["--keep", str(tmp_path)]) == 2
    assert "unfinished" not in capsys.readouterr().err


def _harmful(night: int, content: str) -> EditRecord:
    return EditRecord(night, "blog", "add", content, "", True, 0.1, "too broad")


def test_a_summary_counts_the_harmful_edits_it_does_not_list() -> None:
    long = "In every answer, whatever the request: " + "keep it short " * 10
    edits = tuple(_harmful(n, f"{n} {long}") for n in range(1, 6))
    result = ExperimentResult(
        ExperimentSpec(), 0.0, (), 0.5, 0.5, 0.1, 0.9, "better", 24, edits, {}, 0
    )
    lines = summary_lines(result)
    listed = [line for line in lines if line.startswith("  LANDED harmful edit")]
    assert len(listed) == 3 and all(line.endswith("...") for line in listed)
    assert "  ... and 2 more harmful edits LANDED (every edit is in --json)" in lines
    few = summary_lines(replace(result, edits=edits[:3]))
    assert not [line for line in few if "more harmful" in line]


def test_json_through_a_link_replaces_the_file_it_names(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    check_output_file(link, "--json")
    write_whole(link, "new\n")
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "new\n"


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes are POSIX")
def test_json_into_a_pipe_is_written_into_it(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    read: list[str] = []
    reader = threading.Thread(target=lambda: read.append(pipe.read_text(encoding="utf-8")))
    reader.start()
    check_output_file(pipe, "--json")
    write_whole(pipe, "[]\n")
    reader.join(timeout=10)
    assert read == ["[]\n"] and not pipe.is_file()


def test_dev_stdout_is_written_where_it_is_never_renamed_over() -> None:
    """Only the predicate is exercised on /dev: a regression would rename a file over the
    machine's /dev/stdout when run as root."""
    from experiments._cli import in_place

    assert in_place(Path("/dev/stdout")) and in_place(Path("/dev/null"))
    assert not in_place(Path("result.json"))
    check_output_file(Path("/dev/null"), "--json")
