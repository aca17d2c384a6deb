"""Confidence bands of mean curves across K, for several runs and metric families at once.

:func:`table_bands` is what a chart of curves needs from the statistics: for each run and
family, the bootstrap band (:func:`ragdash.stats.curve_bands`) of the mean curve over the
queries, at one confidence level. The result is the one shape
:func:`ragdash.present.charts.curve_figure` draws; the chart computes nothing itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..metrics import family
from .bootstrap import Bands, curve_bands

if TYPE_CHECKING:
    from ..metrics import MetricTable

__all__ = ["CurveBands", "table_bands"]

#: resamples for bands drawn on screen (a band is a picture: 2,000 keep its edge steady)
CURVE_BAND_RESAMPLES = 2000


@dataclass(frozen=True)
class CurveBands:
    """Bootstrap bands keyed by ``(run name, family name)``, all at one ``confidence``.

    ``get(run, family)`` is the :class:`~ragdash.stats.Bands` (``mean``, ``low``, ``high``,
    arrays of length Kmax) of that run's mean curve, or ``None`` when it has none (fewer
    than two queries to resample).
    """

    confidence: float = 0.95
    bands: Mapping[tuple[str, str], Bands] = field(default_factory=dict)

    def get(self, run: str, family_name: str) -> Bands | None:
        return self.bands.get((str(run), family(family_name).name))

    def __len__(self) -> int:
        return len(self.bands)


def table_bands(tables: Mapping[str, MetricTable], families: str | Iterable[str], *,
                drop_no_relevant: bool = False, confidence: float = 0.95,
                n_resamples: int = CURVE_BAND_RESAMPLES, seed: int | None = 0) -> CurveBands:
    """The band of every run's mean curve for each of ``families``.

    ``tables``: ``{run name: MetricTable}``. With ``drop_no_relevant`` the queries without a
    relevant document are left out (as the curve drawn beside the band leaves them out). A
    run with fewer than two queries left gets no band. The same ``seed`` for every run, so
    all bands see the same resamples (see :mod:`ragdash.stats.bootstrap`).
    """
    fams = [families] if isinstance(families, str) else list(families)
    fams = [family(f).name for f in fams]
    out: dict[tuple[str, str], Bands] = {}
    for run, table in tables.items():
        keep = ~np.asarray(table.no_relevant, dtype=bool) if drop_no_relevant else None
        for fam in fams:
            if fam not in table.values:
                continue
            matrix = table.values[fam] if keep is None else table.values[fam][keep]
            if len(matrix) >= 2:
                out[(str(run), fam)] = curve_bands(matrix, n_resamples=n_resamples,
                                                   confidence=confidence, seed=seed)
    return CurveBands(confidence=confidence, bands=out)
