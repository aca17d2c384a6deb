"""Pieces of the Results and Compare pages: metric pickers, the per-query table, one query's
drill-down and the downloads. Each reads a saved run and draws; nothing here recomputes
retrieval, and metric tables come memoized on the :class:`ragdash.run.Run`."""

from __future__ import annotations

import math
import unicodedata

import pandas as pd
import streamlit as st

from ..cost import estimate_evaluation
from ..errors import RagdashError
from ..i18n import DEFAULT_LANG, convention
from ..judgments.coverage import caveat
from ..metrics import DEFAULT_KS, FAMILIES, FAMILY_NAMES, MetricTable, metric_label
from ..present.charts import PLOTLY_CONFIG, histogram_figure
from ..present.tables import (
    display_frame,
    drilldown,
    per_query_every_k,
    per_query_frame,
    safe_csv,
)
from ..run import Run
from ..runs import export_json, export_trec
from . import keys, labels, setup_download
from .chunk_view import with_matched_chunks
from .memo import memo
from .page import PageContext, missing_link
from .tables import runs_table, shared_note
from .widgets import bind, bind_choice, bind_multi, code, md, say

DEFAULT_FAMILIES = ["recall", "ndcg", "mrr"]

#: the per-query table's filters; the kinds of id a TREC file cannot hold (message keys)
_FILTER_KEYS = {"all": "res.filter_all", "zero": "res.filter_zero",
                "missed": "res.filter_missed", "no_relevant": "res.filter_no_relevant"}
_ID_KIND_KEYS = {"query": "res.kind_query", "document": "res.kind_document"}


def family_help(lang: str) -> str:
    return "\n\n".join(f"**{f.label}** — {f.help(lang)}"
                       for f in FAMILIES.values())


def pick_families(ctx: PageContext, *, key_suffix: str = "") -> list[str]:
    fams = st.multiselect(ctx.t("res.metrics"), list(FAMILY_NAMES),
                          format_func=lambda f: FAMILIES[f].label, help=family_help(ctx.lang),
                          **bind_multi(keys.METRICS, list(FAMILY_NAMES), DEFAULT_FAMILIES))
    return fams or ["ndcg"]


def pick_k(ctx: PageContext, kmax: int) -> int:
    options = sorted({k for k in DEFAULT_KS if k <= kmax} | {kmax})
    default = 10 if 10 in options else options[-1]
    return int(st.selectbox(ctx.t("res.k"), options, help=ctx.t("res.k_help"),
                            **bind_choice(keys.K_VIEW, options, default)))


#: CSS: in the container ``key``, labels and values that do not fit wrap onto another line
#: instead of ending in "…" (a model id on a card, a Japanese toggle label); Streamlit 1.67
#: cuts them to one line
_WRAP = ("<style>.st-key-{key} .stMarkdownEllipsis,.st-key-{key} .stMarkdownEllipsis *"
         "{{white-space:normal;overflow-wrap:anywhere;text-overflow:clip}}</style>")


def wrapping(key: str):
    """A container (``st.container(key=key)``) whose texts wrap instead of being cut."""
    box = st.container(key=key)
    box.html(_WRAP.format(key=key))
    return box


def run_cards(ctx: PageContext, run: Run, n_queries: int) -> None:
    """The run at a glance: dataset, queries, retriever or model, time taken. A long model
    id or dataset name wraps onto a second line rather than ending in "…"."""
    t = ctx.t
    box = wrapping("res_cards")
    with box:
        # smaller than Streamlit's 2.25rem, so a 40-character model id takes two lines
        # rather than four; the names get the room
        box.html("<style>.st-key-res_cards [data-testid='stMetricValue']{font-size:1.5rem;"
                 "line-height:1.3}</style>")
        cols = st.columns([2, 1.2, 3, 1.3])
        cols[0].metric(t("res.dataset"), run.dataset.name)
        cols[1].metric(t("res.queries"), f"{n_queries:,}")
        cols[2].metric(t("res.retriever"), run.model or run.retriever)
        cols[3].metric(t("res.seconds"),
                       f"{run.seconds:.1f} s" if run.seconds is not None else "—")


