"""Views: hand-worked summaries, per-query rows, drill-downs, disagreements, and safe CSV."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from ragdash.dataset import Dataset, Document, Query
from ragdash.metrics import evaluate, metric_label
from ragdash.present.tables import (
    disagreement,
    display_frame,
    drilldown,
    first_relevant_ranks,
    per_query_every_k,
    per_query_frame,
    runs_frame,
    safe_csv,
    snippet,
    summary_frame,
    summary_grid,
)
from ragdash.ranking import Ranking


@pytest.fixture
def ds() -> Dataset:
    docs = [
        Document("d1", "東京は日本の首都であり、人口が最も多い都市です。", "東京"),
        Document("d2", "大阪はたこ焼きとお好み焼きで知られています。", "大阪"),
        Document("d3", "富士山は日本で最も高い山で、標高は3776メートルです。", "富士山"),
        Document("d4", "京都には多くの寺院と神社があります。", "京都"),
        Document("d5", "北海道は冬に雪が多く、スキーが盛んです。", ""),
    ]
    queries = [Query("q1", "日本の首都はどこ？"), Query("q2", "日本一高い山は？"),
               Query("q3", "雪の多い地域は？"), Query("q4", "判定のないクエリ"),
               Query("q5", "検索されなかったクエリ")]
    qrels = {"q1": {"d1": 2.0, "d4": 0.0}, "q2": {"d3": 1.0}, "q3": {"d5": 1.0, "d2": 1.0},
             "q5": {"d2": 1.0}}
    return Dataset(docs, queries, qrels, name="mini-ja")


# A: q1 finds d1 at 1; q2 finds d3 at 2; q3 finds d2 at 1 and d5 at 3.
RUN_A = {"q1": {"d1": 0.9, "d4": 0.8, "d2": 0.1},
         "q2": {"d1": 0.7, "d3": 0.6, "d5": 0.2},
         "q3": {"d2": 0.5, "d4": 0.4, "d5": 0.3}}
# B: q1 finds d1 at 2; q2 finds d3 at 1; q3 as A.
RUN_B = {"q1": {"d2": 0.9, "d1": 0.8, "d4": 0.1},
         "q2": {"d3": 0.7, "d1": 0.6, "d5": 0.2},
         "q3": {"d2": 0.5, "d4": 0.4, "d5": 0.3}}
ALL = ["q1", "q2", "q3", "q4", "q5"]


def test_summary_frame_matches_table_means_and_skips_deep_ks(ds):
    a = evaluate(Ranking.from_dict(RUN_A), ds.qrels, kmax=3)
    b = evaluate(Ranking.from_dict(RUN_B), ds.qrels, kmax=1)
    frame = summary_frame({"A": a, "B": b}, ks=(1, 3, 5, 10), families=["mrr", "recall"])
    assert list(frame.columns) == ["mrr@1", "mrr@3", "recall@1", "recall@3"]
    assert list(frame.index) == ["A", "B"] and frame.index.name == "run"
    assert frame.loc["A", "mrr@3"] == pytest.approx((1 + 0.5 + 1) / 3)
    assert frame.loc["A", "recall@1"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert frame.loc["B", "mrr@1"] == pytest.approx((0 + 1 + 1) / 3)
    assert np.isnan(frame.loc["B", "mrr@3"])  # B was computed to K=1 only
    assert summary_frame({}).empty


def test_summary_grid_is_families_by_k(ds):
    a = evaluate(Ranking.from_dict(RUN_A), ds.qrels, kmax=3)
    grid = summary_grid(a, ks=(1, 3, 5))
    assert list(grid.columns) == [1, 3]
    # every family, Judged@K (the labels' coverage) included
    assert list(grid.index) == ["recall", "precision", "hit_rate", "mrr", "ndcg", "map",
                                "bpref", "judged"]
    assert grid.loc["precision", 3] == pytest.approx(a.mean("precision@3"))
    assert grid.loc["hit_rate", 1] == pytest.approx(2 / 3)


def test_per_query_frame_is_worst_first_with_hand_worked_values(ds):
    rk = Ranking.from_dict(RUN_A)
    table = evaluate(rk, ds.qrels, kmax=3, queries=ALL)
    frame = per_query_frame(table, ds, rk, ["mrr@3", "recall@1"])
    assert list(frame.columns) == ["query_id", "query", "n_relevant", "first_relevant_rank",
                                   "no_relevant", "mrr@3", "recall@1"]
    # q4 (no judgements) and q5 (never retrieved) score 0: worst, then q2 (0.5), q1, q3 (1.0).
    assert list(frame["query_id"]) == ["q4", "q5", "q2", "q1", "q3"]
    by = frame.set_index("query_id")
    assert by.loc["q2", "mrr@3"] == 0.5 and by.loc["q3", "recall@1"] == 0.5
    assert by.loc["q1", "n_relevant"] == 1  # d4 has grade 0: judged, not relevant
    assert by.loc["q3", "n_relevant"] == 2
    assert by.loc["q2", "first_relevant_rank"] == 2
    assert pd.isna(by.loc["q4", "first_relevant_rank"])
    assert pd.isna(by.loc["q5", "first_relevant_rank"])
    assert bool(by.loc["q4", "no_relevant"]) and not bool(by.loc["q5", "no_relevant"])
    assert by.loc["q1", "query"] == "日本の首都はどこ？"
    assert str(frame["first_relevant_rank"].dtype) == "Int64"


def test_per_query_frame_options(ds):
    rk = Ranking.from_dict(RUN_A)
    table = evaluate(rk, ds.qrels, kmax=3, queries=["q1", "q2", "q3"])
    frame = per_query_frame(table, ds, rk, ["ndcg@10"], include_text=False, worst_first=False)
    assert "query" not in frame.columns
    assert "ndcg@3" in frame.columns  # K cut to the table's Kmax
    assert list(frame["query_id"]) == ["q1", "q2", "q3"]


def test_per_query_every_k_holds_every_k_of_the_table_in_the_tables_order(ds):
    rk = Ranking.from_dict(RUN_A)
    table = evaluate(rk, ds.qrels, kmax=3, queries=ALL)
    frame = per_query_every_k(table, ds, rk, ["recall", "judged", "recall"], sort_on="mrr@3")
    metrics = ["recall@1", "recall@2", "recall@3", "judged@1", "judged@2", "judged@3"]
    assert list(frame.columns) == ["query_id", "query", "n_relevant", "first_relevant_rank",
                                   "no_relevant", *metrics]
    # rows in the order of the table sorted on MRR@3 (the metric it is not made of)
    assert list(frame["query_id"]) == list(per_query_frame(table, ds, rk, ["mrr@3"])["query_id"])
    by = frame.set_index("query_id")
    for name in metrics:
        expected = dict(zip(table.query_ids, table.value(name)))
        assert by[name].to_dict() == pytest.approx(expected), name
    # hand-worked: q3 finds d2 at 1 and d5 at 3 (two relevant); q1's top 3 is d1, d4 judged
    assert by.loc["q3", ["recall@1", "recall@2", "recall@3"]].tolist() == [0.5, 0.5, 1.0]
    assert by.loc["q1", "judged@3"] == pytest.approx(2 / 3)


def test_the_every_k_csv_reads_back_as_the_table(ds):
    rk = Ranking.from_dict(RUN_A)
    table = evaluate(rk, ds.qrels, kmax=3, queries=ALL)
    data = safe_csv(per_query_every_k(table, ds, rk, ["ndcg", "mrr"]))
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", dtype={"query_id": str})
    assert len(back) == len(table)
    for name in table.names(range(1, 4), ["ndcg", "mrr"]):
        got = dict(zip(back["query_id"], back[name]))
        assert got == pytest.approx(dict(zip(table.query_ids, table.value(name)))), name


def test_per_query_frame_sorts_on_the_metric_asked(ds):
    rk = Ranking.from_dict(RUN_A)
    table = evaluate(rk, ds.qrels, kmax=3, queries=["q1", "q2", "q3"])
    # A: Recall@1 is q1 1, q2 0, q3 0.5; MRR@3 is q1 1, q2 0.5, q3 1 (a tie: by id)
    default = per_query_frame(table, ds, rk, ["recall@1", "mrr@3"])
    assert list(default["query_id"]) == ["q2", "q3", "q1"]
    frame = per_query_frame(table, ds, rk, ["recall@1", "mrr@3"], sort_on="mrr@3")
    assert list(frame["query_id"]) == ["q2", "q1", "q3"]
    assert list(frame.columns[-2:]) == ["recall@1", "mrr@3"]


def test_first_relevant_rank_follows_the_relevance_level(ds):
    rk = Ranking.from_dict(RUN_A)
    assert first_relevant_ranks(rk, ds.qrels, ["q1", "q2", "q3"]).tolist() == [1, 2, 1]
    assert first_relevant_ranks(rk, ds.qrels, ["q1", "q2", "q3"],
                                relevance_level=2).tolist() == [1, 0, 0]


def test_drilldown_shows_where_relevant_documents_landed(ds):
    rk = Ranking.from_dict(RUN_A)
    d = drilldown(ds, rk, None, "q3", k=2)
    assert d.query_text == "雪の多い地域は？" and d.k == 2 and d.n_relevant == 2
    assert d.first_relevant_rank == 1 and d.found_in_top_k == 1
    assert list(d.relevant["doc_id"]) == ["d2", "d5"]
    assert list(d.relevant["rank"]) == [1, 3]
    assert list(d.relevant["rank_label"]) == ["1", "rank 3 (below the top 2)"]
    assert list(d.relevant["in_top_k"]) == [True, False]
    assert list(d.top["doc_id"]) == ["d2", "d4"] and list(d.top["rank"]) == [1, 2]
    assert list(d.top["score"]) == [0.5, 0.4]
    assert list(d.top["relevant"]) == [True, False]
    assert d.top["grade"].iloc[0] == 1.0 and np.isnan(d.top["grade"].iloc[1])
    assert list(d.misses["doc_id"]) == ["d5"]
    assert d.top["title"].iloc[0] == "大阪" and d.top["snippet"].iloc[0].startswith("大阪は")
    ja = drilldown(ds, rk, None, "q3", k=2, lang="ja")
    assert list(ja.relevant["rank_label"]) == ["1", "3 位（上位 2 件の外）"]


def test_drilldown_not_retrieved_and_judged_irrelevant(ds):
    rk = Ranking.from_dict(RUN_A)
    d = drilldown(ds, rk, None, "q5", k=10)
    assert list(d.relevant["rank_label"]) == ["not retrieved"]
    assert pd.isna(d.relevant["rank"].iloc[0]) and d.top.empty and d.first_relevant_rank is None
    assert len(d.misses) == 1
    q1 = drilldown(ds, rk, None, "q1", k=3)
    assert q1.judged_not_relevant == 1  # d4, grade 0
    assert list(q1.top["grade"]) == [2.0, 0.0, pytest.approx(np.nan, nan_ok=True)]
    assert list(q1.top["relevant"]) == [True, False, False]
    # Grades sort relevant documents: best first.
    qrels = {"q3": {"d5": 3.0, "d2": 1.0}}
    assert list(drilldown(ds, rk, qrels, "q3", k=3).relevant["doc_id"]) == ["d5", "d2"]
    # A relevance level of 2 makes grade-1 documents not relevant.
    assert drilldown(ds, rk, None, "q3", k=3, relevance_level=2).relevant.empty


def test_drilldown_without_text_and_unknown_query(ds):
    rk = Ranking.from_dict(RUN_A)
    d = drilldown(ds, rk, None, "q1", k=3, include_text=False)
    assert d.query_text == ""
    assert set(d.top["title"]) == {""} and set(d.top["snippet"]) == {""}
    with pytest.raises(KeyError, match="nope"):
        drilldown(ds, rk, None, "nope", k=3)


def test_snippet():
    assert snippet("a  b\n c") == "a b c"
    assert snippet("あ" * 300, 10) == "あ" * 9 + "…"
    assert snippet(None) == ""


def test_disagreement_lists_the_biggest_differences_first(ds):
    a = evaluate(Ranking.from_dict(RUN_A), ds.qrels, kmax=3)
    b = evaluate(Ranking.from_dict(RUN_B), ds.qrels, kmax=3)
    frame = disagreement(a, b, "mrr@3", dataset=ds, names=("A", "B"))
    assert list(frame["query_id"]) == ["q1", "q2"]  # q3 is a tie: left out
    assert list(frame["a"]) == [1.0, 0.5] and list(frame["b"]) == [0.5, 1.0]
    assert list(frame["delta"]) == [-0.5, 0.5] and list(frame["winner"]) == ["A", "B"]
    assert frame["query"].iloc[0] == "日本の首都はどこ？"
    assert len(disagreement(a, b, "mrr@3", n=1)) == 1
    assert "query" not in disagreement(a, b, "mrr@3", dataset=ds, include_text=False)
    # Only shared queries are compared.
    a_sub = a.select(["q1", "q3"])
    assert list(disagreement(a_sub, b, "mrr@3")["query_id"]) == ["q1"]


def test_display_frame_translates_known_columns(ds):
    rk = Ranking.from_dict(RUN_A)
    frame = per_query_frame(evaluate(rk, ds.qrels, kmax=3), ds, rk, ["ndcg@3", "hit_rate@1"])
    ja = display_frame(frame, "ja")
    assert list(ja.columns)[:2] == ["クエリ ID", "クエリ"]
    assert "nDCG@3" in ja.columns and "Hit rate@1" in ja.columns
    assert display_frame(frame, "en").columns[0] == "Query id"
    assert frame.columns[0] == "query_id"  # the input is untouched
    assert metric_label("map@5") == "MAP@5" and metric_label("custom") == "custom"
    grid = display_frame(summary_grid(evaluate(rk, ds.qrels, kmax=3)), "ja")
    assert list(grid.index)[:3] == ["Recall", "Precision", "Hit rate"]
    assert grid.index.name == "指標"


def test_runs_frame():
    from ragdash.runs import RunSummary

    s = RunSummary(id="abc", name="n", created_at="2025", source="evaluation",
                   dataset_name="d", dataset_fingerprint="f", retriever="bm25", model=None,
                   n_queries=3, kmax=10, headline={"ndcg@10": 0.5}, usage={"prompt_tokens": 7},
                   cost={"estimated_usd": 0.1}, seconds=2.0)
    frame = runs_frame([s])
    row = frame.iloc[0]
    assert row["id"] == "abc" and row["ndcg@10"] == 0.5 and row["tokens"] == 7
    assert row["cost_usd"] == 0.1


# -- CSV -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cell", ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tTAB", "\rCR",
                                  "=HYPERLINK(\"http://x\",\"y\")"])
def test_safe_csv_neutralizes_formula_cells(cell):
    data = safe_csv(pd.DataFrame({"text": [cell, "safe"], "value": [-0.5, 1.0]}))
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data[3:].decode("utf-8"), newline="")))
    assert rows[0] == ["text", "value"]
    assert rows[1] == ["'" + cell, "-0.5"]  # the number stays a number
    assert rows[2] == ["safe", "1.0"]


def test_safe_csv_keeps_japanese_commas_quotes_and_newlines():
    df = pd.DataFrame({"クエリ": ["日本の首都は、どこ？", 'He said "hi"', "two\nlines"],
                       "=header": [1, 2, 3]})
    data = safe_csv(df)
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    assert list(back.columns) == ["クエリ", "'=header"]
    assert list(back["クエリ"]) == list(df["クエリ"])
    assert "日本の首都".encode() in data  # UTF-8, not a legacy code page


def test_safe_csv_with_index_and_missing_values():
    df = pd.DataFrame({"a": pd.array([1, None], dtype="Int64")},
                      index=pd.Index(["=x", "y"], name="run"))
    rows = list(csv.reader(io.StringIO(safe_csv(df, index=True)[3:].decode())))
    assert rows == [["run", "a"], ["'=x", "1"], ["y", ""]]
