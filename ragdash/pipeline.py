"""One evaluation: dataset + retriever -> a :class:`ragdash.run.Run` (ranking, what it cost
and took; its metric table derived on demand).

    run = run_evaluation(dataset, make_retriever("bm25"), kmax=100)
    run.table().mean("ndcg@10"), run.ranking, run.usage, run.seconds

The queries evaluated are the dataset's queries that have qrels, in file order (the first
``limit_queries`` of them). The metric table is computed over exactly those queries, so a
query that has relevant documents but got no results (an empty BM25 match, say) counts as 0
rather than disappearing from the mean.

Used by the command line (``python -m ragdash evaluate``) and the app (the Run page).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from .dataset import Dataset, Query
from .errors import RetrievalError
from .i18n import error
from .params import EVALUATION
from .ranking import Ranking
from .run import Run

__all__ = ["ProgressFn", "Retriever", "fuse_runs", "pipeline_name", "pipeline_task",
           "rerank_pipeline", "run_evaluation", "run_pipeline", "stage_label"]

ProgressFn = Callable[[dict], None]


class Retriever(Protocol):
    """What :func:`run_evaluation` needs of a retriever (BM25, dense, an engine, ...)."""

    name: str
    usage: dict

    def config(self) -> dict: ...

    def rank(self, dataset: Dataset, queries: list[Query], kmax: int, *,
             progress: ProgressFn | None = None,
             cancel: threading.Event | None = None) -> Ranking: ...


def run_evaluation(dataset: Dataset, retriever: Retriever, *,
                   kmax: int = EVALUATION["kmax"].default,
                   limit_queries: int | None = None, progress: ProgressFn | None = None,
                   cancel: threading.Event | None = None,
                   relevance_level: float | None = None,
                   gain: str = "linear") -> Run:
    """Retrieve the top ``kmax`` for the evaluated queries; the run's table scores them at
    K = 1..kmax (computed when first asked for)."""
    kmax = _positive_int(kmax, "kmax")
    if limit_queries is not None:
        limit_queries = _positive_int(limit_queries, "limit_queries")
    if not dataset.documents:
        raise error(RetrievalError, "pipeline.no_documents")
    queries = dataset.evaluated_queries(limit_queries)
    if not queries:
        raise error(RetrievalError, "pipeline.no_judged")
    fingerprint = dataset.fingerprint()
    started = time.perf_counter()
    ranking = retriever.rank(dataset, queries, kmax, progress=progress, cancel=cancel)
    seconds = time.perf_counter() - started
    config = dict(retriever.config())
    # a chunked retriever says which chunk matched (the drill-down shows it)
    resources = _resources(retriever, len(queries))
    return Run(dataset=dataset, ranking=ranking, query_ids=[q.id for q in queries], kmax=kmax,
               retriever=retriever.name, model=config.get("model"), config=config,
               usage=dict(retriever.usage), seconds=seconds,
               timings={"retrieval": seconds}, resources=resources,
               relevance_level=relevance_level, gain=gain,
               source="evaluation", dataset_fingerprint=fingerprint)


def _resources(retriever: Retriever, n_queries: int) -> dict:
    """The retriever's ``resources`` (optional in the protocol), with the search time per
    query in milliseconds."""
    resources = dict(getattr(retriever, "resources", None) or {})
    search = resources.get("search_seconds")
    if search is not None and n_queries:
        resources["ms_per_query"] = 1000.0 * float(search) / n_queries
    return resources


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool):
        raise error(RetrievalError, "pipeline.not_positive", what=what, value=value)
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise error(RetrievalError, "pipeline.not_positive", what=what, value=value) from None
    if number != value or number < 1:
        raise error(RetrievalError, "pipeline.not_positive", what=what, value=value)
    return number


# -- pipelines: first stage(s) → fusion → rerank, each stage a Run ---------------------------
def stage_label(run: Run) -> str:
    """How a run is called inside a pipeline's name: its own name when it has one (a saved
    run the user named, an imported file's stem, a pipeline), else "BM25" (with its k1 / b
    when not the defaults) or the embedding model; chunked runs say their chunk size."""
    cfg = run.config or {}
    if run.name or cfg.get("stages"):
        return run.name or run.retriever
    if run.retriever == "bm25" or cfg.get("retriever") == "bm25":
        label = "BM25"
        tuned = [f"{k}={cfg[k]:g}" for k, default in (("k1", 1.2), ("b", 0.75))
                 if isinstance(cfg.get(k), (int, float)) and cfg[k] != default]
        if tuned:
            label += f" ({', '.join(tuned)})"
    elif run.model:
        label = str(run.model).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] \
            if str(run.model).startswith((".", "/")) else str(run.model)
    else:
        label = run.name or run.retriever
    chunking = cfg.get("chunking")
    if chunking:
        label += f" ({chunking['size']}-token chunks)"
    return label


def pipeline_name(labels: list[str], *, fusion: str | None = None,
                  rerank_model: str | None = None, depth: int | None = None) -> str:
    """``"BM25 + text-embedding-3-small (RRF) → rerank-v3.5 top 50"``."""
    from .retrieval.fusion import _METHOD_LABEL

    name = " + ".join(labels)
    if fusion:
        name += f" ({_METHOD_LABEL.get(fusion, fusion)})"
    if rerank_model:
        name += f" → {rerank_model}" + (f" top {depth}" if depth else "")
    return name


def _stages_of(run: Run) -> list[dict]:
    """A run's stages: a pipeline's own list, else the run itself as a first stage."""
    if (run.config or {}).get("stages"):
        return [dict(s) for s in run.config["stages"]]
    return [{"stage": "first", "label": stage_label(run), "run": run.id,
             "retriever": run.retriever, "config": dict(run.config or {})}]


def _stage_usage(run: Run) -> list[dict]:
    if isinstance((run.usage or {}).get("stages"), list):
        return [dict(s) for s in run.usage["stages"]]
    usage = {k: v for k, v in (run.usage or {}).items() if k != "stages"}
    return [{"stage": stage_label(run), **usage}]


def _stage_cost(run: Run) -> list[dict]:
    """Per stage: the cost saved with the run, and its actual cost from its usage (BM25 and
    imported runs cost 0; a model missing from the price catalog has none)."""
    if isinstance((run.cost or {}).get("stages"), list):
        return [dict(s) for s in run.cost["stages"]]
    entry = {"stage": stage_label(run), **(run.cost or {})}
    if "actual_usd" not in entry:
        if run.retriever in ("bm25", "trec") or (run.config or {}).get("retriever") in (
                "bm25", "local", "trec"):  # on this machine, or made elsewhere: nothing to pay
            entry.update(actual_usd=0.0, actual_jpy=0.0)
            entry.setdefault("estimated_usd", 0.0)
            entry.setdefault("estimated_jpy", 0.0)
        else:
            from .cost import actual_cost
            from .errors import RagdashError

            try:
                act = actual_cost(run.usage or {}, model=entry.get("model") or run.model,
                                  provider=entry.get("provider"))
            except RagdashError:
                pass
            else:
                entry.update(actual_usd=act.usd, actual_jpy=act.jpy)
    return [entry]


def _sum_stages(stages: list[dict], keys=None) -> dict:
    total: dict = {}
    for s in stages:
        for k, v in s.items():
            if k == "stage" or isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            if keys is None or k in keys:
                total[k] = total.get(k, 0) + v
    return total


_COST_SUMS = ("estimated_usd", "estimated_jpy", "actual_usd", "actual_jpy")


def _with_totals(stages: list[dict], *, cost: bool = False) -> dict:
    return {**_sum_stages(stages, _COST_SUMS if cost else None), "stages": stages}


def fuse_runs(runs: list[Run], method: str = "rrf", *, norm: str | None = None,
              weights: list[float] | None = None, alpha: float | None = None,
              rrf_k: float | None = None, name: str | None = None) -> Run:
    """The fusion of ``runs`` (see :mod:`ragdash.retrieval.fusion`) as a pipeline run: every
    input a first stage, the fusion a stage, the inputs' ids its parents, usage and cost
    per stage and summed. Runs of different datasets are refused in one sentence."""
    from .retrieval.fusion import RRF_K, fuse

    runs = list(runs)
    if len(runs) < 2:
        raise error(RetrievalError, "pipeline.fuse_two", n=len(runs))
    first = runs[0]
    for other in runs[1:]:
        if other.dataset_fingerprint != first.dataset_fingerprint:
            raise error(RetrievalError, "pipeline.fuse_datasets", a=stage_label(first),
                        a_dataset=first.dataset.name, b=stage_label(other),
                        b_dataset=other.dataset.name)
    labels = [stage_label(r) for r in runs]
    rrf_k = RRF_K if rrf_k is None else rrf_k
    ranking = fuse([r.ranking for r in runs], method, norm=norm, weights=weights, alpha=alpha,
                   rrf_k=rrf_k, name=" + ".join(labels))
    fusion = {"stage": "fusion", "method": method, "norm": norm,
              "weights": None if weights is None else [float(w) for w in weights],
              "alpha": alpha, "rrf_k": float(rrf_k) if method == "rrf" else None,
              "label": pipeline_name([], fusion=method).strip()}
    stages = [s for r in runs for s in _stages_of(r)] + [fusion]
    query_ids = list(dict.fromkeys(q for r in runs for q in r.query_ids))
    usage = _with_totals([s for r in runs for s in _stage_usage(r)])
    cost = _with_totals([s for r in runs for s in _stage_cost(r)], cost=True)
    return Run(dataset=first.dataset, ranking=ranking, query_ids=query_ids,
               kmax=max(r.kmax for r in runs), retriever=f"{method}({', '.join(labels)})",
               name=name or pipeline_name(labels, fusion=method),
               config={"retriever": "pipeline", "stages": stages,
                       "transform": {"kind": "fusion", **{k: v for k, v in fusion.items()
                                                          if k != "stage"}}},
               usage=usage, cost=cost, seconds=sum(r.seconds or 0.0 for r in runs),
               timings={"stages": [{"stage": lb, "seconds": r.seconds} for lb, r in
                                   zip(labels, runs)]},
               relevance_level=first.relevance_level, gain=first.gain, source="fusion",
               parents=[r.id for r in runs if r.id],
               dataset_fingerprint=first.dataset_fingerprint)


def rerank_pipeline(run: Run, reranker, *, progress: ProgressFn | None = None,
                    cancel: threading.Event | None = None, estimate: dict | None = None,
                    name: str | None = None) -> Run:
    """``run`` (a first stage or a fusion) reranked by ``reranker``
    (:class:`ragdash.retrieval.rerank.Reranker`) as a pipeline run: the stages of ``run``
    and the rerank; usage and cost per stage and summed (the rerank's actual cost from the
    units the API reported)."""
    from .retrieval.rerank.stage import actual_cost

    derived = reranker.rerank_run(run, progress=progress, cancel=cancel)
    cfg = reranker.scorer.config()
    model = reranker.scorer.model
    label = getattr(reranker.scorer, "label", None) or model  # a local folder: its name
    rerank = {"stage": "rerank", "model": model, "depth": reranker.depth,
              "reranker": cfg.get("reranker"), "protocol": cfg.get("protocol"),
              "base_url": cfg.get("base_url"), "label": f"{label} top {reranker.depth}"}
    stages = [*_stages_of(run), rerank]
    labels = [s["label"] for s in stages if s.get("stage") == "first"]
    fusion = next((s["method"] for s in stages if s.get("stage") == "fusion"), None)
    rr_usage = {"stage": rerank["label"], **reranker.usage}
    actual = actual_cost(reranker.usage, reranker.scorer)
    rr_cost = {"stage": rerank["label"], "estimate": estimate, "actual": actual,
               "actual_usd": actual.get("usd"), "actual_jpy": actual.get("jpy")}
    if estimate:
        rr_cost.update(estimated_usd=estimate.get("usd"), estimated_jpy=estimate.get("jpy"))
    derived.config = {"retriever": "pipeline", "stages": stages,
                      "transform": derived.config.get("transform")}
    derived.name = name or pipeline_name(labels, fusion=fusion, rerank_model=label,
                                         depth=reranker.depth)
    derived.usage = _with_totals([*_stage_usage(run), rr_usage])
    rr_cost = {k: v for k, v in rr_cost.items() if v is not None}
    derived.cost = _with_totals([*_stage_cost(run), rr_cost], cost=True)
    derived.source = "pipeline"
    derived.timings = {"rerank": reranker.seconds}
    return derived


def run_pipeline(dataset: Dataset, first: list[Retriever], *, fusion: dict | None = None,
                 reranker=None, kmax: int = 100, limit_queries: int | None = None,
                 progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                 store=None, secrets=(), estimates: list[dict | None] | None = None,
                 rerank_estimate: dict | None = None, name: str | None = None,
                 relevance_level: float | None = None, gain: str = "linear",
                 annotate: Callable[[Run], None] | None = None) -> list[Run]:
    """Build and run a pipeline: every first stage (:func:`run_evaluation`), then the fusion
    (``fusion``: ``{"method", "norm", "weights", "alpha", "rrf_k"}``; needed with two or
    more first stages; a first stage may also be a :class:`Run` made before — a saved run, an
    uploaded TREC file — used as it is), then the rerank (``reranker``, a
    :class:`ragdash.retrieval.rerank.Reranker`). Returns every run made, inputs first, the
    whole pipeline last; with ``store`` each is saved as soon as it is made (so a later
    stage names its parents by id, and a failed rerank keeps what was paid for).
    ``estimates``: the cost shown before the run, one per first stage. ``annotate(run)`` is
    called on each run made, before it is saved (:func:`ragdash.setup.run_setup` records
    there the setup each run was made from)."""
    _check_composition(dataset, first, fusion)
    made: list[Run] = []

    def keep(run: Run) -> Run:
        if annotate is not None:
            annotate(run)
        if store is not None:
            store.save(run, secrets=list(secrets))
        made.append(run)
        return run

    def stage_progress(number: int, label: str) -> ProgressFn | None:
        """The stage's own events (their "stage" kept: the job panel names it), with the
        pipeline step they belong to (``"step": "2/4 text-embedding-3-small"``)."""
        if progress is None:
            return None
        step = f"{number}/{n_steps} {label}"
        return lambda event: progress({**event, "step": step})

    estimates = list(estimates or [])
    n_steps = len(first) + bool(fusion) + (reranker is not None)
    inputs = []
    for i, retriever in enumerate(first):
        if isinstance(retriever, Run):  # a run made before (saved, or an imported file)
            if retriever.id is None:
                keep(retriever)  # saved now, so that the pipeline names it as a parent
            inputs.append(retriever)
            continue
        run = run_evaluation(dataset, retriever, kmax=kmax, limit_queries=limit_queries,
                             progress=stage_progress(i + 1, retriever.name), cancel=cancel,
                             relevance_level=relevance_level, gain=gain)
        run.name = run.name or stage_label(run)
        est = estimates[i] if i < len(estimates) else None
        if est:
            run.cost = {**est, **({"actual_tokens": int(run.usage["prompt_tokens"])}
                                  if run.usage.get("prompt_tokens") is not None else {})}
        inputs.append(keep(run))
    current = inputs[0]
    if fusion:
        opts = {k: fusion.get(k) for k in ("norm", "weights", "alpha", "rrf_k")}
        current = fuse_runs(inputs, fusion.get("method", "rrf"), **opts,
                            name=None if reranker is not None else name)
        keep(current)
    if reranker is not None:
        current = rerank_pipeline(current, reranker,
                                  progress=stage_progress(n_steps, "rerank"),
                                  cancel=cancel, estimate=rerank_estimate, name=name)
        keep(current)
    elif name and not fusion:
        current.name = name
    return made


def _check_composition(dataset: Dataset, first: list, fusion: dict | None) -> None:
    """One sentence for a pipeline that cannot be run: no first stage, several without a
    fusion, a fusion of one, a run made before on another dataset."""
    if not first:
        raise error(RetrievalError, "pipeline.no_first_stage")
    if len(first) > 1 and not fusion:
        raise error(RetrievalError, "pipeline.needs_fusion", n=len(first))
    if len(first) == 1 and fusion:
        raise error(RetrievalError, "pipeline.fusion_of_one")
    fingerprint = dataset.fingerprint()
    for run in first:
        if isinstance(run, Run) and run.dataset_fingerprint != fingerprint:
            raise error(RetrievalError, "pipeline.other_dataset", run=stage_label(run),
                        run_dataset=run.dataset.name, dataset=dataset.name)


def pipeline_task(dataset: Dataset, make_first, *, fusion: dict | None = None,
                  make_reranker=None, **options):
    """A task for :meth:`ragdash.jobs.JobManager.submit` that runs :func:`run_pipeline`;
    ``make_first`` (a function returning the first-stage retrievers) and ``make_reranker``
    (returning a Reranker, or None) are called in the job thread. The job's result is the
    whole pipeline's run (the last one made)."""

    def task(*, progress: ProgressFn, cancel: threading.Event) -> Run:
        first = make_first()
        reranker = make_reranker() if make_reranker is not None else None
        return run_pipeline(dataset, first, fusion=fusion, reranker=reranker,
                            progress=progress, cancel=cancel, **options)[-1]

    return task
