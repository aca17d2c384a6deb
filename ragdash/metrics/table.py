"""MetricTable: every metric family at every K for every query — and views of it.

One table holds ``values[family]``, a float64 array (Q, Kmax) whose column ``k - 1`` is the
metric at cutoff ``k``. Means, curves, summaries and per-query rows are computed from it on
demand; nothing derived is stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import MetricError
from ..i18n import error
from .registry import FAMILY_NAMES, family, parse_metric

#: cutoffs shown when the caller does not choose (those ≤ Kmax)
DEFAULT_KS: tuple[int, ...] = (1, 3, 5, 10, 20, 50, 100)


class MetricTable:
    """Per query × family × K values (see :mod:`ragdash.metrics.kernels` for the formulas).

    ``query_ids`` (Q,) in evaluation order; ``values[family]`` (Q, Kmax) float64;
    ``num_relevant`` (Q,) the number of relevant documents per query in the qrels;
    ``in_run`` (Q,) whether the run had the query at all; ``relevance_level``, ``gain`` and
    ``judged_only`` (condensed lists) record how it was computed; ``labels`` names the
    judgment sets behind it (``"qrels"`` alone: the human labels; see
    :mod:`ragdash.judgments`).
    """

    __slots__ = ("gain", "in_run", "judged_only", "labels", "num_relevant", "query_ids",
                 "relevance_level", "values")

    def __init__(self, query_ids: Sequence[str], values: dict[str, np.ndarray],
                 num_relevant: np.ndarray, in_run: np.ndarray | None = None, *,
                 relevance_level: float | None = None, gain: str = "linear",
                 judged_only: bool = False, labels: tuple[str, ...] = ("qrels",)) -> None:
        self.query_ids: list[str] = list(query_ids)
        self.values = values
        self.num_relevant = np.asarray(num_relevant, dtype=np.float64)
        self.in_run = (np.ones(len(self.query_ids), dtype=bool) if in_run is None
                       else np.asarray(in_run, dtype=bool))
        self.relevance_level = relevance_level
        self.gain = gain
        self.judged_only = bool(judged_only)
        self.labels = tuple(labels)

    # -- shape ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.query_ids)

    def __repr__(self) -> str:
        return (f"MetricTable({len(self)} queries, K=1..{self.kmax}, "
                f"{self.no_relevant.sum()} without relevant documents)")

    @property
    def kmax(self) -> int:
        return next(iter(self.values.values())).shape[1]

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(f for f in FAMILY_NAMES if f in self.values)

    @property
    def no_relevant(self) -> np.ndarray:
        """Bool mask: queries with no relevant document in the qrels (they score 0)."""
        return self.num_relevant == 0

    # -- one metric ----------------------------------------------------------------------
    def _locate(self, name: str) -> tuple[str, int]:
        fam, k = parse_metric(name)
        k = self.kmax if k is None else k
        if k > self.kmax:
            raise error(MetricError, "metric.beyond_table", name=name, kmax=self.kmax, k=k)
        return fam, k

    def value(self, name: str) -> np.ndarray:
        """Per-query values of one metric, e.g. ``value("ndcg@10")`` -> (Q,) array."""
        fam, k = self._locate(name)
        return self.values[fam][:, k - 1]

    def _rows(self, drop_no_relevant: bool) -> np.ndarray | slice:
        return ~self.no_relevant if drop_no_relevant else slice(None)

    def mean(self, name: str, drop_no_relevant: bool = False) -> float:
        """Mean over queries (NaN when there are none). Queries without a relevant document
        count as 0 unless ``drop_no_relevant``."""
        v = self.value(name)[self._rows(drop_no_relevant)]
        return float(v.mean()) if len(v) else float("nan")

    def curve(self, family_name: str, drop_no_relevant: bool = False) -> np.ndarray:
        """Mean at every K: (Kmax,) array whose item ``k - 1`` is the mean metric @k."""
        fam = family(family_name).name
        m = self.values[fam][self._rows(drop_no_relevant)]
        return m.mean(axis=0) if len(m) else np.full(self.kmax, np.nan)

    # -- many metrics --------------------------------------------------------------------
    def default_ks(self) -> list[int]:
        """:data:`DEFAULT_KS` up to Kmax, plus Kmax itself when it is smaller than the last."""
        ks = [k for k in DEFAULT_KS if k <= self.kmax]
        if self.kmax < DEFAULT_KS[-1] and self.kmax not in ks:
            ks.append(self.kmax)
        return ks

    def names(self, ks: Iterable[int] | None = None,
              families: Iterable[str] | None = None) -> list[str]:
        ks = self.default_ks() if ks is None else [int(k) for k in ks]
        fams = self.families if families is None else [family(f).name for f in families]
        return [f"{f}@{k}" for f in fams for k in ks]

    def summary(self, ks: Iterable[int] | None = None, families: Iterable[str] | None = None,
                drop_no_relevant: bool = False) -> dict[str, float]:
        """``{"recall@1": mean, ...}`` for every family (registry order) at every K."""
        rows = self._rows(drop_no_relevant)
        out = {}
        for name in self.names(ks, families):
            fam, k = self._locate(name)
            v = self.values[fam][rows, k - 1]
            out[name] = float(v.mean()) if len(v) else float("nan")
        return out

    def per_query(self, names: Iterable[str] | None = None) -> dict[str, dict[str, float]]:
        """``{qid: {"ndcg@10": value, ...}}`` (default names: :meth:`names`)."""
        names = self.names() if names is None else list(names)
        cols = [self.value(n).tolist() for n in names]
        return {q: dict(zip(names, vals)) for q, vals in zip(self.query_ids, zip(*cols))} \
            if cols else {q: {} for q in self.query_ids}

    def select(self, query_ids: Iterable[str]) -> MetricTable:
        """The rows of ``query_ids``, in that order (each must be in the table)."""
        index = {q: i for i, q in enumerate(self.query_ids)}
        qids = [str(q) for q in query_ids]
        missing = [q for q in qids if q not in index]
        if missing:
            raise MetricError(f"query {missing[0]!r} is not in this table "
                              f"({len(missing)} missing)")
        rows = np.array([index[q] for q in qids], dtype=np.int64)
        return MetricTable(qids, {f: v[rows] for f, v in self.values.items()},
                           self.num_relevant[rows], self.in_run[rows],
                           relevance_level=self.relevance_level, gain=self.gain,
                           judged_only=self.judged_only, labels=self.labels)

    def to_frame(self, shape: str = "long", ks: Iterable[int] | None = None,
                 families: Iterable[str] | None = None):
        """A pandas DataFrame.

        ``shape="long"``: columns ``query_id, metric, k, value`` (every K unless ``ks``);
        ``shape="wide"``: one row per query (index ``query_id``), one column per metric name
        (default names: :meth:`names`).
        """
        import pandas as pd  # lazily: keeps `import ragdash.metrics` light

        fams = self.families if families is None else [family(f).name for f in families]
        if shape == "wide":
            names = self.names(ks, fams)
            data = {n: self.value(n) for n in names}
            return pd.DataFrame(data, index=pd.Index(self.query_ids, name="query_id"))
        if shape != "long":
            raise MetricError(f"to_frame shape must be 'long' or 'wide', not {shape!r}")
        k_list = list(range(1, self.kmax + 1)) if ks is None else [int(k) for k in ks]
        for k in k_list:
            if not 1 <= k <= self.kmax:
                raise error(MetricError, "metric.k_outside", k=k, kmax=self.kmax)
        cols = np.asarray(k_list, dtype=np.int64) - 1
        nq, nk = len(self.query_ids), len(cols)
        parts = [self.values[f][:, cols].reshape(-1) for f in fams]
        return pd.DataFrame({
            "query_id": np.tile(np.repeat(np.asarray(self.query_ids, dtype=object), nk),
                                len(fams)),
            "metric": np.repeat(np.asarray(fams, dtype=object), nq * nk),
            "k": np.tile(np.asarray(k_list, dtype=np.int64), nq * len(fams)),
            "value": np.concatenate(parts) if parts else np.empty(0),
        })
