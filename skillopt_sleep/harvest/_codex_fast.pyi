from collections.abc import Callable
from typing import Any

SOURCE_DIGEST: str

def fold_lines(
    on_message: Callable[[Any, str, list[str], float | None], object],
    data: bytes,
    start: int,
    end: int,
    state: Any,
    sidechains: bool,
    /,
) -> tuple[int, int, int, int]: ...
def configure(text_window: int, input_window: int, result_window: int, /) -> None: ...
