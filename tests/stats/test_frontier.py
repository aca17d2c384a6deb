"""The decision view's statistics: operating figures, Pareto points, the best run, agreement
with Compare, and the recommendation sentence in English and Japanese."""

from __future__ import annotations

import numpy as np
import pytest

from ragdash.cost import Catalog, PriceRow, count_tokens
from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import StatsError
from ragdash.ranking import Ranking
from ragdash.run import Run
from ragdash.stats import compare_tables
from ragdash.stats.frontier import build_frontier, operating, pareto_mask

N = 40


def dataset(extra: str = "") -> Dataset:
    docs = [Document(f"d{i}", f"文書 {i} の本文です{extra}") for i in range(N + 5)]
    queries = [Query(f"q{i}", f"質問 {i} は何ですか") for i in range(N)]
    qrels = {f"q{i}": {f"d{i}": 1.0} for i in range(N)}
    return Dataset(docs, queries, qrels, name="frontier-ja")


def ranked(ds: Dataset, rank_of_relevant: list[int], **fields) -> Run:
    """A run whose query i finds its relevant document at rank_of_relevant[i] (0 = missing)."""
    run = {}
    for i, r in enumerate(rank_of_relevant):
        others = [f"d{(i + j + 1) % (N + 5)}" for j in range(10)]
        docs = [d for d in others if d != f"d{i}"][:9]
        if r:
            docs.insert(r - 1, f"d{i}")
        run[f"q{i}"] = {d: 10.0 - k for k, d in enumerate(docs)}
    return Run.of_ranking(ds, Ranking.from_dict(run), kmax=10, **fields)


CATALOG = Catalog([PriceRow("OpenAI", "emb-big", 0.13), PriceRow("OpenAI", "emb-small", 0.02)])


def test_pareto_by_hand():
    #          a    b    c     d     e (no x)
    x = [1.0, 2.0, 2.0, 3.0, None]
    y = [0.5, 0.7, 0.6, 0.7, 0.9]
    assert pareto_mask(x, y) == [True, True, False, False, False]


def test_operating_figures_follow_the_formulas():
    ds = dataset()
    run = ranked(ds, [1] * N, retriever="openai:emb-big", model="emb-big",
                 config={"retriever": "openai", "model": "emb-big"}, seconds=2.0,
                 resources={"index_bytes": 45 * 1536 * 4, "vectors": 45})
    op = operating(run, catalog=CATALOG, project_to=10_000_000)
    doc_tokens = count_tokens(ds.doc_texts()).tokens
    q_tokens = count_tokens([q.text for q in ds.queries]).tokens
    assert op.index_cost_usd == pytest.approx(doc_tokens * 0.13 / 1e6)
    assert op.query_cost_per_1000_usd == pytest.approx(round(q_tokens / N * 1000) * 0.13 / 1e6)
    assert op.index_bytes == 45 * 1536 * 4
    assert op.projected_bytes == 10_000_000 * 1536 * 4 and op.x("memory") == op.projected_bytes
    assert op.latency_ms == pytest.approx(2000.0 / N) and op.latency_kind == "measured"
    probed = ranked(ds, [1] * N, resources={"latency_probe": {"p50_ms": 80, "p95_ms": 140.5}})
    assert operating(probed).latency_ms == 140.5
    assert operating(probed).latency_kind == "probe p95"
    bm25 = ranked(ds, [1] * N, retriever="bm25", config={"retriever": "bm25"})
    assert operating(bm25).index_cost_usd == 0.0 and operating(bm25).price == "free"
    unknown = ranked(ds, [1] * N, retriever="openai:mystery", model="mystery-embed",
                     config={"retriever": "openai"})
    op = operating(unknown, catalog=CATALOG)
    assert op.index_cost_usd is None and "no price for mystery-embed" in op.notes[0]
    # what the run itself paid: its reported tokens x the price; a derived point paid nothing
    paid = ranked(ds, [1] * N, retriever="openai:emb-small", model="emb-small",
                  config={"retriever": "openai", "model": "emb-small"},
                  usage={"prompt_tokens": 123_456})
    assert operating(paid, catalog=CATALOG).paid_usd == pytest.approx(123_456 * 0.02 / 1e6)
    point = paid.derive(paid.ranking, transform={"kind": "sweep"}, retriever="x",
                        usage={"requests": 0, "prompt_tokens": 0})
    op = operating(point, catalog=CATALOG)
    assert op.paid_usd == 0.0 and op.index_cost_usd == pytest.approx(
        operating(paid, catalog=CATALOG).index_cost_usd)


