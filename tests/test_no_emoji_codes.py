"""Text a user or a model wrote reaches the terminal through Rich, which turns ``:smile:``-style
codes into emoji by default: a request or an error quoting ``:warning:`` must print as written."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from skillopt_core.cli_errors import print_error

ROOT = Path(__file__).resolve().parents[1]


def test_an_error_message_keeps_its_emoji_codes(capsys: pytest.CaptureFixture[str]) -> None:
    print_error("the request said :smile: and :warning:", "see :red_circle:")
    err = capsys.readouterr().err
    assert ":smile:" in err and ":warning:" in err and ":red_circle:" in err


def _consoles() -> list[tuple[str, ast.Call]]:
    found = []
    for package in ("skillopt_core", "skillopt_sleep"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Console":
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return found


def test_every_console_turns_emoji_codes_off() -> None:
    consoles = _consoles()
    assert len(consoles) >= 5
    missing = [
        where
        for where, call in consoles
        if not any(
            k.arg == "emoji" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in call.keywords
        )
    ]
    assert not missing, f"Console(...) without emoji=False: {missing}"


def test_progress_text_from_fields_is_not_markup() -> None:
    """A progress column showing a status (gate reasons quoting item ids) read it as markup,
    with emoji codes on whatever the console said."""
    columns = []
    for package in ("skillopt_core", "skillopt_sleep"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "TextColumn":
                    first = node.args[0] if node.args else None
                    if isinstance(first, ast.Constant) and "fields[" in str(first.value):
                        columns.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    assert columns
    for where, call in columns:
        assert any(
            k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in call.keywords
        ), where
