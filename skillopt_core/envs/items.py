"""Read and validate a split's ``items.json``: ``[{id, question, context?, answers, ...}]``.

Every item is checked against a strict schema (extra fields are kept for the environment and the
mock world); a bad item names the file, its position and id, and what was expected. Ids must be
unique within a split: the evaluator scores per id, so a duplicate would silently merge two items.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from skillopt_core.errors import StorageError, UsageError
from skillopt_core.records import Item


class SplitFormatError(UsageError):
    """An items file is missing or malformed; the message names the file and the fix."""


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("an answer is blank")
    return text


# A blank answer can never be matched, and the mock world derives its mistakes from its words.
_Answer = Annotated[str, AfterValidator(_not_blank)]


class _QAItem(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    id: str | int
    question: str
    context: str | None = None
    answers: _Answer | Annotated[list[_Answer | int | float], Field(min_length=1)]


_EXPECTED = {
    "id": "a string or an integer",
    "question": "a string",
    "context": "a string",
    "answers": "a non-empty list of non-blank accepted answers (or one answer string)",
}


def _problem(error: ValidationError, entry: dict[str, Any]) -> str:
    first = error.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] == "missing":
        return f"needs '{name}' ({_EXPECTED.get(name, 'a value')})"
    value = json.dumps(entry.get(name))
    return f"'{name}' must be {_EXPECTED.get(name, 'valid')}, got {value[:60]}"


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SplitFormatError(
            f"{path} does not exist; a split dir needs train/, val/ and test/items.json"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SplitFormatError(f"{path} is not valid JSON: {exc}") from None
    except OSError as exc:
        raise StorageError(
            f"cannot read {path}: {exc.strerror or exc}", hint="check the file's permissions"
        ) from None


def load_items(path: Path) -> list[Item]:
    raw = _read(path)
    if not isinstance(raw, list):
        raise SplitFormatError(f"{path} must hold a JSON array of items")
    items: list[Item] = []
    seen: dict[str, int] = {}
    for position, entry in enumerate(raw):
        if not isinstance(entry, dict) or "id" not in entry or "question" not in entry:
            raise SplitFormatError(f"{path}: item #{position} needs at least 'id' and 'question'")
        try:
            checked = _QAItem.model_validate(entry)
        except ValidationError as exc:
            raise SplitFormatError(
                f"{path}: item #{position} (id {entry['id']!r}) {_problem(exc, entry)}"
            ) from None
        item_id = str(checked.id)
        if item_id in seen:
            raise SplitFormatError(
                f"{path}: items #{seen[item_id]} and #{position} share the id {item_id!r}; "
                "ids must be unique within a split"
            )
        seen[item_id] = position
        answers = [checked.answers] if isinstance(checked.answers, str) else checked.answers
        items.append(Item(id=item_id, fields={**entry, "answers": list(answers)}))
    return items
