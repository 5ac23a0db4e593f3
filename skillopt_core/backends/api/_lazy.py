"""One SDK client per backend instance, created on first use (so importing a backend stays cheap)."""

from __future__ import annotations

import threading
from typing import Any


class LazyClient:
    """Mixin: ``client()`` builds the SDK client once, thread-safely, via ``_make_client()``."""

    _client: Any = None
    _client_lock: threading.Lock

    def _make_client(self) -> Any:
        raise NotImplementedError

    def client(self) -> Any:
        lock = self.__dict__.setdefault("_client_lock", threading.Lock())
        with lock:
            if self._client is None:
                self._client = self._make_client()
            return self._client
