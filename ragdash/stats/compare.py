"""Compare two or more runs on the same queries: means with intervals, paired tests, verdicts.

:func:`compare_runs` takes one array of per-query values per run (aligned by query) and
returns a :class:`Comparison`: every run's mean with a bootstrap interval, and for every pair
``(a, b)`` (in the order the runs were given, ``a`` before ``b``) the difference ``b - a`` with
its paired bootstrap interval, three paired tests, the Holm-corrected p-value of the deciding
test over all pairs, the effect size, per-query wins / ties / losses counted for ``b`` and a
verdict sentence in English and Japanese.

:func:`compare_tables` does the same from ``ragdash.metrics.MetricTable`` objects, aligning
them on the queries they have in common and reporting the ones that are not shared.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import StatsError
from ..i18n import error, text
from ..judgments.coverage import caveat, coverage_k_of
from ..metrics import COVERAGE, metric_label
from .bootstrap import DEFAULT_RESAMPLES, bootstrap_means
from .correction import holm
from .significance import (
    DEFAULT_PERMUTATIONS,
    paired_ttest,
    randomization_tests,
    wilcoxon_test,
)
from .verdict import Verdict, make_verdict, queries_needed

#: |b - a| at or below this counts as a tie (and as no difference in the tests)
TIE_TOLERANCE = 1e-12
#: the tests a comparison can be decided by
TESTS = ("randomization", "ttest", "wilcoxon")


@dataclass(frozen=True)
class RunMean:
    name: str
    mean: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class PairResult:
    """Run ``b`` against run ``a``; ``diff`` and its interval are of ``mean(b - a)``."""

    a: str
    b: str
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_ttest: float
    p_wilcoxon: float
    p_randomization: float
    p_holm: float  # the deciding test's p, Holm-corrected over all pairs
    wins: int  # queries where b scores higher than a
    ties: int
    losses: int  # queries where b scores lower than a
    effect_size: float | None  # Cohen's d for paired data: mean(b - a) / sd(b - a)
    relative_change: float | None  # (mean_b - mean_a) / mean_a, a fraction
    sd_diff: float
    queries_needed: int | None  # approx. queries to detect |diff| (alpha, power 0.8)
    verdict: Verdict

    @property
    def significant(self) -> bool:
        return self.verdict.kind in ("better", "worse")


@dataclass(frozen=True)
class Alignment:
    """Queries shared by every source, and for each source the queries it lacks.

    ``missing[name]`` lists queries that some other source has and ``name`` does not; they
    are left out of the comparison.
    """

    common: list[str]
    missing: dict[str, list[str]]

    @property
    def complete(self) -> bool:
        return not any(self.missing.values())

    @property
    def dropped(self) -> list[str]:
        """Every query left out (present somewhere, missing somewhere), sorted."""
        return sorted(set().union(*self.missing.values())) if self.missing else []

    def to_json_obj(self) -> dict:
        return {"compared": len(self.common), "dropped": len(self.dropped),
                "missing": {k: list(v) for k, v in self.missing.items()}}


@dataclass(frozen=True)
class Comparison:
    metric: str
    metric_label: str
    query_ids: list[str]
    per_query: dict[str, np.ndarray]  # run name -> values aligned with query_ids
    runs: list[RunMean]
    pairs: list[PairResult]
    alpha: float
    confidence: float
    test: str
    n_resamples: int
    n_permutations: int
    seed: int | None
    alignment: Alignment | None = None
    notes: list[str] = field(default_factory=list)
    #: each run's mean Judged@K on the compared queries (K: :attr:`coverage_k`); empty when
    #: the caller did not measure it
    coverage: dict[str, float] = field(default_factory=dict)
    coverage_k: int | None = None
    #: the judgment sets behind the numbers (``("qrels",)``: human only) and whether they
    #: were scored on condensed lists
    labels: tuple[str, ...] = ("qrels",)
    judged_only: bool = False

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def pair(self, a: str, b: str) -> PairResult:
        """The result for ``b`` against ``a`` (either order given; sides swapped if needed)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return _swap(p, self)
        raise StatsError(f"no pair {a!r} / {b!r} in this comparison; runs are "
                         f"{', '.join(r.name for r in self.runs)}")

    def verdicts(self, lang: str = "en") -> list[str]:
        return [p.verdict.text(lang) for p in self.pairs]

    def to_json_obj(self) -> dict:
        """The ``compare`` command's JSON (finite floats; NaN/inf become null)."""
        obj = {
            "metric": self.metric,
            "queries": self.n_queries,
            "runs": [{"name": r.name, "mean": _num(r.mean), "ci_low": _num(r.ci_low),
                      "ci_high": _num(r.ci_high)} for r in self.runs],
            "pairs": [{
                "a": p.a, "b": p.b, "mean_a": _num(p.mean_a), "mean_b": _num(p.mean_b),
                "diff": _num(p.diff), "ci_low": _num(p.ci_low), "ci_high": _num(p.ci_high),
                "p_ttest": _num(p.p_ttest), "p_wilcoxon": _num(p.p_wilcoxon),
                "p_randomization": _num(p.p_randomization), "p_holm": _num(p.p_holm),
                "wins": p.wins, "ties": p.ties, "losses": p.losses,
                "effect_size": _num(p.effect_size), "relative_change": _num(p.relative_change),
                "queries_needed": p.queries_needed, "significant": p.significant,
                "verdict": p.verdict.kind, "verdict_en": p.verdict.en,
                "verdict_ja": p.verdict.ja,
            } for p in self.pairs],
            "settings": {"alpha": self.alpha, "confidence": self.confidence,
                         "holm_on": self.test, "resamples": self.n_resamples,
                         "permutations": self.n_permutations, "seed": self.seed,
                         "tie_tolerance": TIE_TOLERANCE},
        }
        if self.alignment is not None:
            obj["mismatches"] = self.alignment.to_json_obj()
        if self.notes:
            obj["notes"] = list(self.notes)
        if self.coverage_k is not None:
            obj[f"judged@{self.coverage_k}"] = {n: _num(v) for n, v in self.coverage.items()}
        obj["labels"] = list(self.labels)
        obj["judged_only"] = self.judged_only
        return obj


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _swap(p: PairResult, cmp: Comparison) -> PairResult:
    verdict = make_verdict(a=p.b, b=p.a, metric=cmp.metric_label, n=cmp.n_queries,
                           mean_a=p.mean_b, mean_b=p.mean_a, ci_low=-p.ci_high,
                           ci_high=-p.ci_low, p=p.p_holm, sd_diff=p.sd_diff,
                           n_comparisons=len(cmp.pairs), alpha=cmp.alpha,
                           confidence=cmp.confidence,
                           identical=p.verdict.kind == "identical")
    rel = (p.mean_a - p.mean_b) / p.mean_b if p.mean_b != 0 else None
    return PairResult(
        a=p.b, b=p.a, mean_a=p.mean_b, mean_b=p.mean_a, diff=-p.diff, ci_low=-p.ci_high,
        ci_high=-p.ci_low, p_ttest=p.p_ttest, p_wilcoxon=p.p_wilcoxon,
        p_randomization=p.p_randomization, p_holm=p.p_holm, wins=p.losses, ties=p.ties,
        losses=p.wins, effect_size=None if p.effect_size is None else -p.effect_size,
        relative_change=rel, sd_diff=p.sd_diff,
        queries_needed=p.queries_needed,
        verdict=verdict)


