"""AppTest: the "Choose a setup" page — every run of the dataset on the frontier chart, the
recommendation in English and Japanese, the table, a dense run's dimension/precision sweep
from cached vectors (the fake server's log shows no request), and the report's section."""

from __future__ import annotations

import pytest
from app_support import chart, frame_with, new_app, texts
from fake_openai import FakeOpenAI
from streamlit.testing.v1 import AppTest

from ragdash.pipeline import run_evaluation
from ragdash.retrieval import make_retriever
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.runs import get_store
from ragdash.stats import build_frontier
from ragdash.ui import keys

PAGE = "pages/6_Frontier.py"


@pytest.fixture
def server():
    with FakeOpenAI(dim=32) as fake:
        yield fake


@pytest.fixture
def runs(sample, server):
    store = get_store()
    bm25 = run_evaluation(sample, make_retriever("bm25"), kmax=20)
    bm25.name = "bm25"
    dense = run_evaluation(sample, make_dense_retriever(
        "openai", model="text-embedding-3-small", base_url=server.url), kmax=20)
    dense.name = "fake dense"
    return [store.save(bm25), store.save(dense)]


def open_frontier(run_id: str, lang: str = "en") -> AppTest:
    at = new_app(run=run_id)
    at.run()
    at.session_state[keys.LANG] = lang
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_every_run_is_a_point_and_the_sentence_is_the_frontiers(runs):
    at = open_frontier(runs[0])
    spec = chart(at, "fr_chart")
    points = next(tr for tr in spec["data"] if tr["meta"]["kind"] == "points")
    assert sorted(c[0] for c in points["customdata"]) == sorted(runs)
    store = get_store()
    loaded = [store.load(r) for r in sorted(runs, key=lambda r: store.list().index(
        next(s for s in store.list() if s.id == r)))]
    expected = build_frontier(loaded, metric="ndcg@10", x="memory",
                              names=[r.name for r in loaded])
    shown = texts(at)
    assert expected.recommendation("en") in shown
    table = frame_with(at, "Run", "Score", "Pareto")
    assert set(table["Run"]) == {"bm25", "fake dense"}
    # memory: BM25's index as built and the dense run's vectors x dimensions x 4
    dense = store.load(runs[1])
    assert dense.resources["index_bytes"] == len(dense.dataset.documents) * 32 * 4
    assert "index_bytes" in store.load(runs[0]).resources


def test_the_sentence_in_japanese(runs):
    at = open_frontier(runs[0], lang="ja")
    store = get_store()
    loaded = [store.load(s.id) for s in store.list()]
    expected = build_frontier(loaded, metric="ndcg@10", x="memory",
                              names=[r.name for r in loaded])
    assert expected.recommendation("ja") in texts(at)
    assert "構成を選ぶ" in texts(at)


