"""Tables for people: summaries, per-query rows, one query's drill-down, CSV that is safe.

Pure functions from a :class:`ragdash.metrics.MetricTable`, a :class:`ragdash.Dataset` and a
:class:`ragdash.Ranking` to pandas DataFrames. Columns have stable machine names
(``query_id``, ``n_relevant``, ``ndcg@10``, ...) so code can sort and filter on them;
:func:`display_frame` renames them for a reader in English or Japanese.

Relevance in drill-downs follows the metrics: a document is relevant when its grade is > 0, or
≥ the relevance level when the table was computed with one.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..i18n import t
from ..metrics import DEFAULT_KS, family, is_relevant, metric_label, parse_metric

if TYPE_CHECKING:
    from ..dataset import Dataset
    from ..metrics import MetricTable
    from ..ranking import Ranking
    from ..runs import RunSummary

#: qrels: query id -> document id -> grade
Qrels = Mapping[str, Mapping[str, float]]

__all__ = ["Drilldown", "disagreement", "display_frame", "drilldown", "first_relevant_ranks",
           "per_query_every_k", "per_query_frame", "runs_frame", "safe_csv", "snippet",
           "summary_frame", "summary_grid"]

#: cell prefixes a spreadsheet would read as a formula (CSV / formula injection)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _families(families: Iterable[str] | None, table: MetricTable) -> list[str]:
    if families is None:
        return list(table.families)
    return [family(f).name for f in families]


# -- summaries ----------------------------------------------------------------------------------
def summary_frame(tables: Mapping[str, MetricTable], ks: Sequence[int] = DEFAULT_KS,
                  families: Iterable[str] | None = None, *,
                  drop_no_relevant: bool = False) -> pd.DataFrame:
    """Mean metrics of several runs: one row per run (index ``run``), one column per metric
    name (``recall@1``, ``recall@3``, ..., family by family).

    A K above every table's Kmax is skipped; a K above one table's Kmax but not another's is
    NaN for the shallower run.
    """
    if not tables:
        return pd.DataFrame(index=pd.Index([], name="run"))
    first = next(iter(tables.values()))
    fams = _families(families, first)
    deepest = max(tb.kmax for tb in tables.values())
    ks = [int(k) for k in ks if 1 <= int(k) <= deepest]
    cols = [f"{f}@{k}" for f in fams for k in ks]
    rows = []
    for table in tables.values():
        row = {}
        for f in fams:
            for k in ks:
                name = f"{f}@{k}"
                row[name] = (table.mean(name, drop_no_relevant=drop_no_relevant)
                             if k <= table.kmax and f in table.values else np.nan)
        rows.append(row)
    return pd.DataFrame(rows, columns=cols, index=pd.Index([str(n) for n in tables], name="run"))


def summary_grid(table: MetricTable, ks: Sequence[int] = DEFAULT_KS,
                 families: Iterable[str] | None = None, *,
                 drop_no_relevant: bool = False) -> pd.DataFrame:
    """One run's means as a grid: one row per family (index = family name), one column per K
    (integer column labels), K above the table's Kmax skipped."""
    fams = _families(families, table)
    ks = [int(k) for k in ks if 1 <= int(k) <= table.kmax]
    data = {k: [table.mean(f"{f}@{k}", drop_no_relevant=drop_no_relevant) for f in fams]
            for k in ks}
    return pd.DataFrame(data, index=pd.Index(fams, name="metric"))


# -- per query ----------------------------------------------------------------------------------
def first_relevant_ranks(ranking: Ranking, qrels: Qrels, query_ids: Sequence[str], *,
                         relevance_level: float | None = None) -> np.ndarray:
    """For each query, the 1-based rank of its first relevant document in the whole ranking;
    0 when none was retrieved (an int64 array)."""
    out = np.zeros(len(query_ids), dtype=np.int64)
    for i, qid in enumerate(query_ids):
        judged = qrels.get(qid) or {}
        if not judged:
            continue
        relevant = {d for d, g in judged.items() if is_relevant(float(g), relevance_level)}
        if not relevant:
            continue
        docs, _ = ranking.get(qid)
        for r, d in enumerate(docs, start=1):
            if d in relevant:
                out[i] = r
                break
    return out