def compare_runs(per_query: Mapping[str, np.ndarray], *, metric_name: str,
                 query_ids: Sequence[str] | None = None, seed: int | None = 0,
                 n_resamples: int = DEFAULT_RESAMPLES,
                 n_permutations: int = DEFAULT_PERMUTATIONS, alpha: float = 0.05,
                 confidence: float = 0.95, test: str = "randomization",
                 label: str | None = None, alignment: Alignment | None = None,
                 notes: Sequence[str] = (), coverage: Mapping[str, float] | None = None,
                 coverage_k: int | None = None, labels: Sequence[str] = ("qrels",),
                 judged_only: bool = False) -> Comparison:
    """Compare runs given as ``{run name: per-query values}``, all aligned on the same queries.

    Every pair of runs is compared (``a`` the earlier, ``b`` the later in ``per_query``'s
    order). ``test`` picks the p-value that is Holm-corrected over all pairs and decides the
    verdict ("randomization" by default: it assumes nothing about the shape of the
    differences). Intervals use one set of ``n_resamples`` bootstrap resamples shared by all
    runs and differences; randomization tests share one set of sign patterns. Deterministic
    for a given ``seed``.

    ``coverage``: each run's mean Judged@``coverage_k`` on these queries; when the runs are
    thinly or unequally judged, every verdict carries the sentence that says so.
    ``labels`` / ``judged_only``: which labels the values were computed with (said by the
    comparison's JSON and the pages).
    """
    if test not in TESTS:
        raise error(StatsError, "stats.unknown_test", test=test, names=", ".join(TESTS))
    if not 0 < alpha < 1:
        raise error(StatsError, "stats.alpha", alpha=alpha)
    names, x, query_ids = _matrix(per_query, query_ids)
    index_pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    diffs = np.column_stack([x[:, j] - x[:, i] for i, j in index_pairs])
    diffs[np.abs(diffs) <= TIE_TOLERANCE] = 0.0  # rounding noise is no difference

    # One bootstrap for every run and every difference: same resamples, coherent intervals.
    means = bootstrap_means(np.column_stack([x, diffs]), n_resamples=n_resamples, seed=seed)
    tail = (1.0 - confidence) / 2.0
    lows, highs = np.quantile(means, [tail, 1.0 - tail], axis=0)
    run_means = x.mean(axis=0)
    runs = [RunMean(name, float(run_means[r]), float(lows[r]), float(highs[r]))
            for r, name in enumerate(names)]

    p_rand = randomization_tests(diffs, n_permutations=n_permutations, seed=seed)
    p_t = np.array([paired_ttest(x[:, i], x[:, i] + diffs[:, c])
                    for c, (i, _j) in enumerate(index_pairs)])
    p_w = np.array([wilcoxon_test(x[:, i], x[:, i] + diffs[:, c])
                    for c, (i, _j) in enumerate(index_pairs)])
    p_holm = holm({"randomization": p_rand, "ttest": p_t, "wilcoxon": p_w}[test])

    label = label or metric_label(metric_name)
    coverage = {str(n): float(v) for n, v in (coverage or {}).items()}
    pairs = []
    for c, (i, j) in enumerate(index_pairs):
        r = len(names) + c  # the difference's column in the bootstrap
        pair = _pair(
            names[i], names[j], diffs[:, c], float(run_means[i]), float(run_means[j]),
            (float(lows[r]), float(highs[r])),
            p={"ttest": float(p_t[c]), "wilcoxon": float(p_w[c]),
               "randomization": float(p_rand[c]), "holm": float(p_holm[c])},
            label=label, n_comparisons=len(index_pairs), alpha=alpha, confidence=confidence)
        said = None if coverage_k is None else caveat(
            {n: coverage[n] for n in (names[i], names[j]) if n in coverage}, k=coverage_k,
            metric=label, judged_only=judged_only)
        if said is not None:
            pair = replace(pair, verdict=replace(pair.verdict, caveat=said))
        pairs.append(pair)
    return Comparison(
        metric=metric_name, metric_label=label, query_ids=query_ids,
        per_query=dict(zip(names, (x[:, r].copy() for r in range(len(names))))),
        runs=runs, pairs=pairs, alpha=alpha, confidence=confidence, test=test,
        n_resamples=int(n_resamples), n_permutations=int(n_permutations), seed=seed,
        alignment=alignment, notes=list(notes), coverage=coverage,
        coverage_k=None if coverage_k is None else int(coverage_k), labels=tuple(labels),
        judged_only=bool(judged_only))


