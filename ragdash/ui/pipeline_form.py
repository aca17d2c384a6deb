"""The Run page's pipeline builder and weight sweep.

Built stage by stage: first stages (BM25 and/or the embedding model chosen in the retriever
settings above, optionally cut into chunks), fusion (when there are two), rerank (an HTTP rerank
API). The cost of each stage is shown before Start. The job runs
:func:`ragdash.pipeline.pipeline_task`, which saves every stage as its own run; when it has
finished, the Compare page is set to show the pipeline against its inputs.

The weight sweep takes two saved runs of the dataset and draws the metric against α with the
held-out half's bootstrap band (:func:`ragdash.present.charts.sweep_figure`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from .. import params as P
from ..cost import estimate_evaluation, format_money
from ..dataset import Dataset
from ..errors import RagdashError
from ..i18n import message
from ..pipeline import pipeline_name, pipeline_task
from ..retrieval.chunking import check_chunking
from ..retrieval.rerank import resolve_rerank_endpoint
from . import job_panel, keys
from .declared import choice, number, slider
from .page import PageContext
from .widgets import bind, bind_choice, md, plain_http_banner, say, secret_input

#: session keys (plain: they survive page switches)
BM25 = "rd_pipe_bm25"
DENSE = "rd_pipe_dense"
CHUNK_SIZE = "rd_pipe_chunk_size"
CHUNK_OVERLAP = "rd_pipe_chunk_overlap"
AGGREGATE = "rd_pipe_aggregate"
FUSION = "rd_pipe_fusion"
RRF_K = "rd_pipe_rrf_k"
ALPHA = "rd_pipe_alpha"
RERANK = "rd_pipe_rerank"
RERANK_URL = "rd_pipe_rerank_url"
RERANK_MODEL = "rd_pipe_rerank_model"
RERANK_PROTOCOL = "rd_pipe_rerank_protocol"
RERANK_KEY = "rd_pipe_rerank_key"  # session only, like the embeddings key
RERANK_KIND = "rd_pipe_rerank_kind"
RERANK_LOCAL_MODEL = "rd_pipe_rerank_local_model"
DEPTH = "rd_pipe_depth"
SAVED = "rd_pipe_saved"  # saved runs used as first stages
JOBS = "rd_pipe_jobs"  # job id -> handled (Compare set up) or not

_FUSION_LABEL = {"rrf": "RRF", "combsum": "CombSUM", "combmnz": "CombMNZ", "alpha": "α",
                 "dbsf": "DBSF"}
_AUTO = "auto"


@dataclass
class Plan:
    """What the builder will start: the stages, their labels and costs, or why not."""

    first: list[tuple[str, dict]] = field(default_factory=list)  # (retriever, options)
    labels: list[str] = field(default_factory=list)
    chunking: dict | None = None
    fusion: dict | None = None
    rerank: dict | None = None
    costs: list[dict] = field(default_factory=list)
    blocker: str | None = None

#: the chunk aggregations (ragdash.retrieval.chunking.AGGREGATES) and the kinds of reranker,
#: as the form names them (message keys)
_AGGREGATE_KEYS = {"max": "pipe.aggregate_max", "first": "pipe.aggregate_first",
                   "mean2": "pipe.aggregate_mean2"}
_RERANK_KIND_KEYS = {"http": "pipe.rerank_kind_http", "local": "pipe.rerank_kind_local"}


def builder(ctx: PageContext, ds: Dataset, settings, *, kmax: int, limit: int | None,
            name: str, job) -> None:
    """The pipeline section of the Run page (``settings``: the retriever settings above)."""
    t = ctx.t
    _hand_finished_to_compare(ctx)
    st.divider()
    st.subheader(t("pipe.title"))
    st.caption(t("pipe.intro"))
    plan = Plan()
    with st.container(border=True, key="pipe_first"):
        st.markdown(f"**{t('pipe.stage_first')}**")
        _first_stages(ctx, ds, settings, plan, limit)
    with st.container(border=True, key="pipe_fusion"):
        st.markdown(f"**{t('pipe.stage_fusion')}**")
        _fusion(ctx, plan)
    with st.container(border=True, key="pipe_rerank"):
        st.markdown(f"**{t('pipe.stage_rerank')}**")
        _rerank(ctx, ds, plan, limit)
    _cost_table(ctx, plan)
    default = pipeline_name(plan.labels, fusion=(plan.fusion or {}).get("method"),
                            rerank_model=_rerank_label(plan.rerank),
                            depth=(plan.rerank or {}).get("depth"))
    st.markdown(t("pipe.name", name=md(name.strip() or default)))
    if plan.blocker:
        st.warning(md(plan.blocker))
    if st.button(t("pipe.start"), type="primary", key="pipe_start", icon=":material/route:",
                 disabled=job is not None or plan.blocker is not None):
        _start(ctx, ds, settings, plan, kmax=kmax, limit=limit, name=name.strip() or None,
               label=default)
        st.session_state[keys.RUN_NAME] = ""
        st.rerun()


def _rerank_label(rr: dict | None) -> str | None:
    """The reranker as the run's name will say it (a local folder by its name)."""
    if not rr:
        return None
    model = str(rr["model"])
    if rr.get("kind") == "local":
        return model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return model


# -- stages -------------------------------------------------------------------------------
def _first_stages(ctx, ds, settings, plan: Plan, limit) -> None:
    t = ctx.t
    cols = st.columns(2)
    use_bm25 = cols[0].checkbox(t("pipe.bm25"), **bind(BM25, True))
    dense_ok = settings.retriever in ("openai", "local") and bool(settings.model)
    use_dense = False
    if dense_ok:
        use_dense = cols[1].checkbox(t("pipe.dense", model=md(settings.model)),
                                     **bind(DENSE, True))
    else:  # no embedding model chosen above (BM25 is): no box to tick, only why
        cols[1].caption(t("pipe.dense_none"))
    cols = st.columns(3)
    size = int(number(cols[0], P.CHUNKING["size"], t("pipe.chunk_size"), CHUNK_SIZE, t,
                      off=True))
    overlap = int(number(cols[1], P.CHUNKING["overlap"], t("pipe.chunk_overlap"), CHUNK_OVERLAP,
                         t))
    aggregate = choice(cols[2], P.CHUNKING["aggregate"], t("pipe.aggregate"), AGGREGATE, t,
                       format_func=lambda a: t(_AGGREGATE_KEYS[a]), disabled=size == 0)
    chunk_ds = ds
    if size:
        try:
            check_chunking(size, overlap, aggregate)
        except RagdashError as exc:
            plan.blocker = message(exc, ctx.lang, app=True)
        else:
            plan.chunking = {"size": size, "overlap": overlap, "aggregate": aggregate}
            chunks = _chunks(ds, size, overlap, aggregate)
            chunk_ds = chunks.dataset
            st.caption(t("pipe.chunks_info", chunks=f"{chunks.count:,}",
                         docs=f"{len(ds.documents):,}", tokens=f"{chunks.tokens:,}",
                         method=chunks.method))
    suffix = f" ({size}-token chunks)" if plan.chunking else ""
    if use_bm25:
        options = ({k: v for k, v in settings.options.items()} if settings.retriever == "bm25"
                   else {})
        plan.first.append(("bm25", options))
        tuned = [f"{k}={options[k]:g}" for k in ("k1", "b")
                 if isinstance(options.get(k), (int, float))
                 and options[k] != P.BM25[k].default]
        label = "BM25" + (f" ({', '.join(tuned)})" if tuned else "") + suffix
        plan.labels.append(label)
        plan.costs.append({"stage": label, "what": t("pipe.cost_free"), "usd": 0.0,
                           "jpy": 0.0})
    if use_dense:
        plan.first.append((settings.retriever, dict(settings.options)))
        plan.labels.append(settings.model + suffix)
        plan.costs.append(_dense_cost(ctx, chunk_ds, settings, limit, settings.model + suffix))
        if settings.blocker:
            plan.blocker = plan.blocker or settings.blocker
    _saved_first_stages(ctx, ds, plan)
    if not plan.first:
        plan.blocker = plan.blocker or t("pipe.need_first")


