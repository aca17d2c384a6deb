"""A saved run of a team's own search shows its latency (p50 / p95 / p99), mapping and failures
where runs are read: on Results (AppTest, English and Japanese), in the HTML report, and on the
frontier's latency axis (its p95)."""

from __future__ import annotations

import pytest
from app_support import new_app, open_page, save_bm25_run

import ragdash
from ragdash.present.report import build_report
from ragdash.retrieval.own import retriever as own_module
from ragdash.runs import get_store
from ragdash.samples import load_sample
from ragdash.stats import build_frontier


@pytest.fixture(scope="module")
def mini():
    return load_sample("jsquad-mini")


def _own_run(mini):
    def search(query, k):  # a chunked search: each document twice, one id not in the corpus
        grams = {query[i:i + 2] for i in range(len(query) - 1)}
        scored = sorted(((sum(g in d.text for g in grams), d.id) for d in mini.documents),
                        reverse=True)[:20]
        return [*(d for _, d in scored[:3]), "stray-id", *(d for _, d in scored)]

    return ragdash.evaluate_search(mini, search, k=50, limit_queries=30, resume=False)


def test_results_and_the_report_say_the_own_search_latency_and_mapping(mini):
    run = _own_run(mini)
    run.name = "our retriever"
    probe = run.resources["latency_probe"]
    assert run.usage["not_found"] == 30 and run.usage["duplicates_folded"] == 90
    run_id = get_store().save(run)
    saved = get_store().load(run_id)
    assert saved.resources["latency_probe"]["p99_ms"] == probe["p99_ms"]

    at = open_page(new_app(run=run_id), "results")
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(c.value.replace("\\", "") for c in at.caption)
    assert "your own search: latency, mapping, failures" in shown
    assert f"p95 {probe['p95_ms']:,.1f} ms" in shown and "p99" in shown
    assert "'stray-id'" in shown and "further chunks" in shown
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    shown = "\n".join(c.value.replace("\\", "") for c in at.caption)
    assert "独自の検索" in shown and "クエリごとのレイテンシ" in shown

    html = build_report([saved], lang="en")
    assert "your own search: latency, mapping, failures" in html
    assert f"p50 {probe['p50_ms']:,.1f} ms" in html
    assert "90 results were further chunks" in html


def test_the_frontier_reads_the_own_search_p95_as_its_latency(mini):
    run = _own_run(mini)
    bm25 = get_store().load(save_bm25_run(mini, name="bm25", kmax=50))
    frontier = build_frontier([run, bm25], x="latency")
    own = next(p for p in frontier.points if p.run_id is None or p.name == run.name)
    assert own.operating.latency_ms == run.resources["latency_probe"]["p95_ms"]
    assert own.operating.latency_kind == "probe p95"
    assert own_module.own_notes(bm25.resources) == []