def per_query_frame(table: MetricTable, dataset: Dataset, ranking: Ranking,
                    metrics: Sequence[str] = ("ndcg@10",), *, include_text: bool = True,
                    worst_first: bool = True, sort_on: str | None = None) -> pd.DataFrame:
    """One row per evaluated query: ``query_id``, ``query`` (its text, unless
    ``include_text=False``), ``n_relevant``, ``first_relevant_rank`` (nullable Int64; missing
    when no relevant document was retrieved at any depth), ``no_relevant`` (the query has
    none in the qrels), then one column per metric in ``metrics`` (K above the table's Kmax is
    cut to Kmax).

    Sorted worst first on ``sort_on`` (default: the first metric; ties: later first relevant
    rank first, then query id), so the queries to look at are on top.
    """
    metrics = [_clip_metric(m, table.kmax) for m in metrics]
    key = _clip_metric(sort_on, table.kmax) if sort_on is not None else \
        (metrics[0] if metrics else None)
    qids = list(table.query_ids)
    first = first_relevant_ranks(ranking, dataset.qrels, qids,
                                 relevance_level=table.relevance_level)
    frame = pd.DataFrame({"query_id": pd.Series(qids, dtype=object)})
    if include_text:
        frame["query"] = [(dataset.query(q).text if dataset.query(q) else "") for q in qids]
    frame["n_relevant"] = np.asarray(table.num_relevant, dtype=np.int64)
    frame["first_relevant_rank"] = pd.array([int(r) if r > 0 else pd.NA for r in first],
                                            dtype="Int64")
    frame["no_relevant"] = np.asarray(table.no_relevant, dtype=bool)
    # every metric column at once: hundreds of them (every K) inserted one by one would
    # fragment the frame
    names = list(dict.fromkeys(metrics))
    frame = pd.concat([frame, pd.DataFrame({m: table.value(m) for m in names},
                                           columns=names)], axis=1)
    if worst_first and key is not None:
        # Missing first-relevant ranks sort as "worst" (beyond any rank).
        depth = frame["first_relevant_rank"].fillna(np.iinfo(np.int64).max).astype("int64")
        order = np.lexsort((np.asarray(frame["query_id"], dtype=str), -depth.to_numpy(),
                            table.value(key)))
        frame = frame.iloc[order].reset_index(drop=True)
    return frame


def per_query_every_k(table: MetricTable, dataset: Dataset, ranking: Ranking,
                      families: Iterable[str], *, sort_on: str | None = None,
                      include_text: bool = True) -> pd.DataFrame:
    """:func:`per_query_frame` with every K from 1 to the table's Kmax of ``families``: one
    row per query, the metric columns family by family, K ascending (``recall@1`` …
    ``recall@100``, ``ndcg@1`` …), rows worst first on ``sort_on`` (the metric the page's
    table is read on).

    Wide, not long (``query_id, metric, k, value``): a spreadsheet sorts and filters rows of
    queries, and 10,000 queries × 4 metrics × 100 K would be 4 million long rows — more than
    a sheet holds (1,048,576) — where wide they are 10,000 rows of 400 metric columns.
    """
    names = table.names(range(1, table.kmax + 1), list(dict.fromkeys(families)))
    return per_query_frame(table, dataset, ranking, names, sort_on=sort_on,
                           include_text=include_text)


def _clip_metric(name: str, kmax: int) -> str:
    fam, k = parse_metric(name)
    return f"{fam}@{min(k or kmax, kmax)}"


# -- one query ------------------------------------------------------------------------------------
def snippet(text: str, limit: int = 200) -> str:
    """The first ``limit`` characters of ``text`` on one line, with "…" when cut."""
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


@dataclass
class Drilldown:
    """One query's evidence, for the Results and Compare pages and the report.

    ``relevant``: its relevant documents — ``doc_id, title, snippet, grade, rank`` (Int64, NA
    when not retrieved), ``rank_label`` (e.g. "3", "rank 37 (below the top 10)", "not
    retrieved"), ``in_top_k`` — best grade first, then by rank.
    ``top``: the top ``k`` — ``rank, doc_id, title, snippet, score, grade`` (NaN when the
    document is not judged), ``relevant`` (bool).
    ``misses``: the rows of ``relevant`` that are not in the top ``k``.
    """

    query_id: str
    query_text: str
    k: int
    n_relevant: int
    first_relevant_rank: int | None
    relevant: pd.DataFrame
    top: pd.DataFrame
    misses: pd.DataFrame
    judged_not_relevant: int  # judged documents with grade 0 (or below the level)

    @property
    def found_in_top_k(self) -> int:
        return int(self.relevant["in_top_k"].sum()) if len(self.relevant) else 0


def drilldown(dataset: Dataset, ranking: Ranking, qrels: Qrels | None, qid: str, k: int = 10, *,
              relevance_level: float | None = None, include_text: bool = True,
              snippet_chars: int = 200, lang: str = "en") -> Drilldown:
    """What happened to query ``qid``: where its relevant documents landed, what the top ``k``
    held, and which relevant documents were missed. ``qrels`` defaults to the dataset's.

    Raises :class:`KeyError` (with a readable message) when the query is neither in the
    dataset nor in the ranking.
    """
    qid = str(qid)
    qrels = dataset.qrels if qrels is None else qrels
    query = dataset.query(qid)
    if query is None and qid not in ranking and qid not in qrels:
        raise KeyError(t("views.unknown_query", lang, qid=qid))
    k = max(1, int(k))
    docs, scores = ranking.get(qid)
    rank_of = {d: r for r, d in enumerate(docs, start=1)}
    judged = {str(d): float(g) for d, g in (qrels.get(qid) or {}).items()}
    relevant_ids = [d for d, g in judged.items() if is_relevant(g, relevance_level)]

    def doc_fields(doc_id: str) -> tuple[str, str]:
        doc = dataset.document(doc_id)
        if doc is None or not include_text:
            return "", ""
        return doc.title, snippet(doc.text, snippet_chars)

    rel_rows = []
    for d in relevant_ids:
        title, snip = doc_fields(d)
        r = rank_of.get(d)
        if r is None:
            label = t("views.not_retrieved", lang)
        elif r > k:
            label = t("views.beyond_k", lang, rank=r, k=k)
        else:
            label = str(r)
        rel_rows.append({"doc_id": d, "title": title, "snippet": snip, "grade": judged[d],
                         "rank": r if r is not None else pd.NA, "rank_label": label,
                         "in_top_k": r is not None and r <= k})
    relevant = pd.DataFrame(rel_rows, columns=["doc_id", "title", "snippet", "grade", "rank",
                                               "rank_label", "in_top_k"])
    relevant["rank"] = relevant["rank"].astype("Int64")
    relevant["in_top_k"] = relevant["in_top_k"].astype(bool)
    if len(relevant):
        unranked = relevant["rank"].fillna(np.iinfo(np.int64).max).astype("int64")
        order = np.lexsort((relevant["doc_id"].to_numpy(dtype=str), unranked.to_numpy(),
                            -relevant["grade"].to_numpy(dtype=float)))
        relevant = relevant.iloc[order].reset_index(drop=True)

    top_rows = []
    for r, (d, s) in enumerate(zip(docs[:k], scores[:k]), start=1):
        title, snip = doc_fields(d)
        g = judged.get(d)
        top_rows.append({"rank": r, "doc_id": d, "title": title, "snippet": snip,
                         "score": float(s), "grade": np.nan if g is None else g,
                         "relevant": g is not None and is_relevant(g, relevance_level)})
    top = pd.DataFrame(top_rows, columns=["rank", "doc_id", "title", "snippet", "score",
                                          "grade", "relevant"])
    top["rank"] = top["rank"].astype("int64")
    top["score"] = top["score"].astype(float)
    top["grade"] = top["grade"].astype(float)
    top["relevant"] = top["relevant"].astype(bool)
    firsts = [rank_of[d] for d in relevant_ids if d in rank_of]
    return Drilldown(
        query_id=qid, query_text=(query.text if query is not None and include_text else ""),
        k=k, n_relevant=len(relevant_ids),
        first_relevant_rank=min(firsts) if firsts else None,
        relevant=relevant, top=top,
        misses=relevant[~relevant["in_top_k"]].reset_index(drop=True),
        judged_not_relevant=len(judged) - len(relevant_ids))


