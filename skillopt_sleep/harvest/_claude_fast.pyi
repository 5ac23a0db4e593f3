from collections.abc import Callable
from typing import Any

SOURCE_DIGEST: str
IGNORED_TYPES: frozenset[str]

PromptFunction = Callable[[str, float | None, str | None], tuple[list[Any] | None, bool]]

def fold(line: bytes, meta: dict[str, Any], events: list[Any], sidechains: bool, /) -> int: ...
def configure(text_window: int, input_window: int, result_window: int, /) -> None: ...
def set_prompt(function: PromptFunction | None, /) -> None: ...
def fold_lines(
    data: bytes,
    start: int,
    end: int,
    state: Any,
    sidechains: bool,
    /,
) -> tuple[int, int, int, int]: ...