def _matrix(per_query: Mapping[str, np.ndarray], query_ids: Sequence[str] | None
            ) -> tuple[list[str], np.ndarray, list[str]]:
    """The run names, the queries x runs matrix of finite values, and the query ids; every
    malformed input is one :class:`StatsError` sentence."""
    names = [str(n) for n in per_query]
    if len(names) < 2:
        raise error(StatsError, "stats.two_runs", n=len(names))
    if len(set(names)) != len(names):
        raise error(StatsError, "stats.same_name")
    columns = [np.asarray(per_query[n], dtype=np.float64) for n in per_query]
    lengths = {c.shape for c in columns}
    if len(lengths) != 1 or columns[0].ndim != 1:
        raise StatsError("every run needs one value per query, aligned on the same queries "
                         f"(got shapes {', '.join(str(c.shape) for c in columns)})")
    n = columns[0].shape[0]
    query_ids = [str(q) for q in (query_ids if query_ids is not None else range(n))]
    if len(query_ids) != n:
        raise StatsError(f"{len(query_ids)} query ids for {n} values per run")
    if n < 2:
        raise error(StatsError, "stats.too_few", n=n)
    x = np.column_stack(columns)
    if not np.isfinite(x).all():
        raise error(StatsError, "stats.not_finite_values")
    return names, x, query_ids


