"""Holm–Bonferroni correction for comparing several pairs of runs at once.

With ``m`` p-values sorted ascending, ``p_(1) <= ... <= p_(m)``, Holm's adjusted values are

    p̃_(i) = max_{j <= i} min(1, (m - j + 1) · p_(j))

(the running maximum keeps the adjusted values in the same order as the raw ones). Rejecting
every hypothesis with ``p̃ < alpha`` keeps the chance of *any* false "better" verdict among the
``m`` comparisons at most ``alpha``, and is never less powerful than plain Bonferroni
(``m · p``). With one comparison the adjusted value is the raw one.
"""

from __future__ import annotations

import numpy as np

from ..errors import StatsError


def holm(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values, in the order given."""
    p = np.asarray(p_values, dtype=np.float64).ravel()
    if p.size == 0:
        return p.copy()
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise StatsError("p-values must be numbers between 0 and 1")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted
