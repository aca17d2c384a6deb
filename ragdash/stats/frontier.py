"""The decision view: quality against what a run costs to operate, and the recommendation.

    frontier = build_frontier(runs, metric="ndcg@10", x="memory")
    frontier.points        # one FrontierPoint per run: x, y with its 95% interval, pareto, ...
    frontier.recommendation("ja")

**What a run costs to operate** (:func:`operating`), from the run itself:

- ``index-cost``: the corpus's tokens x the model's price (the price catalog; BM25 and local
  models cost 0). The same token count for every run of a dataset, so runs compare fairly; a
  sweep point (a truncation, a quantization) costs what its parent cost: the corpus is
  embedded once at the model's full size.
- ``query-cost``: the evaluated queries' mean tokens x 1,000 x price, per 1,000 queries.
- ``memory``: ``run.resources["index_bytes"]`` as the producer measured or computed it
  (vectors x dimensions x bytes per value; BM25's index as built); projected linearly to
  ``project_to`` vectors when asked (marked as a projection).
- ``latency``: the p95 of an online probe when one was kept with the run
  (``resources["latency_probe"]["p95_ms"]``), else the retrieval time per query measured in
  the run (``resources["ms_per_query"]``).

**The frontier**: every run is a point, y the metric's mean with its 95% bootstrap interval,
x one of the four figures. A point is Pareto-optimal when no other point is at least as good on
both axes and better on one (lower x, higher y). Points that are *not distinguishable from the
best run* are those whose comparison with it, as :func:`ragdash.stats.compare_tables` makes it
for the same runs (the same test, Holm-corrected over all pairs), finds no significant
difference.

**The recommendation** is the run with the lowest x among those not distinguishable from the
best, with what it keeps of the best's score and what it saves. When every run is
indistinguishable from the best, it says that the queries are too few to decide, and about how
many a difference of the observed size would need.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..cost import (
    Catalog,
    CostSettings,
    count_tokens,
    format_bytes,
    format_money,
    load_catalog,
    price_tokens,
)
from ..errors import CostError, StatsError
from ..i18n import convention, error, message, normalize_lang, t, text
from ..judgments.coverage import caveat, coverage_k_of
from ..metrics import COVERAGE, metric_label, parse_metric
from ..run import distinct_rankings, merged_notes
from ..secrets import scrub_secrets
from .bootstrap import bootstrap_ci
from .compare import Comparison, RunMean, compare_tables
from .verdict import format_value

if TYPE_CHECKING:
    from ..run import Run

__all__ = ["X_AXES", "Frontier", "FrontierPoint", "Operating", "build_frontier", "format_x",
           "operating", "pareto_mask"]

#: the x axes a frontier can use, with their unit
X_AXES = {"index-cost": "USD", "query-cost": "USD per 1,000 queries", "memory": "bytes",
          "latency": "ms"}
#: each axis named in the recommendation, and a run better on it (message keys)
_NOUN_KEYS = {"index-cost": "fr.say.noun.index-cost", "query-cost": "fr.say.noun.query-cost",
              "memory": "fr.say.noun.memory", "latency": "fr.say.noun.latency"}
_BETTER_KEYS = {"index-cost": "fr.say.better.index-cost",
                "query-cost": "fr.say.better.query-cost", "memory": "fr.say.better.memory",
                "latency": "fr.say.better.latency"}
#: retrievers that call no paid API
_FREE = ("bm25", "local", "trec")


# -- operating figures ------------------------------------------------------------------------
@dataclass(frozen=True)
class Operating:
    """What a run costs to operate (``None``: not known for this run)."""

    index_cost_usd: float | None
    query_cost_per_1000_usd: float | None
    index_bytes: int | None
    latency_ms: float | None
    latency_kind: str | None  # "probe p95" (an online probe) | "measured" (the run's own time)
    projected_bytes: int | None = None  # index_bytes at ``project_to`` vectors
    project_to: int | None = None
    price: str | None = None  # "OpenAI / text-embedding-3-small", "free", or None (unknown)
    notes: tuple[str, ...] = ()
    #: what this run itself paid: its reported prompt tokens x the price (a sweep point,
    #: scored from its parent's vectors, paid 0; the index cost above is the estimate)
    paid_usd: float | None = None

    def to_json(self) -> dict:
        return {"index_cost_usd": self.index_cost_usd,
                "query_cost_per_1000_usd": self.query_cost_per_1000_usd,
                "paid_usd": self.paid_usd, "index_bytes": self.index_bytes,
                "projected_bytes": self.projected_bytes, "project_to": self.project_to,
                "latency_ms": self.latency_ms, "latency_kind": self.latency_kind,
                "price": self.price, "notes": list(self.notes)}

    def x(self, axis: str) -> float | None:
        """The figure on ``axis`` (one of :data:`X_AXES`)."""
        _check_axis(axis)
        value = {"index-cost": self.index_cost_usd,
                 "query-cost": self.query_cost_per_1000_usd,
                 "memory": self.projected_bytes if self.projected_bytes is not None
                 else self.index_bytes,
                 "latency": self.latency_ms}[axis]
        return None if value is None else float(value)


_token_cache: OrderedDict[tuple, tuple[int, float]] = OrderedDict()
_token_lock = threading.Lock()


def _corpus_tokens(run: Run) -> tuple[int, float]:
    """(document tokens, mean tokens per evaluated query) of the run's dataset, counted once
    per dataset and query list."""
    chunking = (run.resources.get("chunks") or {}).get("tokens")
    key = (run.dataset_fingerprint, ",".join(run.query_ids[:50]) + f"#{len(run.query_ids)}",
           chunking)
    with _token_lock:
        hit = _token_cache.get(key)
    if hit is not None:
        return hit
    chunks = run.resources.get("chunks") or {}
    # a chunked run embeds its chunks (overlaps counted twice), not the whole documents
    docs = (int(chunks["tokens"]) if chunks.get("tokens") is not None
            else count_tokens(run.dataset.doc_texts()).tokens)
    texts = {q.id: q.text for q in run.dataset.queries}
    query = count_tokens([texts.get(q, "") for q in run.query_ids]).tokens
    value = (int(docs), query / max(1, len(run.query_ids)))
    with _token_lock:
        _token_cache[key] = value
        while len(_token_cache) > 16:
            _token_cache.popitem(last=False)
    return value


def _kind(run: Run) -> str:
    config = run.config.get("parent_config") if run.config.get("transform") else None
    source = config or run.config
    return str(source.get("retriever") or run.retriever).split(":")[0].lower()


def operating(run: Run, *, catalog: Catalog | None = None,
              settings: CostSettings | None = None,
              project_to: int | None = None) -> Operating:
    """What ``run`` costs to operate (see the module docstring)."""
    notes: list[str] = []
    index_usd, query_usd, paid, price = _embedding_costs(run, catalog, settings, notes)
    rerank_usd = _rerank_per_1000(run, notes)
    if rerank_usd is not None and query_usd is not None:
        query_usd += rerank_usd
    elif rerank_usd is None and _transforms(run, "rerank"):
        query_usd = None
    index_bytes = run.resources.get("index_bytes")
    index_bytes = None if index_bytes is None else int(index_bytes)
    projected = None
    if project_to is not None and index_bytes is not None:
        vectors = int(run.resources.get("vectors") or len(run.dataset.documents) or 1)
        projected = round(index_bytes * int(project_to) / vectors)
        notes.append(text("frontier.projected", vectors=f"{vectors:,}",
                          n=f"{int(project_to):,}"))
    latency, latency_kind = _latency(run)
    return Operating(index_cost_usd=index_usd, query_cost_per_1000_usd=query_usd,
                     index_bytes=index_bytes, latency_ms=latency, latency_kind=latency_kind,
                     projected_bytes=projected,
                     project_to=None if project_to is None else int(project_to), price=price,
                     notes=tuple(notes), paid_usd=paid)


def _transforms(run: Run, kind: str) -> list[dict]:
    """The transforms of ``kind`` along the run's chain of configs (newest first)."""
    out, config = [], run.config
    while isinstance(config, dict) and config.get("transform"):
        if config["transform"].get("kind") == kind:
            out.append(config["transform"])
        config = config.get("parent_config")
    return out


def _rerank_per_1000(run: Run, notes: list[str]) -> float | None:
    """USD per 1,000 queries of the run's rerank stages (0 without one; None when a stage is
    not priced): search units (Cohere: a query with up to 100 documents is one) or the
    tokens of the query and its ``depth`` documents (mean document tokens)."""
    from ..cost.rerank import find_rerank_price

    total = 0.0
    for transform in _transforms(run, "rerank"):
        if str(transform.get("reranker") or "").lower() == "local":
            continue
        model, depth = str(transform.get("model") or ""), int(transform.get("depth") or 0)
        price = find_rerank_price(model)
        if price is None:
            notes.append(text("frontier.no_rerank_price", model=model))
            return None
        if price.unit == "search_units":
            units = 1000 * max(1, math.ceil(depth / 100))
        else:
            doc_tokens, per_query = _corpus_tokens(run)
            mean_doc = doc_tokens / max(1, len(run.dataset.documents))
            units = round(1000 * (per_query + depth * mean_doc))
        total += price.usd(units)
    return total


def _embedding_costs(run: Run, catalog: Catalog | None, settings: CostSettings | None,
                     notes: list[str]) -> tuple[float | None, float | None, float | None,
                                                str | None]:
    """(index USD, query USD per 1,000, paid USD, price label) of the run's embeddings,
    summed over a pipeline's first stages; None where unknown — a stage with no price makes
    the whole unknown, never $0 — with a note."""
    stages = _first_stages(run)
    if all(kind in _FREE or not model for kind, model, _ in stages):
        return 0.0, 0.0, 0.0, "free"
    cat = catalog if catalog is not None else load_catalog()
    doc_tokens, per_query = _corpus_tokens(run)
    index = query = paid = 0.0
    labels = []
    known = True
    for kind, model, provider in stages:
        if kind in _FREE or not model:
            continue
        try:
            row = cat.find(model, provider)
        except CostError:
            notes.append(text("frontier.no_price", model=model))
            known = False
            continue
        labels.append(row.label)
        index += price_tokens(doc_tokens, row, settings).usd
        query += price_tokens(round(per_query * 1000), row, settings).usd
    if len(stages) == 1 and labels:  # what this run itself paid, from its usage
        paid = price_tokens(int(run.usage.get("prompt_tokens") or 0),
                            cat.find(stages[0][1], stages[0][2]), settings).usd
    elif len(stages) > 1:
        paid = None  # a pipeline's stages paid as their own runs
    if not known:
        return None, None, None, None
    label = " + ".join(labels)
    if doc_tokens == 0 and run.dataset.documents:
        notes.append(text("frontier.ids_only", dataset=run.dataset.name))
        return None, None, paid, label
    return index, query, paid, label


def _first_stages(run: Run) -> list[tuple[str, str | None, str | None]]:
    """(kind, model, provider) of each first stage: a pipeline's (fused runs, reranked
    ones: ``config["stages"]``), else the run itself."""
    stages = [s for s in (run.config.get("stages") or [])
              if isinstance(s, dict) and s.get("stage") == "first"]
    if not stages:
        return [(_kind(run), run.model, run.config.get("provider"))]
    out = []
    for stage in stages:
        config = stage.get("config") if isinstance(stage.get("config"), dict) else {}
        kind = str(config.get("retriever") or stage.get("retriever") or "").split(":")[0]
        out.append((kind.lower(), config.get("model"), config.get("provider")))
    return out


def _latency(run: Run) -> tuple[float | None, str | None]:
    """A kept probe's p95 (an embedding probe plus a rerank probe when the run has both),
    else the search time per query measured in the run."""
    probes = [run.resources.get(k) or {} for k in ("latency_probe", "rerank_latency_probe")]
    p95 = [float(p["p95_ms"]) for p in probes if p.get("p95_ms") is not None]
    if p95:
        return sum(p95), "probe p95"
    if run.resources.get("ms_per_query") is not None:
        return float(run.resources["ms_per_query"]), "measured"
    if run.seconds is not None and run.query_ids:
        return 1000.0 * float(run.seconds) / len(run.query_ids), "measured"
    return None, None


# -- the frontier -----------------------------------------------------------------------------
@dataclass(frozen=True)
class FrontierPoint:
    """One run on the frontier chart."""

    name: str
    run_id: str | None
    x: float | None
    y: float
    ci_low: float
    ci_high: float
    pareto: bool
    best: bool
    indistinguishable_from_best: bool  # the best itself counts as indistinguishable
    p_vs_best: float | None  # Holm-corrected p of the comparison with the best (None: best)
    operating: Operating
    config: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"run": self.name, "run_id": self.run_id, "x": self.x, "y": self.y,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "pareto": self.pareto,
                "best": self.best,
                "indistinguishable_from_best": self.indistinguishable_from_best,
                "p_vs_best": self.p_vs_best, "config": self.config,
                "operating": self.operating.to_json()}


@dataclass(frozen=True)
class Frontier:
    """Every run as a point, the best run, and the recommendation (see the module docs)."""

    metric: str
    metric_label: str
    x_axis: str
    points: list[FrontierPoint]
    n_queries: int
    alpha: float
    comparison: Comparison | None  # None with a single run
    #: runs that ranked every query exactly as a point's run did, shown as that point
    #: (``{point's name: (merged names, ...)}``)
    merged: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: each run's mean Judged@K (K of the metric) on the compared queries, by point name
    coverage: dict[str, float] = field(default_factory=dict)
    coverage_k: int | None = None
    #: the judgment sets behind the numbers (``("qrels",)``: human only); condensed lists?
    labels: tuple[str, ...] = ("qrels",)
    judged_only: bool = False

    @property
    def best(self) -> FrontierPoint:
        return next(p for p in self.points if p.best)

    @property
    def recommended(self) -> FrontierPoint | None:
        """The lowest-x run not distinguishable from the best (``None`` when no run with the
        best's quality has a known x)."""
        pool = [p for p in self.points if p.indistinguishable_from_best and p.x is not None]
        if not pool:
            return None
        return min(pool, key=lambda p: (p.x, -p.y, p.name))

    @property
    def undecided(self) -> bool:
        """True when there are several runs and none differs detectably from the best."""
        return len(self.points) > 1 and all(p.indistinguishable_from_best for p in self.points)

    def recommendation(self, lang: str = "en") -> str:
        """The recommendation, followed by what the labels' coverage means for it (when the
        runs' top K is thinly or unequally judged)."""
        lang = normalize_lang(lang)
        said = _sentence(self, lang)
        warn = self.caveat()
        return said if warn is None else said + convention(lang, "sentence_gap") + message(
            warn, lang)

    def caveat(self):
        """The coverage sentence (a :class:`ragdash.i18n.Text`), or ``None``."""
        if self.coverage_k is None:
            return None
        return caveat(self.coverage, k=self.coverage_k, metric=self.metric_label,
                      judged_only=self.judged_only)

    def merged_notes(self, lang: str = "en") -> list[str]:
        """A sentence per point that stands for runs of the same ranking."""
        return merged_notes(self.merged, lang)

    def to_json(self) -> dict:
        out = {"metric": self.metric, "x": self.x_axis, "unit": X_AXES[self.x_axis],
               "queries": self.n_queries, "points": [p.to_json() for p in self.points],
               "sentence": self.recommendation("en"), "sentence_ja": self.recommendation("ja"),
               "merged": {k: list(v) for k, v in self.merged.items()},
               "labels": list(self.labels), "judged_only": self.judged_only}
        if self.coverage_k is not None:
            key = f"judged@{self.coverage_k}"
            for point in out["points"]:
                point[key] = self.coverage.get(point["run"])
        return out


def format_x(axis: str, value: float | None) -> str:
    """A value of ``axis`` as people read it: ``$0.0123``, ``1.5 MB``, ``12.30 ms``; None
    → ``—``."""
    if value is None:
        return "—"
    if axis == "memory":
        return format_bytes(value)
    if axis == "latency":
        return f"{float(value):,.2f} ms"
    return format_money(value, "USD")


def pareto_mask(x: Sequence[float | None], y: Sequence[float]) -> list[bool]:
    """For each point, whether it is Pareto-optimal (lower x and higher y are better); a point
    without x is never on the frontier."""
    pts = list(zip(x, y))
    out = []
    for i, (xi, yi) in enumerate(pts):
        if xi is None or not math.isfinite(xi):
            out.append(False)
            continue
        dominated = any(xj is not None and xj <= xi and yj >= yi and (xj < xi or yj > yi)
                        for j, (xj, yj) in enumerate(pts) if j != i)
        out.append(not dominated)
    return out


def build_frontier(runs: Sequence[Run], *, metric: str = "ndcg@10", x: str = "index-cost",
                   names: Sequence[str] | None = None, catalog: Catalog | None = None,
                   settings: CostSettings | None = None, project_to: int | None = None,
                   alpha: float = 0.05, drop_no_relevant: bool = False,
                   tables: Sequence | None = None, **compare_options) -> Frontier:
    """The frontier of ``runs`` (all on one dataset) on ``metric`` against ``x``.

    ``names`` label the runs (default: their names, made unique); ``tables``: their metric
    tables when not the runs' own (filled judgment sets, condensed lists: see
    :meth:`ragdash.run.Run.table`); ``compare_options`` go to
    :func:`ragdash.stats.compare_runs` (``seed``, ``n_resamples``, ``test``, ...).
    """
    _check_axis(x)
    runs = list(runs)
    if not runs:
        raise error(StatsError, "stats.frontier_empty")
    if len({r.dataset_fingerprint for r in runs}) > 1:
        raise error(StatsError, "stats.frontier_datasets")
    parse_metric(metric)
    names = list(names) if names is not None else _unique_names(runs)
    ops = [operating(r, catalog=catalog, settings=settings, project_to=project_to)
           for r in runs]
    tables = [r.table() for r in runs] if tables is None else list(tables)
    # one ranking, one point (and one comparison): of runs that rank alike, the one with the
    # lowest known x stands for the others (the same quality for less)
    keep, merged = distinct_rankings(runs)
    shown, shown_for = [], {}
    for first in keep:
        group = [first, *merged.get(first, [])]
        known = [i for i in group if ops[i].x(x) is not None]
        chosen = min(known, key=lambda i: (ops[i].x(x), group.index(i))) if known else first
        shown.append(chosen)
        if len(group) > 1:
            shown_for[names[chosen]] = tuple(names[i] for i in group if i != chosen)
    runs, names, ops, tables = ([seq[i] for i in shown]
                                for seq in (runs, names, ops, tables))
    comparison = None
    if len(runs) > 1:
        comparison = compare_tables(dict(zip(names, tables)), metric,
                                    drop_no_relevant=drop_no_relevant, alpha=alpha,
                                    **compare_options)
        means = {m.name: m for m in comparison.runs}
        n_queries = len(comparison.query_ids)
        coverage, cov_k = comparison.coverage, comparison.coverage_k
    else:
        values = tables[0].value(metric)
        ci = bootstrap_ci(values, seed=compare_options.get("seed", 0))
        means = {names[0]: RunMean(names[0], float(values.mean()), ci.low, ci.high)}
        n_queries = len(values)
        cov_k = coverage_k_of(metric, tables[0].kmax)
        coverage = {names[0]: tables[0].mean(f"{COVERAGE}@{cov_k}")}
    best_name = max(names, key=lambda n: (means[n].mean, -names.index(n)))
    xs = [op.x(x) for op in ops]
    ys = [means[n].mean for n in names]
    pareto = pareto_mask(xs, ys)
    points = []
    for i, (name, run) in enumerate(zip(names, runs)):
        p = None if name == best_name else _pair_p(comparison, best_name, name)
        same = name == best_name or not _significant(comparison, best_name, name)
        points.append(FrontierPoint(
            name=name, run_id=run.id, x=xs[i], y=ys[i], ci_low=means[name].ci_low,
            ci_high=means[name].ci_high, pareto=pareto[i], best=name == best_name,
            indistinguishable_from_best=same, p_vs_best=p, operating=ops[i],
            config=scrub_secrets(dict(run.config))))
    return Frontier(metric=metric, metric_label=metric_label(metric), x_axis=x, points=points,
                    n_queries=n_queries, alpha=alpha, comparison=comparison, merged=shown_for,
                    coverage=dict(coverage), coverage_k=cov_k, labels=tables[0].labels,
                    judged_only=tables[0].judged_only)


def _unique_names(runs: Sequence[Run]) -> list[str]:
    names = [r.name or r.retriever for r in runs]
    counts = {n: names.count(n) for n in names}
    return [n if counts[n] == 1 else f"{n} ({(r.id or str(i))[:4]})"
            for i, (n, r) in enumerate(zip(names, runs))]


def _check_axis(axis: str) -> None:
    if axis not in X_AXES:
        raise error(StatsError, "stats.frontier_axis", axis=axis,
                    names=", ".join(X_AXES))


def _find_pair(comparison: Comparison | None, a: str, b: str):
    if comparison is None:
        return None
    for p in comparison.pairs:
        if {p.a, p.b} == {a, b}:
            return p
    return None


def _pair_p(comparison: Comparison | None, a: str, b: str) -> float | None:
    pair = _find_pair(comparison, a, b)
    return None if pair is None else float(pair.p_holm)


def _significant(comparison: Comparison | None, a: str, b: str) -> bool:
    pair = _find_pair(comparison, a, b)
    return bool(pair is not None and pair.significant)


# -- the sentence -----------------------------------------------------------------------------
def _p_text(p: float | None) -> str:
    if p is None:
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.2f}" if p >= 0.01 else f"{p:.3f}"


def _share(part: float, whole: float, noun: str, lang: str) -> str:
    """"1/12 of the memory", "none of the ...", "2.1x the ..." of the best's figure (both
    known: see :func:`_figure`)."""
    if part <= 0:
        return t("fr.say.share_none", lang, noun=noun)
    r = part / whole
    if r < 1:
        inv = 1 / r
        ratio = f"1/{inv:.0f}" if inv >= 10 else f"1/{inv:.2g}"
        return t("fr.say.share", lang, ratio=ratio, noun=noun)
    return t("fr.say.share_times", lang, ratio=f"{r:.2g}", noun=noun)


def _figure(point: FrontierPoint, axis: str) -> float | None:
    """``point``'s figure on ``axis`` as a sentence may compare it: ``None`` when it is not
    known, and for latency unless an online probe measured it (a run's own search time per
    query is drawn, but says little about serving: it includes whatever the run did)."""
    if axis == "latency" and point.operating.latency_kind != "probe p95":
        return None
    return point.operating.x(axis)


def _missing(axis: str, points: Sequence[FrontierPoint], lang: str) -> str:
    """What the sentence cannot compare, said instead of a blank: "no memory figure for A",
    "latency not measured for A and B (the latency probe below measures it)"."""
    names = convention(lang, "list_separator").join(p.name for p in points)
    if axis == "latency":
        return t("fr.say.latency_unmeasured", lang, names=names)
    return t("fr.say.missing", lang, noun=t(_NOUN_KEYS[axis], lang), names=names)


def _sentence(f: Frontier, lang: str) -> str:
    best = f.best
    label = f.metric_label
    if len(f.points) == 1:
        return t("fr.say.one_run", lang, name=best.name)
    if f.undecided:
        return _undecided(f, lang)
    rec = f.recommended
    if rec is None or rec.best:
        return t("fr.say.best_alone", lang, name=best.name, label=label,
                 value=format_value(best.y), n=f"{f.n_queries:,}",
                 better=t(_BETTER_KEYS[f.x_axis], lang))
    keep = rec.y / best.y if best.y > 0 else 1.0
    a, b = _figure(rec, f.x_axis), _figure(best, f.x_axis)
    if a is None or b is None:
        share = _missing(f.x_axis, [p for p, v in ((rec, a), (best, b)) if v is None], lang)
    else:
        share = _share(a, b, t(_NOUN_KEYS[f.x_axis], lang), lang)
    return t("fr.say.recommend", lang, name=rec.name, keep=f"{keep:.1%}", label=label,
             best=best.name, p=_p_text(rec.p_vs_best), n=f"{f.n_queries:,}", share=share,
             saving=_saving(f, rec, best, lang))


def _saving(f: Frontier, rec: FrontierPoint, best: FrontierPoint, lang: str) -> str:
    """The other axes' savings, when they are savings too (e.g. memory beside cost)."""
    parts = []
    for axis in X_AXES:
        if axis == f.x_axis:
            continue
        a, b = _figure(rec, axis), _figure(best, axis)
        if a is None or b is None or b <= 0 or a >= b:
            continue
        parts.append(_share(a, b, t(_NOUN_KEYS[axis], lang), lang))
    comma = convention(lang, "list_separator")
    return comma + comma.join(parts) if parts else ""


def _undecided(f: Frontier, lang: str) -> str:
    best = f.best
    worst = min(f.points, key=lambda p: p.y)
    pair = _find_pair(f.comparison, best.name, worst.name)
    need = pair.queries_needed if pair is not None else None
    tail = (t("fr.say.undecided_tail", lang, worst=worst.name,
              gap=format_value(best.y - worst.y), need=f"{need:,}") if need else "")
    return t("fr.say.undecided", lang, n=f"{f.n_queries:,}", label=f.metric_label, best=best.name,
             tail=tail)
