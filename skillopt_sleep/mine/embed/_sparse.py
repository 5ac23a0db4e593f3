"""Similarity products that work for dense arrays and scipy sparse matrices alike."""

from __future__ import annotations

from typing import Any

import numpy as np


def blocked_dot(a: Any, b: Any) -> np.ndarray:
    """``a @ b.T`` as a dense float32 array, whichever of the two is sparse."""
    product = a @ b.T
    if hasattr(product, "toarray"):
        product = product.toarray()
    return np.asarray(product, dtype=np.float32)
