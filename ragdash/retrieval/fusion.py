"""Fusion: two or more rankings of the same queries combined into one.

Every method works on the columnar :class:`ragdash.ranking.Ranking` with numpy (segment
statistics with ``bincount``/``reduceat``, one join of all (query, document) pairs by an
integer key); there is no Python loop over queries or documents.

Notation, per query: ``r_i(d)`` is the rank (1-based, trec_eval's canonical order: score
descending, ties by doc id descending) of document ``d`` in input ``i``; ``s_i(d)`` its score;
``n_i`` how many documents input ``i`` returned for the query; ``w_i`` the weight of input
``i`` (1 by default). A document an input did not return contributes nothing to the sum from
that input (0 after normalization, as in ``ranx``), and does not count in CombMNZ's count.

Methods (:data:`METHODS`)

- ``rrf``, reciprocal rank fusion (Cormack et al., 2009)::

      RRF(d) = Σ_i  w_i / (k + r_i(d))              k = 60 by default

- ``combsum`` (Fox & Shaw, 1993) over a normalization ``N`` (:data:`NORMS`)::

      CombSUM(d) = Σ_i  w_i · N_i(d)

- ``combmnz``: CombSUM times the number of inputs that returned ``d``::

      CombMNZ(d) = |{i : d ∈ run_i}| · Σ_i  w_i · N_i(d)

- ``alpha``, the convex combination of two inputs over min-max scores (a vector database's
  "hybrid alpha")::

      α · minmax_A(d) + (1 − α) · minmax_B(d)       0 ≤ α ≤ 1

- ``dbsf``, distribution-based score fusion as Qdrant does it: each input is normalized
  with its mean ± 3 standard deviations (sample standard deviation, ``n − 1``) as the ends
  of the scale, not clipped, then summed::

      DBSF(d) = Σ_i  w_i · (s_i(d) − (μ_i − 3σ_i)) / (6σ_i)
      (0.5 for every document when σ_i = 0 or n_i = 1)

Normalizations (per query, per input; the ``ranx`` definitions)::

    minmax:  (s − min) / max(max − min, 1e−9)
    zscore:  (s − mean) / max(std, 1e−9)              population std (ranx's "zmuv")
    rank:    1 − (r − 1) / n                          r the 1-based rank, n = n_i

Huge scores: ``minmax``, ``zscore`` and ``dbsf`` (and so ``alpha``) are computed on each
query's scores scaled by a power of two into [-1, 1] first (exact, and the formulas are
scale-free), so scores of 1e155 (whose squares overflow) or ±1e308 (whose spread does) give
the same fused ranking as the same scores scaled down; a query holding a score that is not
finite is normalized by rank. A fused score that still cannot be finite (weights near the
float maximum) is refused with a sentence: no non-finite score is ever written.

Depth: the fused ranking keeps as many documents per query as the deepest input returned
(the inputs' depth; ``depth=`` overrides). :func:`shallow_inputs` says which inputs are
shallower than a K to be reported: below their depth they cannot vote.

Weight sweep (:func:`weight_sweep`): for two inputs A and B, α = 0, 0.1, ..., 1 gives the
weights ``(α, 1 − α)`` (``alpha``: α·minmax_A + (1 − α)·minmax_B; any other method: its
weighted form), computed from the two rankings alone (no retrieval, no API call). Choosing α
on the queries it is reported on flatters it, so the queries are split (seeded, 50/50 by
default): α is chosen on the tuning half (best mean of the metric; ties go to the α nearest
0.5) and its figure is reported on the held-out half.

Ties in the fused scores are broken by doc id descending, as everywhere in ragdash. ``ranx``
orders tied input scores by its own sort, so rank-based methods (``rrf``, ``rank``) agree
with it exactly when inputs have no ties, and otherwise when it is given the same order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .. import params
from ..errors import RetrievalError
from ..i18n import error, text
from ..ranking import Ranking

__all__ = ["ALPHAS", "METHODS", "NORMS", "RRF_K", "WeightSweep", "fuse", "fused_name",
           "normalized_scores", "shallow_inputs", "split_queries", "weight_sweep"]

#: fusion methods, in the order help texts list them
METHODS = params.FUSION_METHODS

#: score normalizations for combsum / combmnz
NORMS = params.FUSION_NORMS

#: the default RRF constant
RRF_K = params.FUSION["rrf_k"].default

#: the weight sweep's grid: α = 0, 0.1, ..., 1
ALPHAS = tuple(round(i / 10, 1) for i in range(11))

_METHOD_LABEL = {"rrf": "RRF", "combsum": "CombSUM", "combmnz": "CombMNZ", "alpha": "α",
                 "dbsf": "DBSF"}


# -- per-row helpers ----------------------------------------------------------------------
def _row_query(ranking: Ranking) -> tuple[np.ndarray, np.ndarray]:
    """For every row: the query's position in ``ranking`` and the row's 0-based rank."""
    counts = np.diff(ranking.offsets)
    q = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    pos = np.arange(len(ranking.scores), dtype=np.int64) - ranking.offsets[:-1][q]
    return q, pos


def _segment_minmax(scores: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.diff(offsets)
    lo = np.zeros(len(counts))
    hi = np.zeros(len(counts))
    nonempty = counts > 0
    if nonempty.any():
        starts = offsets[:-1][nonempty]
        lo[nonempty] = np.minimum.reduceat(scores, starts)
        hi[nonempty] = np.maximum.reduceat(scores, starts)
    return lo, hi


def _segment_exponents(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per query: ``e`` with ``|s| · 2^-e < 1`` for every finite score ``s`` of the query (0
    for a query without a non-zero one). Scaling by a power of two is exact, so the formulas
    give the very same numbers on the scaled scores, and none of their sums or squares can
    overflow (scores of 1e155 squared, or 1e308 − (−1e308), are not floats)."""
    counts = np.diff(offsets)
    biggest = np.zeros(len(counts))
    nonempty = counts > 0
    if nonempty.any():
        magnitude = np.where(np.isfinite(scores), np.abs(scores), 0.0)
        biggest[nonempty] = np.maximum.reduceat(magnitude, offsets[:-1][nonempty])
    _, exponents = np.frexp(biggest)
    return exponents.astype(np.int64)