def _saved_first_stages(ctx, ds: Dataset, plan: Plan) -> None:
    """Saved runs of this dataset (made here, or TREC files uploaded on Compare) as first
    stages, used as they are: nothing is retrieved or paid for again."""
    from .widgets import bind_multi

    t = ctx.t
    summaries = ctx.store.list(dataset_fingerprint=ds.fingerprint())
    if not summaries:
        return
    names = {s.id: s.name or s.retriever for s in summaries}
    ids = list(names)
    picked = st.multiselect(t("pipe.saved_first"), ids, format_func=names.get,
                            help=t("pipe.saved_first_help"), **bind_multi(SAVED, ids, []))
    for run_id in picked:
        plan.first.append(("saved", {"id": run_id}))
        plan.labels.append(names[run_id])
        plan.costs.append({"stage": names[run_id], "what": t("pipe.cost_saved"),
                           "usd": 0.0, "jpy": 0.0})


def _chunks(ds: Dataset, size: int, overlap: int, aggregate: str):
    from ..retrieval.chunking import chunk_dataset

    cache = st.session_state.setdefault("rd_pipe_chunks", {})
    key = (ds.fingerprint(), size, overlap, aggregate == "first")
    if key not in cache:
        cache.clear()  # one chunk set at a time: they can be large
        cache[key] = chunk_dataset(ds, size, overlap, first_only=aggregate == "first")
    return cache[key]


def _dense_cost(ctx, ds: Dataset, settings, limit, stage: str) -> dict:
    t = ctx.t
    cache = st.session_state.setdefault("rd_estimates", {})
    key = ("pipe", ds.fingerprint(), settings.model, settings.provider, limit)
    try:
        if key not in cache:
            cache[key] = estimate_evaluation(ds, settings.model, settings.provider,
                                             limit_queries=limit)
        est = cache[key]
    except RagdashError:
        return {"stage": stage, "what": t("pipe.cost_unpriced"), "usd": None, "jpy": None}
    if settings.retriever == "local":
        return {"stage": stage, "what": t("pipe.cost_free"), "usd": 0.0, "jpy": 0.0,
                "tokens": est.tokens}
    return {"stage": stage, "what": t("pipe.cost_tokens", tokens=f"{est.tokens:,}",
                                      method=est.token_method),
            "usd": est.usd, "jpy": est.jpy, "estimate": {
                "estimated_usd": est.usd, "estimated_jpy": est.jpy, "tokens": est.tokens,
                "token_method": est.token_method, "provider": est.provider,
                "model": est.model}}


def _fusion(ctx, plan: Plan) -> None:
    t = ctx.t
    if len(plan.first) < 2:
        st.caption(t("pipe.fusion_one"))
        return
    cols = st.columns(2)
    method = choice(cols[0], P.FUSION["method"], t("pipe.fusion_method"), FUSION, t,
                    format_func=_FUSION_LABEL.get)
    fusion = {"method": method}
    if method == "rrf":
        fusion["rrf_k"] = float(number(cols[1], P.FUSION["rrf_k"], t("pipe.rrf_k"), RRF_K, t))
    elif method == "alpha":
        fusion["alpha"] = float(slider(cols[1], P.FUSION["alpha"], t("pipe.alpha"), ALPHA, t))
    plan.fusion = fusion
    plan.costs.append({"stage": _FUSION_LABEL[method], "what": t("pipe.cost_free"),
                       "usd": 0.0, "jpy": 0.0, "fusion": True})


