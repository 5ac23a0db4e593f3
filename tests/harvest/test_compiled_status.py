"""Whether the readers' C folds are used, and what ``doctor`` says about them."""

from __future__ import annotations

import shutil
import types
from pathlib import Path

import pytest

from skillopt_core import _native
from skillopt_sleep.harvest import _compiled
from skillopt_sleep.install import doctor

SOURCE = Path(_compiled.__file__).parent


def test_pure_python_switch_turns_the_folds_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_PURE_PYTHON", "1")
    assert _compiled.status("_claude_fast") == ("off", None)
    assert _compiled.load("_codex_fast") is None


def test_a_fold_built_from_another_source_is_stale(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SKILLOPT_PURE_PYTHON", raising=False)
    if _compiled.status("_claude_fast")[0] != "built":
        pytest.skip("the C folds are not built here")
    for header in ("_json_scan.h", "_fold.h"):
        shutil.copy(SOURCE / header, tmp_path)
    edited = (SOURCE / "_claude_fast.c").read_text(encoding="utf-8") + "\n/* edited */\n"
    (tmp_path / "_claude_fast.c").write_text(edited, encoding="utf-8")
    monkeypatch.setattr(_compiled, "_HERE", tmp_path)
    assert _compiled.status("_claude_fast") == ("stale", None)


def test_a_missing_module_is_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLOPT_PURE_PYTHON", raising=False)
    assert _compiled.status("_no_such_fold") == ("not built", None)


@pytest.mark.parametrize(
    ("found", "level", "says"),
    [
        ("built", "ok", "C folds and the redactor's C scans"),
        ("stale", "warn", "pip install -e ."),
        ("not built", "info", "C compiler"),
        ("off", "info", "SKILLOPT_PURE_PYTHON"),
    ],
)
def test_doctor_reports_the_folds_and_the_scans(
    monkeypatch: pytest.MonkeyPatch, found: str, level: str, says: str
) -> None:
    monkeypatch.setattr(_native, "status", lambda module, sources: (found, None))
    check = doctor.compiled_check()
    assert check.level == level
    assert says in check.detail + check.hint


def test_pure_python_switch_at_zero_leaves_the_folds_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_PURE_PYTHON", "0")
    assert _compiled.status("_no_such_fold")[0] == "not built"  # looked for, not switched off


@pytest.mark.parametrize("name", _compiled.FOLDS)
def test_windows_are_bounded(name: str) -> None:
    module = _compiled.load(name)
    if module is None:
        pytest.skip("the C folds are not built here")
    with pytest.raises(ValueError, match="windows"):
        module.configure(1, 1, 1 << 62)  # the offsets added to it would overflow


def test_a_state_without_meta_raises_its_own_error() -> None:
    module = _compiled.load("_claude_fast")
    if module is None:
        pytest.skip("the C folds are not built here")
    with pytest.raises(AttributeError, match="meta"):
        module.fold_lines(b"{}\n", 0, 3, types.SimpleNamespace(events=[]), False)