def _floor(scale_exp: np.ndarray) -> np.ndarray:
    """The formulas' 1e-9 floor on a spread, in each query's scaled units."""
    return np.ldexp(1e-9, -scale_exp)


def _divide(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """``top / bottom``, 0 where ``bottom`` is 0 (then ``top`` is 0 too: a query whose
    scores are all equal, with a floor too small to be a float once scaled)."""
    out = np.zeros_like(top)
    np.divide(top, bottom, out=out, where=bottom != 0)
    return out


def normalized_scores(ranking: Ranking, norm: str) -> np.ndarray:
    """Every row's score after ``norm`` (``minmax``, ``zscore``, ``rank``, ``rrf:<k>``,
    ``dbsf`` or ``none``), aligned with ``ranking.scores``. Formulas: the module docstring.

    ``minmax``, ``zscore`` and ``dbsf`` are computed on each query's scores scaled by a power
    of two into [-1, 1] (:func:`_segment_exponents`): the same numbers wherever the plain
    formulas are finite, and finite where they would overflow. A query with a score that is
    not finite (±inf, NaN) has no spread or mean; its documents get the ``rank``
    normalization instead.
    """
    s = ranking.scores
    if norm == "none":
        return s.copy()
    q, pos = _row_query(ranking)
    counts = np.diff(ranking.offsets)
    if norm.startswith("rrf:"):
        return 1.0 / (float(norm[4:]) + pos + 1.0)
    by_rank = 1.0 - pos / np.maximum(counts[q], 1)
    if norm == "rank":
        return by_rank
    if norm not in ("minmax", "zscore", "dbsf"):
        raise error(RetrievalError, "fusion.unknown_norm", norm=norm, names=", ".join(NORMS))
    finite = np.isfinite(s)
    broken = np.bincount(q[~finite], minlength=len(counts)) > 0  # queries with ±inf / NaN
    exp = _segment_exponents(s, ranking.offsets)
    scaled = np.ldexp(np.where(finite, s, 0.0), -exp[q])
    if norm == "minmax":
        lo, hi = _segment_minmax(scaled, ranking.offsets)
        out = _divide(scaled - lo[q], np.maximum(hi - lo, _floor(exp))[q])
    else:
        n = np.maximum(counts, 1).astype(np.float64)
        mean = np.bincount(q, weights=scaled, minlength=len(counts)) / n
        dev = scaled - mean[q]
        sq = np.bincount(q, weights=dev * dev, minlength=len(counts))
        if norm == "zscore":
            out = _divide(dev, np.maximum(np.sqrt(sq / n), _floor(exp))[q])
        else:
            std = np.sqrt(sq / np.maximum(n - 1.0, 1.0))
            low = mean - 3.0 * std
            out = _divide(scaled - low[q], (6.0 * std)[q])
            flat = (std == 0) | (counts == 1)
            out[flat[q]] = 0.5
    if broken.any():
        out[broken[q]] = by_rank[broken[q]]
    return out


def _refuse_overflow(fused: np.ndarray, uq: np.ndarray, ucode: np.ndarray,
                     qids: list[str], uniques: np.ndarray, method: str) -> None:
    """Fused scores are written to run files and read back: never a non-finite one."""
    bad = ~np.isfinite(fused)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise error(RetrievalError, "fusion.not_finite", method=_METHOD_LABEL[method],
                    n=int(bad.sum()), query=qids[int(uq[first])],
                    doc=str(uniques[int(ucode[first])]))


# -- the join ------------------------------------------------------------------------------
def _doc_codes(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer codes for the doc ids of all inputs, the id of each code, and each code's
    rank in doc-id order."""
    import pandas as pd

    docs = np.concatenate(parts) if parts else np.empty(0, dtype=object)
    codes, uniques = pd.factorize(docs)
    uniques = np.asarray(uniques, dtype=object)
    order = np.argsort(uniques.astype(str), kind="stable") if len(uniques) else \
        np.empty(0, dtype=np.int64)
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques))
    return codes.astype(np.int64), uniques, rank


def _query_union(rankings: Sequence[Ranking]) -> tuple[list[str], list[np.ndarray]]:
    """All query ids (order of first appearance) and, per input, its queries' positions."""
    index: dict[str, int] = {}
    maps = []
    for r in rankings:
        maps.append(np.fromiter((index.setdefault(q, len(index)) for q in r.query_ids),
                                dtype=np.int64, count=len(r.query_ids)))
    return list(index), maps


def _check(rankings, method, norm, weights, alpha):
    if method not in METHODS:
        raise error(RetrievalError, "fusion.unknown_method", method=method,
                    names=", ".join(METHODS))
    if len(rankings) < 2:
        raise error(RetrievalError, "fusion.two", n=len(rankings))
    if method == "alpha":
        if len(rankings) != 2:
            raise error(RetrievalError, "fusion.alpha_two", n=len(rankings))
        if alpha is None and weights is None:
            alpha = params.FUSION["alpha"].default
        if alpha is None:
            alpha = float(weights[0])
        if not 0.0 <= float(alpha) <= 1.0 or not np.isfinite(alpha):
            raise error(RetrievalError, "fusion.alpha_range", alpha=alpha)
        return [float(alpha), 1.0 - float(alpha)], "minmax"
    if weights is None:
        weights = [1.0] * len(rankings)
    weights = [float(w) for w in weights]
    if len(weights) != len(rankings):
        raise error(RetrievalError, "fusion.weights_count", weights=len(weights),
                    n=len(rankings))
    if not all(np.isfinite(w) and w >= 0 for w in weights):
        raise error(RetrievalError, "fusion.weights_bad", weights=weights)
    if method in ("combsum", "combmnz"):
        norm = norm or "minmax"
        if norm not in NORMS:
            raise error(RetrievalError, "fusion.unknown_norm", norm=norm,
                        names=", ".join(NORMS))
    elif norm not in (None, ""):
        raise error(RetrievalError, "fusion.norm_only", method=method,
                    own=text("fusion.own_ranks") if method == "rrf" else text("fusion.own_mean"))
    return weights, norm


def fuse(rankings: Sequence[Ranking], method: str = "rrf", *, norm: str | None = None,
         weights: Sequence[float] | None = None, alpha: float | None = None,
         rrf_k: float = RRF_K, depth: int | None = None, name: str | None = None) -> Ranking:
    """One ranking from ``rankings`` by ``method`` (see the module docstring for formulas).

    ``norm`` is for ``combsum`` / ``combmnz`` (default ``minmax``); ``weights`` one per input
    (default 1 each); ``alpha`` for ``method="alpha"`` (default 0.5; ``weights=[a, 1-a]``
    says the same); ``depth`` documents kept per query (default: the deepest input's).
    Queries are the union of the inputs'; an input without a query contributes nothing to it.
    """
    rankings = list(rankings)
    weights, norm = _check(rankings, method, norm, weights, alpha)
    kind = {"rrf": f"rrf:{float(rrf_k)!r}", "dbsf": "dbsf", "alpha": "minmax"}.get(method, norm)
    if method == "rrf" and not (np.isfinite(rrf_k) and rrf_k >= 0):
        raise error(RetrievalError, "fusion.rrf_k", rrf_k=rrf_k)
    qids, qmaps = _query_union(rankings)
    depth = max((r.kmax for r in rankings), default=0) if depth is None else int(depth)

    rows_q, contrib = [], []
    with np.errstate(over="ignore", invalid="ignore"):  # refused below, with a sentence
        for r, qmap, w in zip(rankings, qmaps, weights):
            q, _ = _row_query(r)
            rows_q.append(qmap[q])
            contrib.append(normalized_scores(r, kind) * w)
        codes, uniques, doc_rank = _doc_codes([r.doc_ids for r in rankings])
        ndocs = max(len(doc_rank), 1)
        keys = np.concatenate(rows_q) * ndocs + codes
        ukeys, inverse = np.unique(keys, return_inverse=True)
        fused = np.bincount(inverse, weights=np.concatenate(contrib), minlength=len(ukeys))
        if method == "combmnz":
            fused = fused * np.bincount(inverse, minlength=len(ukeys))
    uq, ucode = ukeys // ndocs, ukeys % ndocs
    _refuse_overflow(fused, uq, ucode, qids, uniques, method)
    order = np.lexsort((-doc_rank[ucode], -fused, uq))
    uq, ucode, fused = uq[order], ucode[order], fused[order]
    counts = np.bincount(uq, minlength=len(qids))
    starts = np.concatenate([[0], np.cumsum(counts)])[:-1]
    keep = (np.arange(len(uq)) - starts[uq]) < depth
    kept = np.minimum(counts, depth)
    offsets = np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)
    return Ranking(qids, offsets, uniques[ucode[keep]], fused[keep],
                   name=name or fused_name([r.name for r in rankings], method, norm=norm),
                   canonical=True)


def fused_name(names: Sequence[str], method: str, *, norm: str | None = None,
               alpha: float | None = None) -> str:
    """``"bm25 + dense (RRF)"``: the inputs joined by +, the method in brackets."""
    label = _METHOD_LABEL.get(method, method)
    if method in ("combsum", "combmnz") and norm and norm != "minmax":
        label += f", {norm}"
    if method == "alpha" and alpha is not None:
        label = f"α = {alpha:g}"
    return " + ".join(str(n) for n in names) + f" ({label})"


def shallow_inputs(rankings: Sequence[Ranking], k: int) -> list[str]:
    """A sentence for each input that returned fewer than ``k`` documents for some query
    (it cannot vote below its depth, so fused metrics at ``k`` lean on the deeper inputs)."""
    out = []
    for r in rankings:
        d = r.kmax
        if d < k:
            out.append(text("fusion.shallow", name=r.name, d=d, k=k))
    return out


# -- the weight sweep -----------------------------------------------------------------------
def split_queries(query_ids: Sequence[str], *, seed: int = 0,
                  tune_fraction: float = 0.5) -> tuple[list[str], list[str]]:
    """(tuning, held-out) query ids: a seeded shuffle cut at ``tune_fraction`` (each half
    keeps the given order). The same ids and seed give the same halves."""
    ids = [str(q) for q in query_ids]
    if not 0.0 < float(tune_fraction) < 1.0:
        raise error(RetrievalError, "fusion.tune_share", tune_fraction=tune_fraction)
    n_tune = round(len(ids) * float(tune_fraction))
    if len(ids) < 2 or n_tune < 1 or n_tune >= len(ids):
        split = {"n": len(ids), "tune": tune_fraction, "rest": 1 - tune_fraction}
        raise error(RetrievalError, "fusion.tune_sides", **split)
    picked = np.zeros(len(ids), dtype=bool)
    picked[np.random.default_rng(seed).permutation(len(ids))[:n_tune]] = True
    return ([q for q, p in zip(ids, picked) if p], [q for q, p in zip(ids, picked) if not p])


@dataclass(frozen=True)
class WeightSweep:
    """The fused run at every α, scored per query on ``metric``.

    ``values[i, j]``: the metric of query ``query_ids[i]`` at ``alphas[j]``; ``tune`` marks
    the tuning half. ``tables`` holds each α's whole metric table (every metric at every K),
    over all the queries. The chosen α is the best on the tuning half; :attr:`test_value`
    its mean on the held-out half, the figure to report.
    """

    alphas: tuple[float, ...]
    metric: str
    method: str
    names: tuple[str, str]
    query_ids: tuple[str, ...]
    values: np.ndarray
    tune: np.ndarray
    seed: int
    tune_fraction: float
    tables: tuple = ()

    @property
    def tune_means(self) -> np.ndarray:
        return self.values[self.tune].mean(axis=0)

    @property
    def test_means(self) -> np.ndarray:
        return self.values[~self.tune].mean(axis=0)

    @property
    def all_means(self) -> np.ndarray:
        return self.values.mean(axis=0)

    @property
    def chosen(self) -> int:
        """Index of the chosen α: best tuning mean (within 1e-12), ties to α nearest 0.5."""
        means = self.tune_means
        best = np.flatnonzero(means >= means.max() - 1e-12)
        return int(min(best, key=lambda j: (abs(self.alphas[j] - 0.5), self.alphas[j])))

    @property
    def chosen_alpha(self) -> float:
        return float(self.alphas[self.chosen])

    @property
    def test_value(self) -> float:
        return float(self.test_means[self.chosen])

    @property
    def n_tune(self) -> int:
        return int(self.tune.sum())

    @property
    def n_test(self) -> int:
        return int((~self.tune).sum())

    def sentence(self) -> str:
        """What the figure shows and how α was chosen, in one sentence."""
        from ..metrics import metric_label

        a, b = self.names
        return (f"α weighs {a} (1 − α weighs {b}); α = {self.chosen_alpha:g} was chosen on "
                f"{self.n_tune:,} tuning queries (best {metric_label(self.metric)} "
                f"{self.tune_means[self.chosen]:.4f}) and is reported on the other "
                f"{self.n_test:,} held-out queries: {self.test_value:.4f} (seeded split, "
                f"seed {self.seed}; choosing α on the queries it is reported on would "
                f"flatter it)")

    def to_json_obj(self, ks: Sequence[int] | None = None) -> dict:
        """``{"sweep": [{"alpha", "metrics", "tune", "test"}], "choice": {...}}``."""
        rows = []
        for j, alpha in enumerate(self.alphas):
            row = {"alpha": float(alpha), "tune": float(self.tune_means[j]),
                   "test": float(self.test_means[j])}
            if self.tables:
                row["metrics"] = self.tables[j].summary(ks)
            rows.append(row)
        return {"sweep": rows, "choice": {
            "metric": self.metric, "method": self.method, "alpha": self.chosen_alpha,
            "tune_value": float(self.tune_means[self.chosen]), "test_value": self.test_value,
            "tune_queries": self.n_tune, "test_queries": self.n_test, "seed": self.seed,
            "tune_fraction": self.tune_fraction, "note": self.sentence()}}


def weight_sweep(a: Ranking, b: Ranking, qrels: Mapping[str, Mapping[str, float]], *,
                 metric: str = "ndcg@10", method: str = "alpha", norm: str | None = None,
                 rrf_k: float = RRF_K, query_ids: Sequence[str] | None = None,
                 kmax: int | None = None, alphas: Sequence[float] = ALPHAS, seed: int = 0,
                 tune_fraction: float = 0.5, relevance_level: float | None = None,
                 gain: str = "linear") -> WeightSweep:
    """Fuse ``a`` and ``b`` at every α of ``alphas`` (weights ``(α, 1 − α)``) and score each
    fused ranking on ``metric`` over ``query_ids`` (default: the queries of either ranking
    that have qrels). See the module docstring for how α is chosen and reported."""
    from ..metrics import evaluate, parse_metric

    _, k = parse_metric(metric)
    if query_ids is None:
        seen = dict.fromkeys([*a.query_ids, *b.query_ids])
        query_ids = [q for q in seen if q in qrels]
    query_ids = [str(q) for q in query_ids]
    tune_ids, _ = split_queries(query_ids, seed=seed, tune_fraction=tune_fraction)
    tune_set = set(tune_ids)
    kmax = int(kmax or max(a.kmax, b.kmax, k or 1, 1))
    columns, tables = [], []
    for alpha in alphas:
        if method == "alpha":
            fused = fuse([a, b], "alpha", alpha=float(alpha))
        else:
            fused = fuse([a, b], method, norm=norm, rrf_k=rrf_k,
                         weights=[float(alpha), 1.0 - float(alpha)])
        table = evaluate(fused, qrels, kmax=kmax, queries=query_ids,
                         relevance_level=relevance_level, gain=gain)
        tables.append(table)
        columns.append(table.value(metric))
    return WeightSweep(alphas=tuple(float(x) for x in alphas), metric=metric, method=method,
                       names=(a.name, b.name), query_ids=tuple(query_ids),
                       values=np.column_stack(columns),
                       tune=np.array([q in tune_set for q in query_ids]), seed=int(seed),
                       tune_fraction=float(tune_fraction), tables=tuple(tables))
