"""Symmetric int8 rows with a float32 scale each: how the shipped tables and weights are stored.

``quantise`` is used by the build scripts, ``dequantise`` at load time. A row's scale is its
largest magnitude over 127, so every row keeps its own range (an embedding row or a linear
layer's output channel), which is what keeps the model's outputs close to the float32 ones.
"""

from __future__ import annotations

import numpy as np

SCALE_SUFFIX = (
    ".int8_scale"  # a quantised tensor ``name`` has its scales in ``name + SCALE_SUFFIX``
)


def quantise(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and the float32 scale of each (``row ~ q * scale``)."""
    scales = (np.abs(rows).max(axis=1) / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0).astype(np.float64)
    q = np.clip(np.rint(rows / safe[:, None]), -127, 127).astype(np.int8)
    return q, scales


def dequantise(rows: np.ndarray, scales: np.ndarray) -> np.ndarray:
    return rows.astype(np.float32) * scales.astype(np.float32)[:, None]