def three_runs():
    ds = dataset()
    best = ranked(ds, [1] * N, name="big", resources={"index_bytes": 4000})
    # another ranking of the same quality: the tenth (irrelevant) document of each query gone
    same = Run.of_ranking(ds, ranked(ds, [1] * N).ranking.truncate(9), kmax=10, name="big-256",
                          resources={"index_bytes": 1000})
    worse = ranked(ds, [3] * N, name="tiny", resources={"index_bytes": 100})
    return [best, same, worse]


def test_the_recommendation_is_the_smallest_run_indistinguishable_from_the_best():
    runs = three_runs()
    f = build_frontier(runs, metric="ndcg@10", x="memory", n_resamples=500)
    by = {p.name: p for p in f.points}
    assert f.best.name == "big" and by["big"].best
    assert by["big-256"].indistinguishable_from_best and not by["tiny"].indistinguishable_from_best
    assert by["tiny"].p_vs_best < 0.05
    assert [by[n].pareto for n in ("big", "big-256", "tiny")] == [False, True, True]
    assert f.recommended.name == "big-256"
    assert by["tiny"].y == pytest.approx(1 / np.log2(4))  # relevant at rank 3
    assert by["tiny"].ci_low <= by["tiny"].y <= by["tiny"].ci_high
    en = f.recommendation("en")
    assert en.startswith("big-256: 100.0% of the best nDCG@10 (big; no detectable difference, "
                         "p = 1.00, 40 queries), 1/4 of the memory")
    ja = f.recommendation("ja")
    assert ja.startswith("big-256：最良（big）のnDCG@10の100.0%（検出できる差なし、p = 1.00、"
                         "40クエリ）、メモリは1/4")
    js = f.to_json()
    assert {p["run"] for p in js["points"]} == {"big", "big-256", "tiny"}
    assert js["sentence"] == en and js["sentence_ja"] == ja


def test_runs_that_rank_alike_are_one_point_the_cheapest_and_the_page_says_so():
    """Runs of one ranking are one point and one pair in the correction."""
    big, small, tiny = three_runs()
    twins = [Run.of_ranking(big.dataset, big.ranking, kmax=10, name=name,
                            resources={"index_bytes": size})
             for name, size in (("big again", 4000), ("big served", 2000))]
    f = build_frontier([big, *twins, small, tiny], metric="ndcg@10", x="memory",
                       n_resamples=200)
    assert [p.name for p in f.points] == ["big served", "big-256", "tiny"]
    assert len(f.comparison.pairs) == 3  # Holm over three pairs, not ten
    assert f.merged == {"big served": ("big", "big again")}
    assert f.merged_notes("en") == ["big, big again rank every query exactly as big served "
                                    "does: shown once, as big served."]
    assert f.merged_notes("ja") == ["big、big again はどのクエリでも big served と同じ順位を"
                                    "返しているため、big served として 1 つにまとめて表示して"
                                    "います。"]
    assert f.to_json()["merged"] == {"big served": ["big", "big again"]}
    # only the twins: one point, no comparison
    one = build_frontier([big, twins[0]], metric="ndcg@10", x="memory")
    assert [p.name for p in one.points] == ["big"] and one.comparison is None


def test_the_sentence_writes_the_number_of_queries_with_separators():
    """Counts keep their thousands separator in both languages."""
    import dataclasses

    f = dataclasses.replace(build_frontier(three_runs(), metric="ndcg@10", x="memory",
                                           n_resamples=200), n_queries=4420)
    assert "4,420 queries" in f.recommendation("en")
    assert "4,420クエリ" in f.recommendation("ja")
    undecided = dataclasses.replace(f, points=[dataclasses.replace(
        p, indistinguishable_from_best=True) for p in f.points])
    assert "With 4,420 queries" in undecided.recommendation("en")


def test_the_marks_agree_with_compare_on_the_same_runs():
    rng = np.random.default_rng(7)
    ds = dataset()
    runs = [ranked(ds, list(rng.choice([0, 1, 2, 3, 5], N, p=p)), name=f"r{i}",
                   resources={"index_bytes": 100 * (i + 1)})
            for i, p in enumerate([(0, .9, .1, 0, 0), (0, .8, .2, 0, 0), (.3, .3, .2, .1, .1),
                                   (0, .85, .15, 0, 0)])]
    f = build_frontier(runs, metric="mrr@10", x="memory", seed=3, n_resamples=300)
    cmp = compare_tables({r.name: r.table() for r in runs}, "mrr@10", seed=3,
                         n_resamples=300)
    best = f.best.name
    assert best == max(cmp.runs, key=lambda m: m.mean).name
    for p in f.points:
        if p.best:
            continue
        pair = next(q for q in cmp.pairs if {q.a, q.b} == {best, p.name})
        assert p.indistinguishable_from_best == (not pair.significant)
        assert p.p_vs_best == pytest.approx(pair.p_holm)


