"""Keep the miner's state out of the user's home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _state_home(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "sleep-home"))


@pytest.fixture(scope="session")
def minilm():
    """One MiniLM load for the whole test session (skipped without the `embeddings` extra)."""
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("sentence-transformers is not installed (the `embeddings` extra)")
    from skillopt_sleep.mine.embed import create_embedder

    return create_embedder("minilm")