def coverage_warning(ctx: PageContext, run: Run, table: MetricTable, families: list[str],
                     k: int, *, drop_no_relevant: bool = False) -> str | None:
    """When the run's top ``k`` is thinly judged, the sentence Compare's verdict and the
    command line say (:func:`ragdash.judgments.coverage.caveat`): "bm25's top 10 is 87%
    unjudged: bm25's nDCG@10 is a lower bound; …", on nDCG when it is picked (as the command
    line reads it), else on the first metric picked. Returns what was said, or ``None``."""
    read_on = [f for f in families if f != "judged"] or ["ndcg"]
    fam = "ndcg" if "ndcg" in read_on else read_on[0]
    said = caveat({run.name or run.id or "": table.mean(f"judged@{k}",
                                                         drop_no_relevant=drop_no_relevant)},
                  k=k, metric=metric_label(f"{fam}@{k}"), judged_only=table.judged_only)
    if said is None:
        return None
    text = say(said, ctx.lang)
    st.warning(text, icon=":material/rule:")
    return text


def per_query_table(ctx: PageContext, run: Run, families: list[str], k: int,
                    *, key: str) -> pd.DataFrame:
    """The per-query table (worst first; search and filter); selecting a row opens its
    drill-down. Returns the frame as computed (machine column names), for the CSV."""
    t = ctx.t
    metrics = [f"{f}@{k}" for f in families]
    frame = memo(("per_query", run.id, view_of(run), tuple(metrics)),
                 lambda: per_query_frame(labels.table_of(run), run.dataset, run.ranking,
                                         metrics))
    left, right = st.columns([3, 2])
    filters = ["all", "zero", "missed", "no_relevant"]
    needle = left.text_input(t("res.search"), placeholder=t("res.search_placeholder"),
                             **bind(f"rd_{key}_search", ""))
    show = right.selectbox(t("res.filter"), filters, format_func=lambda v: t(_FILTER_KEYS[v]),
                           **bind_choice(f"rd_{key}_filter", filters, "all"))
    shown = frame
    if needle:
        text = shown["query_id"].astype(str) + " " + shown.get("query", "").astype(str)
        shown = shown[text.str.contains(needle, case=False, regex=False)]
    if show == "zero":
        shown = shown[shown[metrics[0]] <= 0]
    elif show == "missed":
        shown = shown[shown["first_relevant_rank"].isna()]
    elif show == "no_relevant":
        shown = shown[shown["no_relevant"]]
    st.caption(t("res.rows", shown=f"{len(shown):,}", total=f"{len(frame):,}"))
    shown = _one_page(ctx, shown, key=key)
    # metrics next to the id, the text after them: the numbers are what people scan
    order = ["query_id", *dict.fromkeys(metrics), *[c for c in shown.columns
                                                    if c not in ("query_id", *metrics)]]
    shown = shown[order].reset_index(drop=True)
    # a click on any cell opens that row's query (the checkbox at the left selects it too)
    event = st.dataframe(display_frame(shown, ctx.lang), hide_index=True, key=key,
                         on_select="rerun", selection_mode=["single-row", "single-cell"],
                         column_config={c: st.column_config.NumberColumn(format="%.3f")
                                        for c in display_frame(shown[metrics],
                                                               ctx.lang).columns})
    selection = (event or {}).get("selection", {})
    rows = [*(selection.get("rows") or []),
            *(cell[0] for cell in selection.get("cells") or [] if cell)]
    ids = list(shown["query_id"])
    apply_selection(key, [ids[r] for r in rows if isinstance(r, int) and r < len(ids)])
    return frame


def view_of(run: Run) -> tuple | None:
    """The labels a run's numbers are on, for a :func:`memo` key: ``None`` (not cached) for
    judgment sets filled in, whose labels can change while the page is open."""
    return labels.view_key() if labels.filled_for(run) is None else None


#: rows of the per-query table sent to the browser at once; a longer table gets pages, and
#: its order is chosen here (the browser's own sort would only sort the page)
PAGE_ROWS = 500
_SORTS = {"worst": "appscale.sort_worst", "best": "appscale.sort_best",
          "query": "appscale.sort_query"}