def test_too_few_queries_says_so_with_the_queries_needed():
    ds = dataset()
    a = ranked(ds, [1] * 3 + [2] * (N - 3), name="a", resources={"index_bytes": 10})
    b = ranked(ds, [1] * 2 + [2] * (N - 2), name="b", resources={"index_bytes": 5})
    f = build_frontier([a, b], metric="ndcg@10", x="memory", n_resamples=200)
    assert f.undecided
    en = f.recommendation("en")
    assert en.startswith(f"With {N} queries no run's nDCG@10 differs detectably from the best "
                         "(a)") and "would need about" in en
    assert "クエリが必要です" in f.recommendation("ja")


def test_bad_input_is_one_sentence():
    runs = three_runs()
    with pytest.raises(StatsError, match="unknown x axis 'speed'"):
        build_frontier(runs, x="speed")
    other = ranked(dataset("別"), [1] * N, name="other")
    with pytest.raises(StatsError, match="different datasets"):
        build_frontier([runs[0], other])
    with pytest.raises(StatsError, match="at least one run"):
        build_frontier([])
    one = build_frontier(runs[:1], x="memory")
    assert one.best.name == "big" and one.recommendation().startswith("Only one run")


def test_a_rerank_stage_adds_its_price_per_1000_queries_and_keeps_the_index():
    from ragdash.cost.rerank import find_rerank_price

    ds = dataset()
    first = ranked(ds, [2] * N, retriever="openai:emb-small", model="emb-small",
                   config={"retriever": "openai", "model": "emb-small"},
                   resources={"index_bytes": 45 * 256 * 4, "vectors": 45})
    cohere = find_rerank_price("rerank-v3.5")
    assert cohere is not None and cohere.unit == "search_units"
    reranked = first.derive(first.ranking, retriever="x → rerank", transform={
        "kind": "rerank", "model": "rerank-v3.5", "depth": 150, "reranker": "http"},
        resources=dict(first.resources))
    base = operating(first, catalog=CATALOG)
    op = operating(reranked, catalog=CATALOG)
    # depth 150: two search units per query (one per 100 documents)
    assert op.query_cost_per_1000_usd == pytest.approx(
        base.query_cost_per_1000_usd + cohere.usd(2000))
    assert op.index_bytes == base.index_bytes and op.index_cost_usd == base.index_cost_usd
    unpriced = first.derive(first.ranking, retriever="y", transform={
        "kind": "rerank", "model": "no-such-reranker", "depth": 50})
    op = operating(unpriced, catalog=CATALOG)
    assert op.query_cost_per_1000_usd is None and any("no rerank price" in n
                                                        for n in op.notes)


def test_a_chunked_run_is_priced_on_its_chunk_tokens_and_sized_by_its_chunks(sample, tmp_path):
    from fake_openai import FakeOpenAI

    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval.chunking import ChunkedRetriever
    from ragdash.retrieval.dense import make_dense_retriever

    catalog = Catalog([PriceRow("OpenAI", "text-embedding-3-small", 0.02)])
    with FakeOpenAI(dim=8) as server:
        dense = make_dense_retriever("openai", model="text-embedding-3-small",
                                     base_url=server.url, cache_dir=tmp_path)
        run = run_evaluation(sample, ChunkedRetriever(dense, size=64, overlap=16), kmax=10,
                             limit_queries=20)
    chunks = run.resources["chunks"]
    assert run.resources["vectors"] == chunks["chunks"] > len(sample.documents)
    assert run.resources["index_bytes"] == chunks["chunks"] * 8 * 4
    op = operating(run, catalog=catalog)
    assert op.index_cost_usd == pytest.approx(chunks["tokens"] * 0.02 / 1e6)
    assert chunks["tokens"] > count_tokens(sample.doc_texts()).tokens  # overlaps paid twice


def test_a_dataset_of_ids_only_is_not_priced_at_zero():
    ids_only = Dataset([Document(f"d{i}", "") for i in range(N + 5)],
                       [Query(f"q{i}", "") for i in range(N)],
                       {f"q{i}": {f"d{i}": 1.0} for i in range(N)}, name="ids")
    run = ranked(ids_only, [1] * N, retriever="openai:emb-big", model="emb-big",
                 config={"retriever": "openai", "model": "emb-big"})
    op = operating(run, catalog=CATALOG)
    assert op.index_cost_usd is None and op.query_cost_per_1000_usd is None
    assert any("ids only" in n for n in op.notes)