# -- two runs ------------------------------------------------------------------------------------
def disagreement(table_a: MetricTable, table_b: MetricTable, metric: str, *,
                 n: int | None = 20, dataset: Dataset | None = None,
                 include_text: bool = True, names: tuple[str, str] = ("A", "B")
                 ) -> pd.DataFrame:
    """The queries where two runs differ most on ``metric``: ``query_id``, (``query``), ``a``,
    ``b``, ``delta`` (b − a), ``abs_delta``, ``winner`` (the better run's name). Only queries
    both tables have, and only those with a difference; largest ``|b − a|`` first (ties by
    query id); the first ``n`` (all when ``n`` is None)."""
    pos_b = {q: i for i, q in enumerate(table_b.query_ids)}
    common = [q for q in table_a.query_ids if q in pos_b]
    pos_a = {q: i for i, q in enumerate(table_a.query_ids)}
    va = table_a.value(metric)[[pos_a[q] for q in common]] if common else np.empty(0)
    vb = table_b.value(metric)[[pos_b[q] for q in common]] if common else np.empty(0)
    delta = vb - va
    frame = pd.DataFrame({"query_id": pd.Series(common, dtype=object)})
    if dataset is not None and include_text:
        frame["query"] = [(dataset.query(q).text if dataset.query(q) else "") for q in common]
    frame["a"] = va
    frame["b"] = vb
    frame["delta"] = delta
    frame["abs_delta"] = np.abs(delta)
    frame["winner"] = np.where(delta > 0, names[1], names[0])
    frame = frame[frame["abs_delta"] > 1e-12]
    order = np.lexsort((frame["query_id"].to_numpy(dtype=str), -frame["abs_delta"].to_numpy()))
    frame = frame.iloc[order].reset_index(drop=True)
    return frame if n is None else frame.head(int(n))


# -- lists of runs ---------------------------------------------------------------------
def runs_frame(summaries: Sequence[RunSummary]) -> pd.DataFrame:
    """The run list (:class:`ragdash.runs.RunSummary` items) as a table: ``id, name,
    created_at, dataset, retriever, model, n_queries, kmax``, the headline means, ``seconds``,
    ``tokens``, ``cost_usd`` (actual when known, else estimated)."""
    rows = []
    for s in summaries:
        cost = s.cost or {}
        row = {"id": s.id, "name": s.name, "created_at": s.created_at,
               "dataset": s.dataset_name, "retriever": s.retriever, "model": s.model or "",
               "n_queries": s.n_queries, "kmax": s.kmax}
        row.update(s.headline)
        row["seconds"] = s.seconds
        row["tokens"] = (s.usage or {}).get("prompt_tokens")
        row["cost_usd"] = cost.get("actual_usd", cost.get("estimated_usd"))
        rows.append(row)
    return pd.DataFrame(rows)


# -- display and download --------------------------------------------------------------
#: the frames' columns that have a reader-facing name (message keys)
COLUMN_KEYS = {"query_id": "col.query_id", "query": "col.query", "n_relevant": "col.n_relevant",
               "first_relevant_rank": "col.first_relevant_rank", "rank": "col.rank",
               "doc_id": "col.doc_id", "title": "col.title", "snippet": "col.snippet",
               "score": "col.score", "grade": "col.grade", "relevant": "col.relevant",
               "rank_got": "col.rank_got", "run": "col.run", "metric": "col.metric", "k": "col.k",
               "value_a": "col.value_a", "value_b": "col.value_b", "delta": "col.delta",
               "abs_delta": "col.abs_delta", "winner": "col.winner",
               "no_relevant": "col.no_relevant", "chunk": "col.chunk"}


def display_frame(frame: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """A copy with reader-facing column names: ``query_id`` -> "Query id" / "クエリ ID",
    ``ndcg@10`` -> "nDCG@10"; unknown columns unchanged. The family index of
    :func:`summary_grid` becomes labels too ("hit_rate" -> "Hit rate")."""
    def rename(col):
        if isinstance(col, str):
            if col in COLUMN_KEYS:
                return t(COLUMN_KEYS[col], lang)
            if "@" in col:
                return metric_label(col)
        return col

    out = frame.copy()
    out.columns = [rename(c) for c in out.columns]
    if out.index.name == "metric":  # summary_grid: family names -> labels
        out.index = pd.Index([metric_label(str(v)) for v in out.index], name="metric")
    if out.index.name and isinstance(out.index.name, str):
        out.index.name = rename(out.index.name)
    return out


def _neutralize(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def safe_csv(frame: pd.DataFrame, *, index: bool = False) -> bytes:
    """CSV bytes a spreadsheet opens safely: UTF-8 with a BOM (so Excel reads Japanese) and
    every text cell (and header) starting with ``= + - @``, a tab or a carriage return
    prefixed with ``'`` so it is shown as text, never run as a formula. Numbers stay
    numbers (``-0.5`` is a number, not a formula)."""
    out = frame.copy()
    if index:
        out = out.reset_index()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(_neutralize)
    out.columns = [_neutralize(str(c)) for c in out.columns]
    buf = io.StringIO()
    out.to_csv(buf, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n",
               na_rep="")
    return b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8")