def _rerank(ctx, ds: Dataset, plan: Plan, limit) -> None:
    t = ctx.t
    if not st.toggle(t("pipe.rerank_on"), **bind(RERANK, False)):
        return
    kind = choice(st, P.RERANK_KIND, t("pipe.rerank_kind"), RERANK_KIND, t, widget=st.radio,
                  horizontal=True, format_func=lambda k: t(_RERANK_KIND_KEYS[k]))
    if kind == "local":
        cols = st.columns([3, 1])
        model = cols[0].text_input(t("pipe.rerank_local_model"),
                                   **bind(RERANK_LOCAL_MODEL, "")).strip()
        depth = int(number(cols[1], P.RERANK_LOCAL["depth"], t("pipe.depth"), DEPTH, t))
        if not model:
            plan.blocker = plan.blocker or t("pipe.need_rerank_model")
            return
        plan.rerank = {"kind": "local", "model": model, "depth": depth}
        plan.costs.append({"stage": f"{model} top {depth}", "what": t("pipe.cost_free"),
                           "usd": 0.0, "jpy": 0.0, "rerank": True})
        return
    cols = st.columns([3, 2, 1])
    url = cols[0].text_input(t("pipe.rerank_url"), placeholder="https://api.cohere.com",
                             **bind(RERANK_URL, "")).strip()
    model = cols[1].text_input(t("pipe.rerank_model"), placeholder="rerank-v3.5",
                               **bind(RERANK_MODEL, "")).strip()
    protocol = choice(cols[2], P.RERANK_HTTP["protocol"], t("pipe.rerank_protocol"),
                      RERANK_PROTOCOL, t, options=[_AUTO, *P.RERANK_PROTOCOLS], default=_AUTO)
    cols = st.columns([3, 1])
    with cols[0]:
        key = secret_input(t("pipe.rerank_key"), RERANK_KEY).strip()
    depth = int(number(cols[1], P.RERANK_HTTP["depth"], t("pipe.depth"), DEPTH, t))
    plain_http_banner(t, url, key)  # the rerank key over http:// to another machine
    if not url or not model:
        plan.blocker = plan.blocker or t("pipe.need_rerank_model")
        return
    try:
        endpoint = resolve_rerank_endpoint(url, protocol=None if protocol == _AUTO else protocol)
    except RagdashError as exc:
        plan.blocker = plan.blocker or message(exc, ctx.lang, app=True)
        return
    plan.rerank = {"kind": "http", "base_url": url, "model": model,
                   "protocol": endpoint.protocol, "api_key": key, "depth": depth}
    plan.costs.append(_rerank_cost(ctx, ds, plan.rerank, limit))


def _rerank_cost(ctx, ds: Dataset, rr: dict, limit) -> dict:
    from ..retrieval.rerank.stage import estimate_upfront

    t = ctx.t
    cache = st.session_state.setdefault("rd_estimates", {})
    key = ("rerank", ds.fingerprint(), rr["model"], rr["protocol"], rr["depth"], limit)
    if key not in cache:  # token-billed APIs count the corpus's tokens: once
        queries = [q.id for q in ds.evaluated_queries(limit)]
        cache[key] = estimate_upfront(ds, queries, rr["depth"], model=rr["model"],
                                      protocol=rr["protocol"])
    est = cache[key]
    units = (f"{est['search_units']:,} search units" if "search_units" in est else
             f"{est['tokens']:,} tokens" if "tokens" in est else t("pipe.cost_free"))
    return {"stage": f"{rr['model']} top {rr['depth']}",
            "what": t("pipe.cost_units", pairs=f"{est['pairs']:,}",
                      requests=f"{est['requests']:,}", units=units),
            "usd": est.get("usd"), "jpy": est.get("jpy"), "estimate": est, "rerank": True}


def _cost_table(ctx, plan: Plan) -> None:
    t = ctx.t
    if not plan.costs:
        return
    with st.container(border=True, key="pipe_costs"):
        st.markdown(t("pipe.cost_title"))
        rows = [{t("pipe.cost_stage"): c["stage"], t("pipe.cost_what"): c["what"],
                 "USD": _money(c["usd"], "USD", t), "JPY": _money(c["jpy"], "JPY", t)}
                for c in plan.costs]
        unpriced = [c for c in plan.costs if c["usd"] is None]
        # a stage with no price makes the total unknown: "$0" beside it read as free
        rows.append({t("pipe.cost_stage"): t("pipe.cost_total"), t("pipe.cost_what"): "",
                     "USD": t("pipe.cost_total_unknown") if unpriced else
                     format_money(sum(c["usd"] for c in plan.costs), "USD"),
                     "JPY": t("pipe.cost_total_unknown") if unpriced else
                     format_money(sum(c["jpy"] for c in plan.costs), "JPY")})
        # a plain table (not a canvas grid): a handful of rows, read and copied as text
        st.table(pd.DataFrame(rows).set_index(t("pipe.cost_stage")))
        if plan.rerank:
            st.caption(t("pipe.cost_cached"))


def _money(value, currency: str, t) -> str:
    return t("pipe.cost_unpriced") if value is None else format_money(value, currency)