def _one_page(ctx: PageContext, shown: pd.DataFrame, *, key: str) -> pd.DataFrame:
    """``shown`` as it is when it fits in :data:`PAGE_ROWS`; else one page of it, in the
    order chosen (worst first, best first, by query id)."""
    if len(shown) <= PAGE_ROWS:
        return shown
    t = ctx.t
    left, right = st.columns([3, 2])
    order = left.selectbox(t("appscale.sort"), list(_SORTS), format_func=lambda v: t(_SORTS[v]),
                           **bind_choice(f"rd_{key}_sort", list(_SORTS), "worst"))
    pages = -(-len(shown) // PAGE_ROWS)
    page_key = f"rd_{key}_page"
    if int(st.session_state.get(page_key) or 1) > pages:
        st.session_state[page_key] = pages
    page = right.number_input(t("appscale.page", pages=pages), min_value=1, max_value=pages,
                              step=1, help=t("appscale.page_help", n=PAGE_ROWS),
                              **bind(page_key, 1))
    if order == "best":
        shown = shown.iloc[::-1]
    elif order == "query":
        shown = shown.sort_values("query_id", kind="stable")
    lo = (int(page) - 1) * PAGE_ROWS
    return shown.iloc[lo:lo + PAGE_ROWS]


def drill_follows_run(run_id: str) -> None:
    """Another run picked on Results: its drill-down opens on that run's own worst query,
    not on the query the previous run's drill-down showed."""
    ss = st.session_state
    if ss.get(keys.DRILL_RUN) not in (None, run_id):
        ss.pop(keys.DRILL_QUERY, None)
    ss[keys.DRILL_RUN] = run_id


def apply_selection(key: str, query_ids: list[str]) -> None:
    """Open the drill-down on a query chosen in a table or chart — once per new choice, so
    a selection that stays on screen does not override a later pick in the selectbox."""
    marker = f"{key}:applied"
    chosen = tuple(query_ids)
    if chosen and st.session_state.get(marker) != chosen:
        st.session_state[keys.DRILL_QUERY] = chosen[0]
    st.session_state[marker] = chosen


#: histogram bin width (ragdash.present.charts centres the bins on 0, 0.05, ..., 1)
HIST_BIN = 0.05


def histogram(ctx: PageContext, run: Run, metric: str, *, key: str) -> None:
    fig = memo(("histogram", run.id, view_of(run), metric, ctx.lang),
               lambda: histogram_figure(labels.table_of(run).value(metric), metric=metric,
                                        lang=ctx.lang, bin_size=HIST_BIN))
    st.plotly_chart(fig, key=key, config=PLOTLY_CONFIG)


def drill_query_picker(ctx: PageContext, query_ids: list[str], dataset, *, key: str) -> str:
    """A selectbox of query ids (worst first), bound to the shared drill-down query: the
    first :data:`PAGE_ROWS` of them and the query open now (one chosen in a table page or
    a chart), so 10,000 queries are not 10,000 options sent on every rerun."""
    current = st.session_state.get(keys.DRILL_QUERY)
    if len(query_ids) > PAGE_ROWS:
        head = query_ids[:PAGE_ROWS]
        if current is not None and current not in head and current in set(query_ids):
            head = [current, *head]
        query_ids = head

    def label(qid: str) -> str:
        q = dataset.query(qid)
        text = " ".join((q.text if q else "").split())
        return f"{qid} — {text[:60]}" if text else qid

    return st.selectbox(ctx.t("res.drill_pick"), query_ids, format_func=label,
                        **bind_choice(keys.DRILL_QUERY, query_ids, query_ids[0]))


def drilldown_view(ctx: PageContext, run: Run, qid: str, k: int, *,
                   narrow: bool = False) -> None:
    """One query: its text, its relevant documents (grade, rank each got, misses marked),
    the top K with scores and relevance marks.

    ``narrow`` (a half-width column, as on Compare): the tables are static and wrap their
    cells — a grid that narrow cut titles, texts and "rank 66 (below the top 10)" short."""
    t = ctx.t
    table = run.table()
    filled = labels.filled_for(run)  # the grades of the labels the page shows
    d = drilldown(run.dataset, run.ranking, None if filled is None else filled.qrels, qid, k,
                  relevance_level=table.relevance_level, lang=ctx.lang)
    # the container key names it in the page (CSS class st-key-drill-<run>) for the browser
    # tests and for anyone styling the app
    st.container(key=f"drill-{run.id}").markdown(f"**{t('res.drill_query')}** {code(d.query_id)}")
    if d.query_text:  # body text, not a grey quote: it is what the reader compares with
        st.container(border=True).markdown(md(d.query_text))
    first = d.first_relevant_rank if d.first_relevant_rank is not None else "—"
    st.caption(t("res.drill_stats", n=d.n_relevant, found=d.found_in_top_k, k=d.k,
                 first=first))
    if d.n_relevant == 0:
        st.warning(t("res.drill_no_relevant"))
    elif len(d.misses):
        st.warning(t("res.drill_misses", n=len(d.misses), k=d.k))
    st.markdown(f"**{t('res.drill_relevant')}**")
    rel = d.relevant.drop(columns=["rank", "in_top_k"]).rename(columns={"rank_label":
                                                                         "rank_got"})
    # the short columns first: the text is wide and would push the rank out of sight
    rel = rel[_text_last(rel.columns, first=("rank_got", "grade"))]
    rel["grade"] = rel["grade"].map(_grade)
    rel_shown = _highlight(display_frame(_shorten(rel, narrow), ctx.lang),
                           ~d.relevant["in_top_k"], "#fde2e1")
    if narrow:
        st.table(rel_shown.hide(axis="index"))
    else:
        # the rank column as wide as its longest label: the grid sizes a column to its
        # typical cell and, past 5 rows, ignores cells twice the average, so among many
        # short ranks "rank 13 (below the top 10)" was cut to "rank 13 (below t…"
        header = t("col.rank_got")
        st.dataframe(rel_shown, hide_index=True, key=f"drill_rel:{run.id}", column_config={
            header: st.column_config.TextColumn(width=fit_width([header, *rel["rank_got"]]))})
    st.markdown(f"**{t('res.drill_top', k=d.k)}**")
    top = with_matched_chunks(run, qid, d.top.copy())  # a chunked run: the chunk that matched
    top["relevant"] = top["relevant"].map({True: "✓", False: ""})
    top = top[_text_last(top.columns, first=("rank", "relevant", "grade", "score"))]
    top["grade"] = top["grade"].map(_grade)  # blank for a document nobody judged
    if narrow:  # few, short columns, so the text gets the width: ✓ beside the rank
        top["score"] = [f"{v:.4f}" for v in top["score"]]
        top["rank"] = [f"{r} ✓" if hit else str(r) for r, hit in zip(top["rank"],
                                                                      d.top["relevant"])]
        top = top.drop(columns=["relevant"])
        if not any(top["grade"]):
            top = top.drop(columns=["grade"])
        st.table(_highlight(display_frame(_shorten(top, narrow), ctx.lang), d.top["relevant"],
                            "#dff3e4").hide(axis="index"))
    else:
        st.dataframe(_highlight(display_frame(top, ctx.lang), d.top["relevant"], "#dff3e4"),
                     hide_index=True, key=f"drill_top:{run.id}",
                     column_config={t("col.score"): st.column_config.NumberColumn(
                         format="%.4f")})


#: the data grid's text size and a cell's padding on both sides, in pixels (Streamlit 1.67)
GRID_FONT_PX, GRID_PADDING_PX = 14, 2 * 8


def fit_width(texts) -> int:
    """Pixels wide enough for the longest of ``texts`` in a data grid cell, on the safe side:
    a wide (CJK) character counts 1 em, any other 0.5 em (a label in the app's font, Source
    Sans, averages 0.42 em a character; tests/browser/test_japanese_views.py measures the
    drill-down's labels in Chromium)."""
    ems = max((sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.5
                   for ch in str(text)) for text in texts), default=0.0)
    return math.ceil(ems * GRID_FONT_PX) + GRID_PADDING_PX + 8