def test_sweep_from_cached_vectors_sends_no_request_and_saves_derived_runs(runs, server):
    at = open_frontier(runs[0])
    before = len(server.requests)
    at.selectbox(key="fr_sweep_run").set_value(runs[1]).run()
    at.multiselect(key="fr_sweep_dims").set_value([8, 16, "full"]).run()
    at.multiselect(key="fr_sweep_precisions").set_value(["float32", "binary"]).run()
    at.button(key="fr_sweep_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(server.requests) == before
    store = get_store()
    derived = [s for s in store.list() if s.parents]
    assert len(derived) == 6 and all(list(s.parents) == [runs[1]] for s in derived)
    assert "Saved 6 runs; the sweep sent 0 requests." in texts(at)
    # the new points are on the chart after the rerun
    at.run()
    points = next(tr for tr in chart(at, "fr_chart")["data"] if tr["meta"]["kind"] == "points")
    # the same sweep again saves nothing new (the store keeps a run once)
    at.button(key="fr_sweep_start").click().run()
    assert "Every point was saved before: nothing new to save" in texts(at)
    assert len([s for s in store.list() if s.parents]) == 6
    # the full-size float32 point ranks exactly as the run it was swept from: one point
    assert len(points["customdata"]) == 7
    assert "32 dims (full), float32 ranks every query exactly as" in texts(at) or (
        "ranks every query exactly as fake dense · 32 dims (full), float32" in texts(at))


def test_without_a_dataset_the_page_says_what_to_do():
    at = new_app()
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "Load a dataset on the Data page first." in texts(at)


def test_latency_probe_shows_its_cost_first_and_keeps_p95_with_the_run(runs, server):
    at = open_frontier(runs[0])
    shown = texts(at)
    assert "Sends 20 single-query requests to" in shown and "tokens" in shown
    before = len(server.requests)
    at.selectbox(key="fr_probe_run").set_value(runs[1]).run()
    assert len(server.requests) == before  # nothing is sent before the button
    at.button(key="fr_probe_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(server.requests) == before + 20
    probe = get_store().load(runs[1], cached=False).resources["latency_probe"]
    assert probe["requests"] == 20 and probe["p95_ms"] >= probe["p50_ms"] > 0
    assert f"p95 {probe['p95_ms']:,.1f} ms" in texts(at)


def test_rerank_probe_on_the_page_shows_units_first_and_keeps_p95(sample, runs):
    from fake_rerank import FakeRerank

    from ragdash.retrieval.rerank import RerankClient, Reranker

    store = get_store()
    with FakeRerank("cohere") as rr:
        first = store.load(runs[0])
        rerank_id = store.save(Reranker(RerankClient(rr.url, "rerank-v3.5"),
                                        depth=10).rerank_run(first))
        at = open_frontier(runs[0])
        shown = texts(at)
        assert "each one query with its 10 documents" in shown and "20 search units" in shown
        before = len(rr.requests)
        at.selectbox(key="fr_rprobe_run").set_value(rerank_id).run()
        assert len(rr.requests) == before
        at.button(key="fr_rprobe_start").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert len(rr.requests) == before + 20
    probe = store.load(rerank_id, cached=False).resources["rerank_latency_probe"]
    assert probe["requests"] == 20 and probe["documents_per_request"] == 10


def test_a_sweep_that_would_pay_says_so_and_waits_for_consent(runs, server):
    from ragdash.embeddings.cache import EmbeddingCache

    EmbeddingCache().clear()  # the vectors are gone: a sweep would embed again
    at = open_frontier(runs[0])
    at.selectbox(key="fr_sweep_run").set_value(runs[1]).run()
    assert "are not in the embeddings cache" in texts(at)
    assert at.button(key="fr_sweep_start").disabled
    before = len(server.requests)
    at.checkbox(key="fr_sweep_pay").check().run()
    at.button(key="fr_sweep_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(server.requests) > before  # paid, as the page said
    at.run()  # the vectors the sweep paid for are counted again: nothing left to pay
    assert "are not in the embeddings cache" not in texts(at)
    assert not at.button(key="fr_sweep_start").disabled


@pytest.fixture
def counted(monkeypatch):
    """Every call of DenseRetriever.uncached (the count the sweep form shows), in order."""
    from ragdash.retrieval.dense import DenseRetriever

    calls = []
    real = DenseRetriever.uncached

    def counting(self, groups):
        calls.append(real(self, groups))
        return calls[-1]

    monkeypatch.setattr(DenseRetriever, "uncached", counting)
    return calls


def test_the_uncached_count_is_computed_once_until_the_cache_changes(sample, runs, server,
                                                                     counted, home):
    import os
    import subprocess
    import sys

    from paths import ROOT

    from ragdash.ui.frontier import UNCACHED_MEMO

    at = open_frontier(runs[0])
    assert counted == [0]  # the dense run's vectors are all cached
    # reruns that do not change what is cached do not count again
    at.multiselect(key="fr_sweep_dims").set_value([8, "full"]).run()
    at.multiselect(key="fr_sweep_precisions").set_value(["int8"]).run()
    at.session_state[keys.API_KEY] = "sk-polish-secret"  # the key is not part of the memo
    at.run()
    at.session_state[keys.LANG] = "ja"
    at.run()
    at.session_state[keys.LANG] = "en"
    at.run()
    assert counted == [0]
    assert "sk-polish-secret" not in repr(at.session_state[UNCACHED_MEMO])
    # `cache clear` from the command line, in another process, while the page is open
    env = {**os.environ, "RAGDASH_HOME": str(home), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "ragdash", "cache", "clear"], env=env, check=True,
                   capture_output=True, timeout=120)
    at.run()
    texts_n = len(sample.documents) + len(get_store().load(runs[1]).query_ids)
    assert counted == [0, texts_n]
    assert "are not in the embeddings cache" in texts(at)
    at.run()
    assert len(counted) == 2
    # a run writes the vectors again (the Run page's work, here in the test's process)
    run_evaluation(sample, make_dense_retriever(
        "openai", model="text-embedding-3-small", base_url=server.url), kmax=20)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert counted == [0, texts_n, 0]
    assert "are not in the embeddings cache" not in texts(at)


def test_the_chosen_axis_survives_a_page_switch_and_a_language_switch(runs):
    from ragdash.ui.frontier import AXIS

    at = open_frontier(runs[0])
    at.radio(key="w:" + AXIS).set_value("index-cost").run()
    assert chart(at, "fr_chart")["layout"]["xaxis"]["title"]["text"] == "Indexing cost (USD)"
    at.switch_page("pages/3_Results.py").run()
    at.session_state[keys.LANG] = "ja"
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.radio(key="w:" + AXIS).value == "index-cost"
    assert chart(at, "fr_chart")["layout"]["xaxis"]["title"]["text"] == "索引作成の費用（USD）"



def test_the_count_follows_the_vector_file_too(sample, runs, counted):
    """A sweep reads the documents from their vector file when it is complete: the count is
    then the queries' alone, and it is counted again when that file goes (the SQLite cache
    untouched, so its marker is the same)."""
    from ragdash.embeddings.cache import EmbeddingCache, clear_vector_files

    EmbeddingCache().clear()  # the SQLite rows go; the vector file of the documents stays
    at = open_frontier(runs[0])
    queries = len(get_store().load(runs[1]).query_ids)
    assert counted == [queries]
    at.run()
    assert len(counted) == 1
    files, _ = clear_vector_files()
    assert files == 1
    at.run()
    assert counted == [queries, queries + len(sample.documents)]