# -- start --------------------------------------------------------------------------------
def _start(ctx, ds: Dataset, settings, plan: Plan, *, kmax: int, limit, name, label) -> None:
    from ..retrieval import make_retriever

    api_key = settings.api_key
    rerank_key = (plan.rerank or {}).get("api_key") or ""
    secrets = tuple(s for s in (api_key, rerank_key) if s)
    chunking = plan.chunking
    first = list(plan.first)

    store = ctx.store

    def make_first():
        out = []
        for kind, options in first:
            if kind == "saved":
                out.append(store.load(options["id"]))
                continue
            opts = dict(options)
            if kind == "openai" and api_key:
                opts["api_key"] = api_key
            retriever = make_retriever(kind, **opts)
            if chunking:
                from ..retrieval.chunking import ChunkedRetriever

                retriever = ChunkedRetriever(retriever, **chunking)
            out.append(retriever)
        return out

    make_reranker = None
    if plan.rerank:
        rr = dict(plan.rerank)

        def make_reranker():
            from ..retrieval.rerank import RerankCache, Reranker, make_scorer

            if rr["kind"] == "local":
                scorer = make_scorer("local", model=rr["model"])
            else:
                scorer = make_scorer("http", base_url=rr["base_url"], model=rr["model"],
                                     protocol=rr["protocol"], api_key=rr["api_key"] or None)
            return Reranker(scorer, depth=rr["depth"], cache=RerankCache())

    estimates = [c.get("estimate") for c in plan.costs if not c.get("rerank")
                 and not c.get("fusion")][:len(first)]
    rerank_estimate = next((c.get("estimate") for c in plan.costs if c.get("rerank")), None)
    task = pipeline_task(ds, make_first, fusion=plan.fusion, make_reranker=make_reranker,
                         kmax=kmax, limit_queries=limit, store=ctx.store, secrets=secrets,
                         estimates=estimates, rerank_estimate=rerank_estimate, name=name)
    job = ctx.jobs.submit(ctx.owner, task, kind="evaluation", label=f"{label} · {ds.name}",
                          secrets=secrets)
    st.session_state.setdefault(JOBS, {})[job.id] = False
    job_panel.remember_dataset(job, ds)


def _hand_finished_to_compare(ctx) -> None:
    """A finished pipeline job: the Compare page shows its first stages and the pipeline."""
    pending = st.session_state.get(JOBS) or {}
    for job_id, handled in list(pending.items()):
        if handled:
            continue
        job = ctx.jobs.get(job_id, ctx.owner)
        if job is None or not job.finished:
            continue
        pending[job_id] = True
        run = job.result if job.state == "done" else None
        if run is None or not run.id:
            continue
        stage_ids = [s.get("run") for s in run.config.get("stages", [])
                     if s.get("stage") == "first" and s.get("run")]
        st.session_state[keys.COMPARE_IDS] = [*stage_ids, run.id]


# -- fusing saved runs, and the weight sweep ----------------------------------------------
FUSE_IDS = "rd_fuse_ids"
FUSE_METHOD = "rd_fuse_method"
FUSE_RRF_K = "rd_fuse_rrf_k"
FUSE_ALPHA = "rd_fuse_alpha"
SWEEP_METRIC = "rd_sweep_metric"
SWEEP_SEED = "rd_sweep_seed"
_SWEEP_METRICS = ["ndcg@10", "recall@10", "mrr@10", "recall@100", "ndcg@100", "hit_rate@5"]


