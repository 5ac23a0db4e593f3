from typing import Any

SOURCE_DIGEST: str

def fold(line: bytes, meta: dict[str, Any], events: list[Any], sidechains: bool, /) -> int: ...
def configure(text_window: int, input_window: int, result_window: int, /) -> None: ...
def fold_lines(
    data: bytes,
    start: int,
    end: int,
    state: Any,
    sidechains: bool,
    /,
) -> tuple[int, int, int, int]: ...
