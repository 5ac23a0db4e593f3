from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_core.backends import create_backend
from skillopt_core.envs import create_environment
from skillopt_core.envs.qa import QAEnvironment, SplitFormatError
from skillopt_core.envs.scoring import best_scores, exact_match, normalize_answer, token_f1

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"


def test_squad_normalisation_and_scores() -> None:
    assert normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert exact_match("the Eiffel tower", "Eiffel Tower") == 1.0
    assert token_f1("Marie Curie", "Curie") == pytest.approx(2 / 3)
    assert best_scores("twelve", ["12", "twelve"]) == (1.0, 1.0)
    assert best_scores("x", []) == (0.0, 0.0)


def test_toy_split_loads_with_aliases() -> None:
    env = create_environment("qa", {"split_dir": TOY})
    assert len(env.items("train")) == 63
    assert env.items("valid_seen") == env.items("val")
    assert env.items("valid_unseen") == env.items("test")
    assert len(env.items("all")) == 63 + 35 + 70
    ids = [i.id for i in env.items("all")]
    assert len(ids) == len(set(ids))


def test_rollout_and_score_use_the_skill_and_report_reasons() -> None:
    env = QAEnvironment(TOY)
    target = create_backend("mock")
    item = next(i for i in env.items("train") if i.get("requirement") == "units")
    rollout = env.rollout("", item, target)
    score = env.score(item, rollout)
    assert score.hard == 0.0
    assert "expected one of" in score.reason
    fixed = env.rollout(
        "- Keep the unit of measure with quantities (e.g. 340 m, 12 kg).", item, target
    )
    assert env.score(item, fixed).hard == 1.0
    assert rollout.trajectory[0]["role"] == "user"


def test_malformed_split_files_give_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "items.json").write_text("{not json")
    env = QAEnvironment(tmp_path)
    with pytest.raises(SplitFormatError, match="not valid JSON"):
        env.items("train")
    with pytest.raises(SplitFormatError, match="does not exist"):
        env.items("val")
    (tmp_path / "train" / "items.json").write_text(json.dumps([{"question": "no id"}]))
    with pytest.raises(SplitFormatError, match="needs at least"):
        QAEnvironment(tmp_path).items("train")
