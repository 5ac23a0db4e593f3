"""SleepConfig: four layers, provenance for every value, schema errors with suggestions."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.errors import EXIT_USAGE
from skillopt_sleep.engine.config import ConfigError, load_config


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_come_from_nowhere(tmp_path: Path) -> None:
    config = load_config(tmp_path, environ={})
    assert config.backends.target == "mock" and config.night.samples == 2
    assert set(config.sources.values()) == {"default"}


def test_layers_stack_user_project_env_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = _write(
        tmp_path / "user.toml", "[night]\nsamples = 3\nmax_tasks = 5\n[budget]\nmax_calls = 10\n"
    )
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(user))
    project = tmp_path / "proj"
    _write(project / ".skillopt-sleep" / "config.toml", "[night]\nsamples = 4\n")
    config = load_config(
        project,
        {"budget.max_calls": "99"},
        environ={"SKILLOPT_SLEEP_NIGHT_MAX_TASKS": "7", "SKILLOPT_SLEEP_HOME": "/ignored"},
    )
    assert (config.night.samples, config.night.max_tasks, config.budget.max_calls) == (4, 7, 99)
    assert config.sources["night.samples"].endswith("config.toml")
    assert config.sources["night.max_tasks"] == "env SKILLOPT_SLEEP_NIGHT_MAX_TASKS"
    assert config.sources["budget.max_calls"] == "flag"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[nigth]\nsamples = 2\n", "did you mean 'night'"),
        ("[night]\nsampels = 2\n", "did you mean 'samples'"),
        ('[night]\nauto_adopt = "false"\n', "night.auto_adopt"),
        ("[night]\nsamples = 2.5\n", "night.samples"),
        ("[night]\nsamples = true\n", "night.samples"),
        ('[schedule]\nat = "25:00"\n', "schedule.at"),
        ("[train]\nlr_min = 5\nlr_max = 2\n", "lr_min"),
        ("not toml [", "not valid TOML"),
        ('[night]\nsince = "forever"\n', "night.since"),
        ('[night]\nsources = ["claude", "cursor"]\n', "unknown source 'cursor'"),
        ('[night]\nsources = ["claude", "codx"]\n', "did you mean 'codex'"),
        ("[budget]\nmax_usd = nan\n", "budget.max_usd"),
        ("[budget]\nmax_usd = inf\n", "finite"),
        ("[backends.options.tagret]\ntimeout = 5\n", "did you mean [backends.options.target]"),
        ("max_tasks = 3\n[night]\nsamples = 2\n", "max_tasks is a key of [night]"),
        ('at = "04:00"\n', "write it under a [schedule] line"),
    ],
)
def test_bad_project_config_is_a_usage_error(tmp_path: Path, text: str, needle: str) -> None:
    _write(tmp_path / ".skillopt-sleep" / "config.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, environ={})
    assert needle in str(caught.value)
    assert caught.value.exit_code == EXIT_USAGE


def test_a_config_that_is_not_toml_says_where_and_what_to_do(tmp_path: Path) -> None:
    """It gave the parser's message alone, with no fix line."""
    path = tmp_path / ".skillopt-sleep" / "config.toml"
    _write(path, "[night\n")
    with pytest.raises(ConfigError, match="not valid TOML") as caught:
        load_config(tmp_path, environ={})
    assert (
        caught.value.hint
        == f"correct that line of {path} (or move the file aside to use the defaults)"
    )


def test_env_and_flags_are_converted_by_type(tmp_path: Path) -> None:
    config = load_config(
        tmp_path,
        {"night.sources": "claude, codex", "night.auto_adopt": "yes"},
        environ={"SKILLOPT_SLEEP_BACKENDS_OPTIONS": "{timeout = 60}"},
    )
    assert config.night.sources == ["claude", "codex"] and config.night.auto_adopt is True
    assert config.backends.options == {"timeout": 60}
    with pytest.raises(ConfigError, match=r"night\.samples"):
        load_config(tmp_path, {"night.samples": "many"}, environ={})
    with pytest.raises(ConfigError, match="did you mean 'max_calls'"):
        load_config(tmp_path, environ={"SKILLOPT_SLEEP_BUDGET_MAX_CALS": "3"})


def test_an_env_var_with_an_unknown_section_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="did you mean SKILLOPT_SLEEP_NIGHT_SAMPLES") as caught:
        load_config(tmp_path, environ={"SKILLOPT_SLEEP_NIGTH_SAMPLES": "2"})
    assert caught.value.exit_code == EXIT_USAGE
    with pytest.raises(ConfigError, match="did you mean SKILLOPT_SLEEP_HOME"):
        load_config(tmp_path, environ={"SKILLOPT_SLEEP_HOEM": "/x"})


def test_env_vars_that_are_not_settings_stay_allowed(tmp_path: Path) -> None:
    names = ("HOME", "CONFIG", "PROJECT", "PYTHON")
    config = load_config(tmp_path, environ={f"SKILLOPT_SLEEP_{n}": "/x" for n in names})
    assert set(config.sources.values()) == {"default"}


def test_night_values_from_env_and_flags_are_checked_at_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"night\.since \(env SKILLOPT_SLEEP_NIGHT_SINCE\)"):
        load_config(tmp_path, environ={"SKILLOPT_SLEEP_NIGHT_SINCE": "forever"})
    with pytest.raises(ConfigError, match=r"night\.sources \(flag\): unknown source 'cursor'"):
        load_config(tmp_path, {"night.sources": "claude,cursor"}, environ={})
    config = load_config(tmp_path, {"night.sources": "vscode,all", "night.since": "2w"}, environ={})
    assert config.night.sources == ["vscode", "all"] and config.night.since == "2w"


def test_lr_min_above_lr_max_names_where_each_was_set(tmp_path: Path) -> None:
    """It said only "train.lr_min must not exceed train.lr_max", naming neither file nor value."""
    path = _write(tmp_path / ".skillopt-sleep" / "config.toml", "[train]\nlr_min = 5\n")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, environ={"SKILLOPT_SLEEP_TRAIN_LR_MAX": "2"})
    assert str(caught.value.message) == (
        f"train.lr_min 5 ({path}) must not exceed train.lr_max 2 (env SKILLOPT_SLEEP_TRAIN_LR_MAX)"
    )
    assert caught.value.hint


def test_with_overrides_keeps_provenance(tmp_path: Path) -> None:
    config = load_config(tmp_path, environ={}).with_overrides({"backends.target": "claude-cli"})
    assert config.backends.target == "claude-cli" and config.sources["backends.target"] == "flag"
    assert config.flat()["backends.optimizer"] == "mock"


def test_state_file_names_match_their_owners() -> None:
    from skillopt_sleep.engine import state
    from skillopt_sleep.harvest._index import INDEX_NAME
    from skillopt_sleep.mine.archive import ARCHIVE_NAME

    assert (state.INDEX_FILE, state.ARCHIVE_FILE) == (INDEX_NAME, ARCHIVE_NAME)


def test_a_config_link_to_a_missing_file_is_an_error_not_no_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user config kept in a dotfiles repo that moved must not silently become the defaults."""
    link = tmp_path / "config.toml"
    link.symlink_to(tmp_path / "dotfiles" / "skillopt-sleep.toml")
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(link))
    with pytest.raises(ConfigError, match=r"is a link to .*dotfiles.*, which does not exist"):
        load_config(tmp_path, environ={})
