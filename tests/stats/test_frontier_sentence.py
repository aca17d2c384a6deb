"""The recommendation never shows a blank or compares what was not measured, and a pipeline
stage without a price makes the pipeline's cost unknown, not $0.

Before: "minilm: 99.6% of the best nDCG@10 (BM25 + minilm (RRF); …), — memory, 1/14 of the
latency." — the fused best had no memory figure and neither run had a latency probe; and the
fused run of BM25 and an unpriced model was drawn at $0 on the indexing-cost axis.
"""

from __future__ import annotations

import pytest
from test_frontier import CATALOG, N, dataset, ranked

from ragdash.pipeline import fuse_runs
from ragdash.stats.frontier import build_frontier, operating


def _fused_best_and_a_dense_run(*, probes: bool = False):
    ds = dataset()
    dense = ranked(ds, [1] * (N - 1) + [2], name="minilm", retriever="openai:minilm",
                   model="minilm", config={"retriever": "openai", "model": "minilm"},
                   seconds=1.0, resources={"index_bytes": 1000})
    best = ranked(ds, [1] * N, name="BM25 + minilm (RRF)", seconds=14.0)
    worse = ranked(ds, [4] * N, name="tiny", seconds=0.5, resources={"index_bytes": 10})
    if probes:
        dense.resources["latency_probe"] = {"p95_ms": 20.0}
        best.resources["latency_probe"] = {"p95_ms": 80.0}
    return [best, dense, worse]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_missing_figure_is_named_and_unmeasured_latency_is_not_compared(lang):
    f = build_frontier(_fused_best_and_a_dense_run(), metric="ndcg@10", x="memory",
                       n_resamples=200)
    assert f.recommended.name == "minilm" and f.best.name == "BM25 + minilm (RRF)"
    said = f.recommendation(lang)
    assert "—" not in said
    if lang == "en":
        assert "no memory figure for BM25 + minilm (RRF)" in said
        assert "latency" not in said
    else:
        assert "BM25 + minilm (RRF) のメモリの値はありません" in said
        assert "レイテンシ" not in said


def test_latency_is_compared_only_when_a_probe_measured_both():
    runs = _fused_best_and_a_dense_run()
    f = build_frontier(runs, metric="ndcg@10", x="latency", n_resamples=200)
    said = f.recommendation("en")
    assert "of the latency" not in said and "latency not measured for" in said
    f = build_frontier(_fused_best_and_a_dense_run(probes=True), metric="ndcg@10",
                       x="latency", n_resamples=200)
    assert "1/4 of the latency" in f.recommendation("en")


def test_a_pipeline_stage_without_a_price_makes_its_cost_unknown_not_zero():
    ds = dataset()
    bm25 = ranked(ds, [2] * N, name="BM25", retriever="bm25", config={"retriever": "bm25"})
    mystery = ranked(ds, [1] * N, name="mystery", retriever="openai:mystery-embed",
                     model="mystery-embed",
                     config={"retriever": "openai", "model": "mystery-embed"})
    priced = ranked(ds, [1] * N, name="small", retriever="openai:emb-small", model="emb-small",
                    config={"retriever": "openai", "model": "emb-small"})
    unknown = operating(fuse_runs([bm25, mystery]), catalog=CATALOG)
    assert unknown.index_cost_usd is None and unknown.query_cost_per_1000_usd is None
    assert any("mystery-embed" in str(n) for n in unknown.notes)
    fused = operating(fuse_runs([bm25, priced]), catalog=CATALOG)
    assert fused.index_cost_usd == pytest.approx(operating(priced, catalog=CATALOG)
                                                 .index_cost_usd)
    assert fused.index_cost_usd > 0