def sweep_view(ctx: PageContext, ds: Dataset) -> None:
    """Fuse two or more saved runs of ``ds`` (computed here, or uploaded TREC runs from
    another engine) and save the fusion as a run; for two runs, the weight sweep: α from 0 to
    1 with the held-out half's band, and how α was chosen."""
    from ..metrics import metric_label
    from ..present.charts import PLOTLY_CONFIG, sweep_figure
    from .widgets import bind_multi

    t = ctx.t
    st.divider()
    st.subheader(t("pipe.sweep_title"))
    st.caption(t("pipe.sweep_intro"))
    _saved_flash(t)
    summaries = ctx.store.list(dataset_fingerprint=ds.fingerprint())
    if len(summaries) < 2:
        st.info(t("pipe.sweep_need_two"))
        return
    ids = [s.id for s in summaries]
    names = {s.id: f"{s.name or s.retriever} · {s.created_at[:16].replace('T', ' ')}"
             for s in summaries}
    picked = st.multiselect(t("pipe.fuse_runs"), ids, format_func=names.get,
                            **bind_multi(FUSE_IDS, ids, ids[:2][::-1]))
    cols = st.columns([2, 2, 2, 1])
    method = choice(cols[0], P.FUSION["method"], t("pipe.fusion_method"), FUSE_METHOD, t,
                    format_func=_FUSION_LABEL.get)
    metric = cols[2].selectbox(t("pipe.sweep_metric"), _SWEEP_METRICS,
                               format_func=metric_label,
                               **bind_choice(SWEEP_METRIC, _SWEEP_METRICS, "ndcg@10"))
    seed = int(cols[3].number_input(t("pipe.sweep_seed"), 0, 10_000, **bind(SWEEP_SEED, 0)))
    if len(picked) < 2:
        st.info(t("pipe.sweep_same"))
        return
    options: dict = {}
    if method == "rrf":
        options["rrf_k"] = float(number(cols[1], P.FUSION["rrf_k"], t("pipe.rrf_k"),
                                        FUSE_RRF_K, t))
    elif method == "alpha":
        if len(picked) != 2:
            st.warning(t("pipe.alpha_two"))
            return
        options["alpha"] = float(slider(cols[1], P.FUSION["alpha"], t("pipe.alpha_a"),
                                        FUSE_ALPHA, t))
    runs = [ctx.store.load(i) for i in picked]
    from ..retrieval.fusion import shallow_inputs

    for text in shallow_inputs([_named(r) for r in runs], max(r.kmax for r in runs)):
        st.warning(say(text, ctx.lang))
    if len(runs) == 2:
        try:
            sweep, band = _sweep(ctx, runs, method, options, metric, seed)
        except RagdashError as exc:
            st.error(say(exc, ctx.lang))
        else:
            st.plotly_chart(sweep_figure(sweep, band, lang=ctx.lang), key="pipe_sweep_chart",
                            config=PLOTLY_CONFIG)
            st.markdown(t("sweep.note", n_tune=f"{sweep.n_tune:,}",
                          n_test=f"{sweep.n_test:,}", metric=metric_label(metric),
                          tune=f"{sweep.tune_means[sweep.chosen]:.4f}",
                          test=f"{sweep.test_value:.4f} (α = {sweep.chosen_alpha:g})",
                          seed=seed))
    if st.button(t("pipe.fuse_save"), key="pipe_fuse_save", icon=":material/merge:"):
        from ..pipeline import fuse_runs
        from . import state

        try:
            fused = fuse_runs(runs, method, **options)
            run_id = ctx.store.save(fused)
        except RagdashError as exc:
            st.error(say(exc, ctx.lang))
        else:
            state.set_run(run_id)
            st.session_state[keys.COMPARE_IDS] = [*picked, run_id]
            st.session_state[_FLASH] = fused.name
            st.rerun()  # the run lists above now include it


_FLASH = "rd_fuse_saved"


def _saved_flash(t) -> None:
    name = st.session_state.pop(_FLASH, None)
    if name:
        st.success(t("pipe.fuse_saved", name=md(name)))
        st.page_link("pages/4_Compare.py", label=t("nav.compare"),
                     icon=":material/compare_arrows:")


def _sweep(ctx, runs, method: str, options: dict, metric: str, seed: int):
    """The sweep of two runs (memoized per choice) and its held-out band."""
    from ..retrieval.fusion import weight_sweep
    from ..stats import curve_bands

    memo = st.session_state.setdefault("rd_sweep_memo", {})
    key = (runs[0].id, runs[1].id, method, options.get("rrf_k"), metric, seed)
    if key not in memo:
        memo.clear()
        ra, rb = (_named(r) for r in runs)
        qids = list(dict.fromkeys([*runs[0].query_ids, *runs[1].query_ids]))
        sweep = weight_sweep(ra, rb, runs[0].dataset.qrels, metric=metric, method=method,
                             rrf_k=options.get("rrf_k", P.FUSION["rrf_k"].default),
                             query_ids=qids, seed=seed,
                             relevance_level=runs[0].relevance_level, gain=runs[0].gain)
        memo[key] = (sweep, curve_bands(sweep.values[~sweep.tune], n_resamples=1000,
                                        seed=seed))
    return memo[key]


def _named(run):
    """The run's ranking under the run's name (a copy sharing the arrays: the store's cached
    run is not changed)."""
    from ..pipeline import stage_label
    from ..ranking import Ranking

    r = run.ranking
    return Ranking(r.query_ids, r.offsets, r.doc_ids, r.scores, name=stage_label(run),
                   canonical=True)
