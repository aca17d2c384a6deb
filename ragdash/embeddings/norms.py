"""1/|v| of each row of a matrix, in float64: the one computation behind both the norms a
vector file stores when it is written and those the exact search computes for any other
matrix, so a stored norm and a computed one are the same number to the bit (ties between
equal vectors depend on it, see :mod:`ragdash.retrieval.cosine`).

A zero row gets 0 (its cosine with anything is 0, never NaN), and so does a row so large that
its norm overflows; a row holding NaN or an infinity gets NaN, which a caller refuses.
"""

from __future__ import annotations

import numpy as np

__all__ = ["inverse_norms"]


def inverse_norms(rows: np.ndarray) -> np.ndarray:
    """``1 / sqrt(sum(x_i^2))`` per row of ``rows`` (any real dtype), computed in float64."""
    part = np.asarray(rows, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", part, part))
    out = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    out[~np.isfinite(part).all(axis=1)] = np.nan
    return out
