"""The latency probe: 20 single-query requests to a real HTTP server on 127.0.0.1, spaced
over a few seconds, never through the cache; p50/p95 kept with the run in the store, and
then the run's latency on the frontier."""

from __future__ import annotations

import numpy as np
import pytest
from fake_openai import FakeOpenAI

from ragdash.cost import count_tokens, load_catalog, price_tokens
from ragdash.embeddings.probe import probe_cost, probe_latency, probe_texts
from ragdash.pipeline import run_evaluation
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.retrieval.sweep import dense_retriever_for
from ragdash.runs import RunStore
from ragdash.stats import build_frontier


@pytest.fixture
def dense_run(sample, tmp_path):
    with FakeOpenAI(dim=16) as server:
        run = run_evaluation(sample, make_dense_retriever(
            "openai", model="text-embedding-3-small", base_url=server.url,
            cache_dir=tmp_path), kmax=10, limit_queries=30)
        yield run, server


def test_twenty_spaced_single_query_requests_and_their_percentiles(dense_run):
    run, server = dense_run
    server.latency = 0.03
    before = len(server.requests)
    texts = probe_texts(run)
    assert len(texts) == 20
    client = dense_retriever_for(run).embedder
    result = probe_latency(client, texts, spacing=0.05)
    sent = server.requests[before:]
    assert len(sent) == 20 and all(len(r.body["input"]) == 1 for r in sent)
    assert [r.body["input"][0] for r in sent] == texts  # not from the cache
    starts = np.array([r.started for r in sent])
    assert starts[-1] - starts[0] >= 19 * 0.05 - 0.05  # spaced, not a burst (a 1 s burst
    # would be 20 requests back to back: about 20 x 30 ms = 0.6 s)
    assert 30 <= result["p50_ms"] <= result["p95_ms"] <= result["max_ms"]
    assert result["requests"] == 20 and result["date"].endswith("Z")
    assert result["prompt_tokens"] == sum(len(t) for t in texts)  # the fake's token count


def test_cost_is_shown_before_and_matches_the_catalog(dense_run):
    run, _ = dense_run
    texts = probe_texts(run)
    tokens, usd = probe_cost(texts, "text-embedding-3-small")
    assert tokens == count_tokens(texts).tokens
    row = load_catalog().find("text-embedding-3-small")
    assert usd == pytest.approx(price_tokens(tokens, row).usd)
    assert probe_cost(texts, "no-such-model-xyz")[1] is None


def test_kept_with_the_run_and_used_as_its_latency(dense_run, tmp_path):
    run, _ = dense_run
    store = RunStore(tmp_path / "store")
    run_id = store.save(run)
    result = probe_latency(dense_retriever_for(run).embedder, probe_texts(run), spacing=0.0)
    store.update_resources(run_id, {"latency_probe": result})
    loaded = store.load(run_id, cached=False)
    assert loaded.resources["latency_probe"] == result
    assert loaded.resources["index_bytes"] == run.resources["index_bytes"]  # merged, not lost
    frontier = build_frontier([loaded], x="latency")
    point = frontier.points[0]
    assert point.x == result["p95_ms"] and point.operating.latency_kind == "probe p95"


def test_rerank_probe_sends_one_query_with_its_depth_documents_per_request(sample, tmp_path):
    from fake_rerank import FakeRerank

    from ragdash.retrieval import make_retriever
    from ragdash.retrieval.rerank import RerankClient, Reranker
    from ragdash.retrieval.rerank.stage import probe_rerank_latency

    first = run_evaluation(sample, make_retriever("bm25"), kmax=30, limit_queries=10)
    with FakeRerank("cohere") as server:
        client = RerankClient(server.url, "rerank-v3.5")
        reranked = Reranker(client, depth=12).rerank_run(first)
        before = len(server.requests)
        result = probe_rerank_latency(reranked, n=20, spacing=0.0)
        sent = server.requests[before:]
    assert len(sent) == 20 and {len(r.body["documents"]) for r in sent} == {12}
    assert result["kind"] == "rerank" and result["requests"] == 20
    assert result["documents_per_request"] == 12 and result["search_units"] == 20
    assert 0 < result["p50_ms"] <= result["p95_ms"]
    # kept with the run, the frontier's latency adds it to an embedding probe's p95
    store = RunStore(tmp_path / "s")
    run_id = store.save(reranked)
    store.update_resources(run_id, {"rerank_latency_probe": result,
                                    "latency_probe": {"p95_ms": 100.0}})
    point = build_frontier([store.load(run_id)], x="latency").points[0]
    assert point.x == pytest.approx(100.0 + result["p95_ms"])
    with pytest.raises(Exception, match="no rerank stage"):
        probe_rerank_latency(first)
