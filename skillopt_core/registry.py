"""One small registry type, used for every extension point (backends, environments, judges...)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from skillopt_core.errors import UsageError
from skillopt_core.suggest import did_you_mean

T = TypeVar("T")


class UnknownEntryError(UsageError, KeyError):
    """Raised when a registry has no entry under the requested name."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.kind, self.name, self.known = kind, name, known
        super().__init__(
            f"unknown {kind} {name!r}{did_you_mean(name, known)}; "
            f"known: {', '.join(known) or '(none)'}"
        )


class Registry(Generic[T]):
    """Name -> entry mapping with a decorator for registration and a helpful lookup error."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        def decorate(entry: T) -> T:
            self.add(name, entry)
            return entry

        return decorate

    def add(self, name: str, entry: T) -> None:
        if name in self._entries and self._entries[name] is not entry:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._entries[name] = entry

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownEntryError(self.kind, name, sorted(self._entries)) from None

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