#: characters of a document text kept in a narrow drill-down (the table wraps them)
NARROW_TEXT = 80


def _shorten(frame: pd.DataFrame, narrow: bool) -> pd.DataFrame:
    """For a half-width column: the title joins the text (one wide column rather than two
    narrow ones) and the text is cut to :data:`NARROW_TEXT` characters. Every text cell is
    escaped: ``st.table`` renders its cells as Markdown, so a document title or an id could
    otherwise show a remote image or a link."""
    if not narrow:
        return frame
    out = frame.copy()
    if "snippet" in out:
        titles = out.pop("title") if "title" in out else [""] * len(out)
        texts = []
        for title, value in zip(titles, out["snippet"]):
            body = " ".join(str(value or "").split())
            body = body if len(body) <= NARROW_TEXT else body[:NARROW_TEXT - 1] + "…"
            title = " ".join(str(title or "").split())
            texts.append(f"{title} — {body}" if title else body)
        out["snippet"] = texts
    for col in out.columns:  # object or string dtype alike (pandas 3 infers "str")
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = [md(v) if isinstance(v, str) else v for v in out[col]]
    return out


def _grade(value) -> str:
    """A relevance grade as written in a qrels file: ``2``, ``0.5``; blank when unjudged."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return ""
    return "" if number != number else f"{number:g}"


def _text_last(columns, *, first: tuple[str, ...]) -> list[str]:
    """``first`` (those present), then the other columns, the long text columns last."""
    cols = list(columns)
    head = [c for c in first if c in cols]
    tail = [c for c in ("title", "snippet") if c in cols and c not in head]
    return head + [c for c in cols if c not in head and c not in tail] + tail


def _highlight(frame: pd.DataFrame, mask, color: str):
    mask = list(mask)
    return frame.style.apply(
        lambda row: [f"background-color: {color}" if mask[row.name] else "" for _ in row],
        axis=1)


#: what the per-query CSV holds: the K of the table, or every K (message keys)
_CSV_KS = {"table": "resultsview.csv_table_k", "every": "resultsview.csv_every_k"}


def downloads(ctx: PageContext, run: Run, per_query: pd.DataFrame, *, families: list[str],
              k: int) -> None:
    """Per-query CSV (the table's K, or every K), run JSON, TREC run, the setup file and the
    standalone HTML report. Every label wraps onto a second line where it does not fit."""
    t = ctx.t
    stem = _file_stem(run.name)
    report_button(ctx, [run], key="dl_report")
    kmax = labels.table_of(run).kmax
    which = st.radio(t("resultsview.csv_ks"), list(_CSV_KS), horizontal=True,
                     format_func=lambda v: t(_CSV_KS[v], k=k, kmax=kmax),
                     help=t("resultsview.csv_ks_help", kmax=kmax),
                     **bind_choice("rd_csv_ks", list(_CSV_KS), "table"))
    if which == "every":
        # the metrics picked and Judged@K (the curves' lines), every K; rows in the table's
        # order. Built on click only: 280 queries x 400 columns is a moment, 10,000 a second
        shown = [*families, "judged"]

        def csv() -> bytes:
            return safe_csv(per_query_every_k(labels.table_of(run), run.dataset, run.ranking,
                                              shown, sort_on=f"{families[0]}@{k}"))
        csv_name = f"{stem}-per-query-every-k.csv"
    else:
        def csv() -> bytes:
            return safe_csv(per_query)
        csv_name = f"{stem}-per-query.csv"
    # Callables: a file is built when its button is clicked, not on every redraw. A click
    # does not rerun the page (on_click="ignore"): every rerun gives each deferred file a new
    # id, so a second click within a second would ask for the old one and never get its file.
    cols = st.columns(4)
    cols[0].download_button(t("res.dl_csv"), csv, csv_name, "text/csv", key="dl_csv",
                            icon=":material/table:", on_click="ignore", wrap=True)
    cols[1].download_button(t("res.dl_json"), lambda: export_json(run), f"{stem}.json",
                            "application/json", key="dl_json", icon=":material/data_object:",
                            on_click="ignore", wrap=True)
    # an id with a space: score could not read it back (a pass over every row: kept)
    unsafe = memo(("trec_ids", run.id), run.ranking.trec_id_problem)
    cols[2].download_button(t("res.dl_trec"), lambda: export_trec(run), f"{stem}.trec.txt",
                            "text/plain", key="dl_trec", icon=":material/list:",
                            disabled=unsafe is not None, on_click="ignore", wrap=True,
                            help=None if unsafe is None else t("res.dl_trec_unsafe", id=md(
                                repr(unsafe[1])), kind=t(_ID_KIND_KEYS[unsafe[0]])))
    # the file that reruns it; in a container of its own, whose buttons wrap their label
    # (a button placed straight in a column is cut to one line)
    setup_download.download_button(ctx, run, cols[3].container(), stem=stem)
    labels.export_button(ctx, run, key="dl_labels")


def report_button(ctx: PageContext, runs: list[Run], *, key: str, frontier=None,
                  drop_no_relevant: bool = False) -> None:
    """The standalone HTML report (plotly inline, opens offline), built only when clicked.
    ``frontier``: the one the page shows (Choose a setup), so the report says the same."""
    t = ctx.t
    left, right = st.columns([1, 2])
    include = right.checkbox(t("res.report_texts"), value=True, key=f"{key}:texts",
                             help=t("res.report_texts_help"))
    lang = ctx.lang

    def build() -> bytes:
        from ..present.report import ReportCost, build_report

        try:  # providers side by side for this dataset's tokens (the model is irrelevant)
            cost = ReportCost.from_estimate(estimate_evaluation(runs[0].dataset, "bm25",
                                                                "local"),
                                            currency=convention(lang, "currency"))
        except RagdashError:
            cost = None
        options = {} if frontier is None else {
            "frontier": frontier, "metric": frontier.metric,
            "drop_no_relevant": drop_no_relevant}
        html = build_report(runs, lang=lang, include_text=include, cost=cost,
                            table_of=labels.table_of, **options)
        return html.encode("utf-8") if isinstance(html, str) else html

    stem = _file_stem(runs[0].name if len(runs) == 1 else "comparison")
    left.download_button(t("res.dl_report"), build, f"{stem}-report.html", "text/html",
                         key=key, type="primary", icon=":material/description:",
                         on_click="ignore", wrap=True)


def _file_stem(name: str) -> str:
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name).strip("-")
    return keep[:60] or "run"


def missing_link_runs(ctx: PageContext, summaries) -> bool:
    """For a ``?run=`` link whose run cannot be opened (the error is drawn by
    ``page_setup``): the saved runs, each with its own link, instead of any run's results;
    the address is left as it is. ``True`` when that is what the page shows."""
    if missing_link() is None:
        return False
    if not summaries:
        st.info(ctx.t("res.no_runs"))
        return True
    st.markdown(ctx.t("link.pick_run"))
    runs_table(summaries, ctx.t, key="res_link_runs")
    for s in summaries[:20]:
        when = s.created_at[:16].replace("T", " ")
        st.page_link("pages/3_Results.py", label=f"{md(s.name)} · {when}",
                     query_params={"run": s.id}, icon=":material/open_in_new:")
    return True


def pick_a_saved_run(ctx: PageContext, summaries) -> None:
    """A session with no run open: the saved runs it may open, each with its link, and
    what is shared with whom (nothing is opened for it)."""
    st.info(ctx.t("res.none_open"))
    shared_note(ctx)
    runs_table(summaries, ctx.t, key="res_pick_runs")
    for s in summaries[:20]:
        when = s.created_at[:16].replace("T", " ")
        st.page_link("pages/3_Results.py", label=f"{md(s.name)} · {when}",
                     query_params={"run": s.id, **lang_param(ctx)},
                     icon=":material/open_in_new:")


def with_current(ctx: PageContext, summaries: list) -> list:
    """The listed runs, with the one open in this session first when the list lacks it."""
    current = ctx.run_id
    if current is None or any(s.id == current for s in summaries):
        return summaries
    try:
        return [ctx.store.summary(current), *summaries]
    except RagdashError:
        return summaries


def lang_param(ctx: PageContext) -> dict[str, str]:
    """``{"lang": "ja"}`` in a link made on a Japanese page (none for the default)."""
    return {} if ctx.lang == DEFAULT_LANG else {"lang": ctx.lang}


def keep_lang_in_address(ctx: PageContext) -> None:
    """The address bar's ``?lang=`` follows the page's language (none for the default), so
    a link copied from it opens in the language it was read in."""
    wanted = lang_param(ctx).get("lang")
    if wanted:
        st.query_params["lang"] = wanted
    else:
        st.query_params.pop("lang", None)
    st.session_state[keys.LANG_PARAM] = wanted


def share_link(ctx: PageContext, run: Run) -> str:
    """``?run=<id>`` on this page's URL (with ``&lang=`` on a page in another language than
    the default): opens the run in a fresh session, in the language it was shared in."""
    base = st.context.url or ""
    query = "&".join(f"{k}={v}" for k, v in {"run": run.id, **lang_param(ctx)}.items())
    link = f"{base}?{query}" if base else f"?{query}"
    st.markdown(f"**{ctx.t('res.share')}**: [{link}]({link})")
    st.caption(ctx.t("res.share_help"))
    return link
