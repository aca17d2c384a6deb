"""Pieces of the "Choose a setup" page: the frontier chart (a clicked point opens its run),
the recommendation sentence, the table of points, and the sweep of a saved dense run."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import streamlit as st

from ..errors import RagdashError
from ..i18n import message
from ..metrics import DEFAULT_KS, FAMILIES, QUALITY_NAMES
from ..present.charts import NOUN_KEYS, PLOTLY_CONFIG, frontier_figure
from ..retrieval.compress import PRECISIONS
from ..run import Run
from ..stats import X_AXES, Frontier, build_frontier
from ..stats.frontier import format_x
from ..stats.verdict import format_p
from . import keys, labels, state
from .page import PAGE_PATHS, PageContext
from .pipeline_form import RERANK_KEY
from .widgets import bind, bind_choice, md, plain_http_banner

#: session keys of the page's controls (see widgets.bind)
FAMILY, K, AXIS, PROJECT = "rd_fr_family", "rd_fr_k", "rd_fr_axis", "rd_fr_project"
#: session key: the sweep form's memo of uncached counts (see uncached_count)
UNCACHED_MEMO = "rd_fr_uncached"
#: dimension choices of the sweep form (those above the model's size are skipped)
SWEEP_DIMS = (64, 128, 256, 512, 768, 1024, 1536, 2048, 3072)
_DENSE = ("openai", "local")


def is_dense(run: Run) -> bool:
    config = run.config
    return (str(config.get("retriever") or "").lower() in _DENSE and bool(config.get("model"))
            and not config.get("transform"))


def controls(ctx: PageContext, runs: list[Run]) -> tuple[str, str, int | None]:
    """The metric, the x axis and the projection the user picks: ``(metric, x, project_to)``."""
    t = ctx.t
    cols = st.columns([2, 1, 3, 2])
    families = list(QUALITY_NAMES)  # Judged@K measures the labels: shown beside, never chosen
    fam = cols[0].selectbox(t("fr.metric"), families,
                            format_func=lambda f: FAMILIES[f].label,
                            **bind_choice(FAMILY, families, "ndcg"))
    kmax = min(r.kmax for r in runs)
    ks = [k for k in DEFAULT_KS if k <= kmax] or [kmax]
    k = cols[1].selectbox("K", ks, **bind_choice(K, ks, 10 if 10 in ks else ks[-1]))
    axes = list(X_AXES)
    # bound to session state (not a bare widget key): the choice survives a page switch and
    # a language switch, whose new labels would otherwise make a new widget
    x = cols[2].radio(t("fr.x"), axes, format_func=lambda a: t(NOUN_KEYS[a]),
                      horizontal=True, **bind_choice(AXIS, axes, "memory"))
    project = cols[3].number_input(t("fr.project"), min_value=0, step=1_000_000,
                                   disabled=x != "memory", **bind(PROJECT, 0))
    return f"{fam}@{k}", x, (int(project) if x == "memory" and project else None)


def frontier_for(runs: list[Run], names: list[str], metric: str, x: str,
                 project_to: int | None, drop: bool) -> Frontier:
    """The frontier, memoized per session (a language switch or a click redraws it)."""
    cache = st.session_state.setdefault("rd_frontier_cache", {})
    key = (tuple(r.id for r in runs), tuple(names), metric, x, project_to, drop,
           labels.view_key())
    if key not in cache:
        if len(cache) > 8:
            cache.clear()
        cache[key] = build_frontier(runs, metric=metric, x=x, names=names,
                                    project_to=project_to, drop_no_relevant=drop,
                                    tables=[labels.table_of(r) for r in runs])
    return cache[key]


def chart(ctx: PageContext, frontier: Frontier) -> None:
    """The chart; a clicked point opens that run on Results (``?run=<id>``)."""
    fig = frontier_figure(frontier, lang=ctx.lang)
    event = st.plotly_chart(fig, key="fr_chart", on_select="rerun", selection_mode="points",
                            config=PLOTLY_CONFIG)
    missing = [p.name for p in frontier.points if p.x is None]
    if missing:
        st.caption(md(ctx.t("fr.no_x", n=len(missing), names=", ".join(missing[:5]))))
    points = (event or {}).get("selection", {}).get("points") or []
    for point in points:
        data = point.get("customdata") or []
        run_id = data[0] if isinstance(data, list) and data else None
        if run_id:
            state.set_run(run_id)
            st.switch_page(PAGE_PATHS["results"], query_params={"run": run_id})


def sentence(ctx: PageContext, frontier: Frontier) -> None:
    st.subheader(ctx.t("fr.recommendation"))
    text = frontier.recommendation(ctx.lang)
    (st.info if frontier.undecided or frontier.recommended is None else st.success)(md(text))
    for note in frontier.merged_notes(ctx.lang):
        st.caption(md(note))


def points_table(ctx: PageContext, frontier: Frontier) -> None:
    t = ctx.t
    from ..cost import format_money

    rows = [{t("fr.col.run"): p.name, t(NOUN_KEYS[frontier.x_axis]): format_x(frontier.x_axis, p.x),
             t("fr.col.y"): round(p.y, 4),
             t("fr.col.ci"): f"{p.ci_low:.4f} – {p.ci_high:.4f}",
             t("fr.col.pareto"): "✓" if p.pareto else "",
             t("fr.col.vs_best"): t("fr.vs.best") if p.best else
             t("fr.vs.same") if p.indistinguishable_from_best else t("fr.vs.worse"),
             t("fr.col.p"): "" if p.p_vs_best is None else
             format_p(p.p_vs_best).removeprefix("p = "),
             f"Judged@{frontier.coverage_k}": round(frontier.coverage.get(p.name, float("nan")),
                                                    4),
             t("fr.col.index_cost"): format_money(p.operating.index_cost_usd, "USD"),
             t("fr.col.paid"): format_money(p.operating.paid_usd, "USD"),
             t("fr.col.latency_kind"): p.operating.latency_kind or "—"}
            for p in frontier.points]
    st.subheader(t("fr.table"))
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="fr_table",
                 column_config={t("fr.col.run"): st.column_config.TextColumn(width="large")})
    notes = sorted({n for p in frontier.points for n in p.operating.notes})
    if notes:
        st.caption(md(" · ".join(message(n, ctx.lang, app=True) for n in notes)))


def sweep_form(ctx: PageContext, runs: list[Run]) -> None:
    """Sweep a saved dense run's dimensions and precisions from cached vectors; each setting
    is saved as a run derived from it."""
    t = ctx.t
    st.subheader(t("fr.sweep_title"))
    st.caption(t("fr.sweep_intro"))
    dense = [r for r in runs if is_dense(r)]
    if not dense:
        st.info(t("fr.sweep_none"))
        return
    cols = st.columns([3, 3, 3, 1])
    parent = _pick_run(cols[0], t("fr.sweep_run"), dense, "fr_sweep_run")
    full = int(parent.resources.get("dimensions") or parent.config.get("dimensions") or 0)
    halves = {full // 2, full // 4, full // 8} if full else set()
    sizes = sorted({d for d in (*SWEEP_DIMS, *halves) if d >= 1 and (not full or d < full)})
    dim_options = [*sizes, "full"]
    dims = cols[1].multiselect(t("fr.sweep_dims"), dim_options,
                               default=[d for d in (128, 256, "full") if d in dim_options],
                               format_func=lambda d: t("fr.sweep_full") if d == "full"
                               else str(d), key="fr_sweep_dims")
    precisions = cols[2].multiselect(t("fr.sweep_precision"), list(PRECISIONS),
                                     default=["float32", "int8"], key="fr_sweep_precisions")
    missing = _uncached(parent)
    confirmed = True
    if missing:
        st.warning(t("fr.sweep_uncached", n=f"{missing:,}"))
        confirmed = st.checkbox(t("fr.sweep_pay"), key="fr_sweep_pay")
    cols[3].write("")
    if not cols[3].button(t("fr.sweep_start"), key="fr_sweep_start", type="primary",
                          disabled=not confirmed):
        return
    if not dims or not precisions:
        st.warning(t("fr.sweep_need"))
        return
    _run_sweep(ctx, parent, [None if d == "full" else int(d) for d in dims], precisions)


def _uncached(parent: Run) -> int:
    """Texts of ``parent`` that are not in the embeddings cache (0: the sweep is free),
    memoized in the session (see :func:`uncached_count`)."""
    return uncached_count(parent, st.session_state.setdefault(UNCACHED_MEMO, {}))


def uncached_count(parent: Run, memo: dict) -> int:
    """How many texts a sweep of ``parent`` would embed
    (:meth:`~ragdash.retrieval.dense.DenseRetriever.uncached_vectors`: the run's queries and,
    unless their vector file is complete, the documents, that the cache lacks), memoized in
    ``memo``.

    Counting hashes every text and looks each up (about a second at 100k documents), so it
    is not redone on every rerun of the page: the memo is keyed by what decides the count —
    the dataset's fingerprint (the documents' and queries' texts), the run's query ids, and
    the retriever's :meth:`~ragdash.retrieval.dense.DenseRetriever.uncached_state` (the cache
    file, model, base URL, dimensions, prefixes — never the API key —, the cache's change
    marker and the vector file). A run that writes vectors, a sweep that pays, or ``python -m
    ragdash cache clear`` from another process changes the state, and the next rerun counts
    again."""
    from ..retrieval.sweep import dense_retriever_for

    try:
        retriever = dense_retriever_for(parent)
    except RagdashError:
        return 0
    fingerprint = parent.dataset_fingerprint
    queries = hashlib.sha256(json.dumps(list(parent.query_ids)).encode()).hexdigest()
    key = (fingerprint, queries,
           retriever.uncached_state(parent.dataset, fingerprint=fingerprint))
    if key not in memo:
        wanted = set(parent.query_ids)  # the texts the sweep embeds (ragdash.retrieval.sweep)
        texts = [q.text for q in parent.dataset.queries if q.id in wanted]
        count = retriever.uncached_vectors(parent.dataset, texts, fingerprint=fingerprint)
        if len(memo) >= 8:
            memo.clear()
        memo[key] = count
    return memo[key]


def _run_sweep(ctx: PageContext, parent: Run, dims: list, precisions: list[str]) -> None:
    from ..retrieval.sweep import catalog_truncatable, dense_retriever_for, sweep

    t = ctx.t
    key = st.session_state.get(keys.API_KEY) or None
    with st.spinner(t("fr.sweep_working", n=len(dims) * len(precisions))):
        try:
            retriever = dense_retriever_for(parent, api_key=key)
            truncatable = catalog_truncatable(parent.model or "",
                                              parent.config.get("provider"))
            result = sweep(parent.dataset, retriever, dims=dims, precisions=precisions,
                           kmax=parent.kmax, query_ids=parent.query_ids,
                           truncatable=truncatable, relevance_level=parent.relevance_level,
                           gain=parent.gain)
        except RagdashError as exc:
            st.error(md(message(exc, ctx.lang, app=True)))
            if "key" in str(exc).lower():
                st.caption(t("fr.sweep_key"))
            return
    # the parent is the saved run: points derive from it (same vectors, same queries)
    result.parent.id, result.parent.name = parent.id, parent.name
    points = result.runs()
    for point in points:
        ctx.store.save(point)
    for warning in result.warnings:
        st.warning(md(message(warning, ctx.lang, app=True)))
    # a point swept before is not saved again (the store keeps a run once)
    st.success(t("fr.sweep_done", n=sum(not p.reused for p in points),
                 requests=retriever.usage["requests"]))
    st.session_state.pop("rd_frontier_cache", None)


def probe_form(ctx: PageContext, runs: list[Run]) -> None:
    """A latency probe of a dense run's embeddings endpoint, its token cost shown before the
    button; p50/p95 are kept with the run (and then used as its latency on the chart)."""
    from ..cost import format_money
    from ..embeddings.probe import PROBE_REQUESTS, PROBE_SPACING, probe_cost, probe_texts

    t = ctx.t
    dense = [r for r in runs if is_dense(r)]
    if not dense:
        return
    st.subheader(t("fr.probe_title"))
    run = _pick_run(st, t("fr.sweep_run"), dense, "fr_probe_run")
    if str(run.config.get("retriever")).lower() == "local":
        st.caption(t("fr.probe_local"))
        return
    kept = run.resources.get("latency_probe")
    if kept:
        st.caption(_probe_done(t, kept))
    try:
        texts = probe_texts(run)
    except RagdashError as exc:
        st.caption(md(message(exc, ctx.lang, app=True)))
        return
    tokens, usd = probe_cost(texts, run.model or "", run.config.get("provider"))
    cost = "—" if usd is None else f"{format_money(usd, 'USD')}"
    st.caption(md(t("fr.probe_intro", n=PROBE_REQUESTS, url=run.config.get("base_url") or "",
                    seconds=round(PROBE_REQUESTS * PROBE_SPACING), tokens=f"{tokens:,}",
                    cost=cost)))
    plain_http_banner(t, run.config.get("base_url") or "", st.session_state.get(keys.API_KEY))
    if not st.button(t("fr.probe_start", n=PROBE_REQUESTS), key="fr_probe_start"):
        return
    _run_probe(ctx, run, texts)


def rerank_probe_form(ctx: PageContext, runs: list[Run]) -> None:
    """The same probe of a rerank stage's endpoint: one query with its depth documents per
    request, the billed units shown before the button."""
    from ..cost import format_money
    from ..embeddings.probe import PROBE_REQUESTS, PROBE_SPACING
    from ..retrieval.rerank.stage import probe_rerank_estimate, probe_rerank_latency

    t = ctx.t
    reranked = [r for r in runs if (r.config.get("transform") or {}).get("kind") == "rerank"
                and (r.config.get("transform") or {}).get("reranker") != "local"]
    if not reranked:
        return
    st.subheader(t("fr.rprobe_title"))
    run = _pick_run(st, t("fr.rprobe_run"), reranked, "fr_rprobe_run")
    transform = run.config["transform"]
    kept = run.resources.get("rerank_latency_probe")
    if kept:
        st.caption(_probe_done(t, kept))
    estimate = probe_rerank_estimate(run)
    cost = "—" if estimate["usd"] is None else format_money(estimate["usd"], "USD")
    st.caption(md(t("fr.rprobe_intro", n=PROBE_REQUESTS, depth=transform.get("depth"),
                    url=transform.get("base_url") or "",
                    seconds=round(PROBE_REQUESTS * PROBE_SPACING),
                    units=f"{estimate['units']:,} {estimate['unit']}", cost=cost)))
    plain_http_banner(t, transform.get("base_url") or "", st.session_state.get(RERANK_KEY))
    if not st.button(t("fr.probe_start", n=PROBE_REQUESTS), key="fr_rprobe_start"):
        return
    key = st.session_state.get(RERANK_KEY)  # the pipeline form's field: session only
    _keep_probe(ctx, run, "rerank_latency_probe", t("fr.rprobe_title"),
                lambda: probe_rerank_latency(run, api_key=key or None))


def _run_probe(ctx: PageContext, run: Run, texts: list[str]) -> None:
    from ..embeddings.probe import probe_latency
    from ..retrieval.sweep import dense_retriever_for

    key = st.session_state.get(keys.API_KEY) or None
    _keep_probe(ctx, run, "latency_probe", ctx.t("fr.probe_title"),
                lambda: probe_latency(dense_retriever_for(run, api_key=key).embedder, texts))


def _pick_run(where, label: str, runs: list[Run], widget: str) -> Run:
    """One of ``runs``, picked by name in a selectbox drawn in ``where`` (st or a column)."""
    labels = {r.id: r.name or r.retriever for r in runs}
    run_id = where.selectbox(label, list(labels), format_func=labels.get, key=widget)
    return next(r for r in runs if r.id == run_id)


def _probe_done(t, probe: dict) -> str:
    return t("fr.probe_done", p50=f"{probe['p50_ms']:,.1f}", p95=f"{probe['p95_ms']:,.1f}",
             n=probe["requests"], date=probe["date"])


def _keep_probe(ctx: PageContext, run: Run, field: str, title: str, measure) -> None:
    """Run ``measure`` (a latency probe) under a spinner; keep its result in the run's
    resources under ``field`` and say it, or say the error in the page's words. Another
    user's run is read-only: nothing is measured (nor paid for) for it."""
    if not ctx.store.can_change(run.id):
        st.error(ctx.t("run.read_only", name=md(run.name)))
        return
    with st.spinner(title):
        try:
            result = measure()
        except RagdashError as exc:
            st.error(md(message(exc, ctx.lang, app=True)))
            return
    ctx.store.update_resources(run.id, {field: result})
    st.session_state.pop("rd_frontier_cache", None)
    st.success(_probe_done(ctx.t, result))
