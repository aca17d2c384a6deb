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
    assert starts[-1] - starts[0] >= 19 * 0.05 - 0.01  # spaced, not a burst
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
