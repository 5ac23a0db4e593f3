"""MPNet (all-mpnet-base-v2's network) in plain numpy, as a variant of ``_bert.BertEncoder``.

It differs from BERT in four places, each taken from the HF ``MPNetModel`` forward in eval mode:
``<s>``/``</s>`` around the pieces; no token type embedding; positions counted from the padding
id plus one (row 2 for the first token); and a relative position bias shared by every layer,
added to the attention scores: a learned value per head for each of 32 buckets of the key's
offset from the query (exact up to 8 either way, then logarithmic up to 128). The tensors of a
layer have other names; the arithmetic is BERT's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np

from skillopt_sleep.mine.embed._bert import BertEncoder

BUCKETS = 32
MAX_DISTANCE = 128


def relative_buckets(
    t: int, buckets: int = BUCKETS, max_distance: int = MAX_DISTANCE
) -> np.ndarray:
    """The bucket (``t x t``) of each key's offset from each query, as MPNet buckets it."""
    offset = np.arange(t)[None, :] - np.arange(t)[:, None]
    n = -offset
    half = buckets // 2
    found = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    with np.errstate(divide="ignore"):
        scaled = np.log(np.maximum(n, 1).astype(np.float32) / exact) / math.log(
            max_distance / exact
        )
    large = exact + (scaled * (half - exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return np.asarray(found + np.where(n < exact, n, large), dtype=np.int64)


class MPNetEncoder(BertEncoder):
    """An MPNet model directory's last hidden states, computed with numpy."""

    position_offset: ClassVar[int] = 2  # padding id 1, plus one
    special_tokens: ClassVar[tuple[str, str]] = ("<s>", "</s>")
    layer_names: ClassVar[Mapping[str, str]] = {
        "q": "attention.attn.q",
        "k": "attention.attn.k",
        "v": "attention.attn.v",
        "o": "attention.attn.o",
        "norm1": "attention.LayerNorm",
        "up": "intermediate.dense",
        "down": "output.dense",
        "norm2": "output.LayerNorm",
    }

    def _build_more(self, config: dict[str, object], w: Callable[[str], np.ndarray]) -> None:
        self.relative = w("encoder.relative_attention_bias.weight")  # (buckets, heads)
        self._bias: dict[int, np.ndarray] = {}

    def position_bias(self, t: int) -> np.ndarray:
        """``heads x t x t``, cached by length (batches run sorted by length)."""
        bias = self._bias.get(t)
        if bias is None:
            bias = np.ascontiguousarray(self.relative[relative_buckets(t)].transpose(2, 0, 1))
            self._bias[t] = bias
        return bias
