from collections.abc import Sequence

SOURCE_DIGEST: str

def configure(
    literals: Sequence[tuple[str, int, int]],
    margin: int,
    words: Sequence[tuple[str, int, int]],
    vector: bool = True,
    /,
) -> None: ...
def scan_hits(text: str, /) -> str: ...
def gate_mask(low: str, skip: int, /) -> int: ...
def vector() -> bool: ...