def _pair(a: str, b: str, d: np.ndarray, mean_a: float, mean_b: float,
          ci: tuple[float, float], *, p: Mapping[str, float], label: str, n_comparisons: int,
          alpha: float, confidence: float) -> PairResult:
    """One pair's figures and verdict from its per-query differences ``d`` (b - a)."""
    n = d.shape[0]
    diff = float(d.mean())
    sd = float(d.std(ddof=1))
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    verdict = make_verdict(
        a=a, b=b, metric=label, n=n, mean_a=mean_a, mean_b=mean_b, ci_low=ci[0],
        ci_high=ci[1], p=p["holm"], sd_diff=sd, n_comparisons=n_comparisons, alpha=alpha,
        confidence=confidence, identical=wins == 0 and losses == 0)
    return PairResult(
        a=a, b=b, mean_a=mean_a, mean_b=mean_b, diff=diff, ci_low=ci[0], ci_high=ci[1],
        p_ttest=p["ttest"], p_wilcoxon=p["wilcoxon"], p_randomization=p["randomization"],
        p_holm=p["holm"], wins=wins, ties=n - wins - losses, losses=losses,
        effect_size=diff / sd if sd > 0 else None,
        relative_change=diff / mean_a if mean_a != 0 else None,
        sd_diff=sd, queries_needed=queries_needed(sd, diff, alpha=alpha), verdict=verdict)


def align_queries(sources: Mapping[str, Sequence[str]]) -> Alignment:
    """Queries every source has (in the first source's order) and what each one lacks."""
    sets = {name: set(map(str, ids)) for name, ids in sources.items()}
    if not sets:
        return Alignment([], {})
    union = set().union(*sets.values())
    shared = set.intersection(*sets.values())
    first = next(iter(sources.values()))
    common = [q for q in map(str, first) if q in shared]
    missing = {name: sorted(union - s) for name, s in sets.items()}
    return Alignment(common, missing)


def align_tables(tables: Mapping) -> tuple[Alignment, dict]:
    """``{run name: MetricTable}`` cut to the queries all tables share, in the same order.

    Returns the alignment (what each table lacks) and the aligned tables (via
    ``MetricTable.select``), ready for :func:`curve_bands` on ``table.values[family]``.
    """
    alignment = align_queries({name: t.query_ids for name, t in tables.items()})
    return alignment, {name: t.select(alignment.common) for name, t in tables.items()}


def compare_tables(tables: Mapping, metric: str, *, drop_no_relevant: bool = False,
                   **options) -> Comparison:
    """Compare ``{run name: MetricTable}`` on ``metric`` (e.g. ``"ndcg@10"``).

    Tables are aligned on the queries they all have; the rest are reported in
    ``Comparison.alignment`` and left out. With ``drop_no_relevant`` the queries without any
    relevant document (which score 0 in every run) are left out too. Each run's Judged@K (K
    of ``metric``) on the same queries goes with it, and the tables' labels (which judgment
    sets, condensed or not). Other keyword arguments go to :func:`compare_runs`.
    """
    alignment, aligned = align_tables(tables)
    common = alignment.common
    notes = list(options.pop("notes", ()))
    per_query = {name: np.asarray(t.value(metric), dtype=np.float64)
                 for name, t in aligned.items()}
    first = next(iter(aligned.values()), None)
    k = None if first is None else coverage_k_of(metric, first.kmax)
    judged = {name: np.asarray(t.value(f"{COVERAGE}@{k}"), dtype=np.float64)
              for name, t in aligned.items() if COVERAGE in t.values} if k else {}
    if drop_no_relevant:
        no_relevant = np.zeros(len(common), dtype=bool)
        for t in aligned.values():
            no_relevant |= np.asarray(t.no_relevant, dtype=bool)
        if no_relevant.any():
            keep = ~no_relevant
            common = [q for q, k in zip(common, keep) if k]
            per_query = {name: v[keep] for name, v in per_query.items()}
            judged = {name: v[keep] for name, v in judged.items()}
            notes.append(text("stats.note_no_relevant", n=int(no_relevant.sum())))
    if not alignment.complete:
        notes.append(text("stats.note_not_in_every", n=len(alignment.dropped),
                          common=len(alignment.common)))
    if first is not None:
        options.setdefault("labels", first.labels)
        options.setdefault("judged_only", first.judged_only)
    return compare_runs(per_query, metric_name=metric, query_ids=common, alignment=alignment,
                        notes=notes, coverage={n: float(v.mean()) if len(v) else float("nan")
                                               for n, v in judged.items()},
                        coverage_k=k if judged else None, **options)
