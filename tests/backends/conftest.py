"""Fixtures shared by the backend tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.backends._raw import Answer, RawServer


@pytest.fixture
def serve() -> Iterator[Callable[..., RawServer]]:
    """Start :class:`RawServer` instances that are closed after the test."""
    servers: list[RawServer] = []

    def start(*answers: Answer) -> RawServer:
        servers.append(RawServer(*answers))
        return servers[-1]

    yield start
    for server in servers:
        server.close()
