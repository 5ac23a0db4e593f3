"""An unknown embedder's message lists every choice: ``auto`` (the default) was missing."""

from __future__ import annotations

import pytest

from skillopt_core.registry import UnknownEntryError
from skillopt_sleep.mine.embed import create_embedder


def test_an_unknown_embedder_names_auto_among_the_choices() -> None:
    with pytest.raises(UnknownEntryError) as caught:
        create_embedder("minlm")
    assert "known: auto, " in str(caught.value) and "did you mean 'minilm'" in str(caught.value)
