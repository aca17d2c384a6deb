"""DenseRetriever through the cache, against the real fake server."""

import json
import logging
import sqlite3
import threading
import time

import numpy as np
import pytest
from fake_openai import FakeOpenAI, fake_server_fixture  # noqa: F401
from fake_server import fast_backoff  # noqa: F401

from ragdash import Dataset, Document, Query
from ragdash.embeddings.cache import EmbeddingCache, text_hash
from ragdash.errors import (
    AuthenticationError,
    Cancelled,
    EmbeddingError,
    QuotaExceededError,
    RetrievalError,
)
from ragdash.retrieval import dense as retriever_module
from ragdash.retrieval.dense import make_dense_retriever

KEY = "sk-live-DISTINCTIVE-key-0xC0FFEE-42"


def dataset(n_docs=30, n_queries=12, seed=0):
    rng = np.random.default_rng(seed)
    words = ["梅雨", "東京", "river", "model", "検索", "embedding", "雨", "city", "評価", "K"]
    docs = [Document(f"d{i:03d}", " ".join(rng.choice(words, 6)), title=f"T{i % 4}" if i % 3
                     else "") for i in range(n_docs)]
    queries = [Query(f"q{i}", " ".join(rng.choice(words, 3)) + f" #{i}") for i in range(n_queries)]
    qrels = {q.id: {docs[i % n_docs].id: 1.0} for i, q in enumerate(queries)}
    return Dataset(docs, queries, qrels, name="toy")


def retriever(server, home, **kw):
    kw.setdefault("api_key", KEY)
    kw.setdefault("concurrency", 2)
    kw.setdefault("batch_size", 8)
    return make_dense_retriever("openai", model=kw.pop("model", "emb-1"), base_url=server.url,
                                cache_dir=home, **kw)


def oracle(server, ds, queries, k, qp="", dp=""):
    """An independent ranking: numpy cosine in float64 of the server's raw vectors."""
    D = np.stack([FakeOpenAI.vector(dp + d.embed_text, server.dim) for d in ds.documents])
    Q = np.stack([FakeOpenAI.vector(qp + q.text, server.dim) for q in queries])
    D = D.astype(np.float64) / np.linalg.norm(D, axis=1, keepdims=True)
    Q = Q.astype(np.float64) / np.linalg.norm(Q, axis=1, keepdims=True)
    S = Q @ D.T
    out = {}
    for qi, q in enumerate(queries):
        order = sorted(range(len(ds.documents)),
                       key=lambda j: (-S[qi, j], tuple(-ord(c) for c in ds.documents[j].id)))
        out[q.id] = [(ds.documents[j].id, S[qi, j]) for j in order[:k]]
    return out


def assert_same_ranking(ranking, expected):
    assert ranking.query_ids == list(expected)
    for qid, pairs in expected.items():
        docs, scores = ranking.get(qid)
        assert docs == [d for d, _ in pairs]
        np.testing.assert_allclose(scores, [s for _, s in pairs], atol=1e-5)


def test_ranking_equals_numpy_cosine_of_the_servers_vectors(fake_server, tmp_path):
    fake_server.dim = 16
    ds = dataset()
    r = retriever(fake_server, tmp_path)
    ranking = r.rank(ds, ds.queries, 10)
    assert_same_ranking(ranking, oracle(fake_server, ds, ds.queries, 10))
    assert ranking.name == r.name == "openai:emb-1"
    assert r.usage == {"requests": 6, "prompt_tokens": fake_server.served_tokens,
                       "embedded_texts": 42, "cached_texts": 0, "retries": 0,
                       "truncated_texts": 0}


def test_second_identical_run_makes_no_calls(fake_server, tmp_path):
    ds = dataset()
    first = retriever(fake_server, tmp_path).rank(ds, ds.queries, 5)
    calls = len(fake_server.requests)
    again = retriever(fake_server, tmp_path)
    second = again.rank(ds, ds.queries, 5)
    assert len(fake_server.requests) == calls
    assert again.usage["requests"] == 0 and again.usage["prompt_tokens"] == 0
    assert again.usage["cached_texts"] == 42 and again.usage["embedded_texts"] == 0
    assert second.to_dict() == first.to_dict()


def test_documents_and_queries_share_full_batches(fake_server, tmp_path):
    ds = dataset(n_docs=5, n_queries=3)
    retriever(fake_server, tmp_path, batch_size=4, concurrency=1).rank(ds, ds.queries, 3)
    assert [len(r.inputs) for r in fake_server.requests] == [4, 4]  # ceil(8 / 4), not 2 + 1


def test_identical_texts_are_embedded_once(fake_server, tmp_path):
    docs = [Document("a", "same"), Document("b", "same"), Document("c", "other")]
    ds = Dataset(docs, [Query("q", "same")], {"q": {"a": 1}})
    ranking = retriever(fake_server, tmp_path).rank(ds, ds.queries, 3)
    assert sorted(fake_server.served) == ["other", "same"]
    docs_, scores = ranking.get("q")
    assert docs_[:2] == ["b", "a"] and scores[0] == pytest.approx(1.0)  # tie: doc id desc


def test_prefixes_are_sent_and_keyed(fake_server, tmp_path):
    docs = [Document("a", "梅雨"), Document("b", "東京")]
    ds = Dataset(docs, [Query("q", "梅雨")], {"q": {"a": 1}})
    r = retriever(fake_server, tmp_path, query_prefix="query: ", document_prefix="passage: ")
    ranking = r.rank(ds, ds.queries, 2)
    assert sorted(fake_server.served) == ["passage: 东京".replace("东", "東"), "passage: 梅雨",
                                          "query: 梅雨"]
    assert_same_ranking(ranking, oracle(fake_server, ds, ds.queries, 2, "query: ", "passage: "))
    prefixes = {m["prefix"]: m["rows"] for m in EmbeddingCache(tmp_path).info()["models"]}
    assert prefixes == {"passage: ": 2, "query: ": 1}
    assert r.config()["query_prefix"] == "query: "


def test_kmax_above_corpus_size_returns_every_document(fake_server, tmp_path):
    ds = dataset(n_docs=4, n_queries=2)
    ranking = retriever(fake_server, tmp_path).rank(ds, ds.queries, 100)
    assert all(len(ranking.get(q.id)[0]) == 4 for q in ds.queries)


def test_subset_of_queries(fake_server, tmp_path):
    ds = dataset()
    ranking = retriever(fake_server, tmp_path).rank(ds, ds.queries[:3], 5)
    assert ranking.query_ids == ["q0", "q1", "q2"]
    assert len(fake_server.served) == 30 + 3


def test_progress_goes_documents_queries_ranking(fake_server, tmp_path):
    ds = dataset(n_docs=20, n_queries=10)
    events = []
    retriever(fake_server, tmp_path, batch_size=5, concurrency=1).rank(
        ds, ds.queries, 5, progress=events.append)
    stages = [e["stage"] for e in events]
    assert stages == sorted(stages, key=["documents", "queries", "ranking"].index)
    assert {"documents", "queries", "ranking"} == set(stages)
    assert all(set(e) == {"stage", "done", "total", "calls", "tokens"} for e in events)
    last_doc = [e for e in events if e["stage"] == "documents"][-1]
    assert last_doc["done"] == last_doc["total"] == 20
    last_q = [e for e in events if e["stage"] == "queries"][-1]
    assert last_q["done"] == last_q["total"] == 10 and last_q["calls"] == 6
    assert events[-1] == {"stage": "ranking", "done": 10, "total": 10, "calls": 6,
                          "tokens": fake_server.served_tokens}
    events.clear()  # all cached: each stage still reports once, complete
    retriever(fake_server, tmp_path).rank(ds, ds.queries, 5, progress=events.append)
    assert [(e["stage"], e["done"], e["total"], e["calls"]) for e in events] == [
        ("documents", 20, 20, 0), ("queries", 10, 10, 0), ("ranking", 0, 10, 0),
        ("ranking", 10, 10, 0)]


def test_progress_ends_at_n_of_n_with_empty_texts(fake_server, tmp_path):
    """An empty text gets a zero vector without a request: it still counts as done (so the app
    does not stop at "1,398 of 1,399")."""
    ds = dataset(n_docs=20, n_queries=10)
    ds.documents[3] = Document("d003", "", title="")
    events = []
    retriever(fake_server, tmp_path, batch_size=5, concurrency=1).rank(
        ds, ds.queries, 5, progress=events.append)
    last = {e["stage"]: (e["done"], e["total"]) for e in events}
    assert last == {"documents": (20, 20), "queries": (10, 10), "ranking": (10, 10)}


def test_cancel_then_resume_pays_only_for_what_is_missing(fake_server, tmp_path):
    ds = dataset(n_docs=40, n_queries=20)
    fake_server.latency = 0.05
    cancel = threading.Event()

    def progress(event):
        if event["stage"] == "documents" and event["done"] >= 15:
            cancel.set()

    with pytest.raises(Cancelled):
        retriever(fake_server, tmp_path, batch_size=5).rank(ds, ds.queries, 5,
                                                           progress=progress, cancel=cancel)
    cached = EmbeddingCache(tmp_path).info()["rows"]
    paid_first = list(fake_server.served)
    assert 15 <= cached < 60 and len(paid_first) == cached  # in-flight batches were cached
    fake_server.served.clear()
    r = retriever(fake_server, tmp_path, batch_size=5)
    ranking = r.rank(ds, ds.queries, 5)
    assert len(fake_server.served) == 60 - cached
    assert not set(fake_server.served) & set(paid_first)
    assert r.usage["cached_texts"] == cached
    assert_same_ranking(ranking, oracle(fake_server, ds, ds.queries, 5))


def test_failure_midway_keeps_what_was_paid_for(fake_server, tmp_path):
    ds = dataset(n_docs=30, n_queries=0)
    fake_server.fault("status", status=429, match=ds.documents[20].text, body={
        "error": {"message": "quota", "type": "insufficient_quota",
                  "code": "insufficient_quota"}})
    with pytest.raises(QuotaExceededError):
        retriever(fake_server, tmp_path, batch_size=5, concurrency=1).rank(ds, [], 5)
    assert EmbeddingCache(tmp_path).info()["rows"] == 20
    fake_server.served.clear()
    retriever(fake_server, tmp_path, batch_size=5, concurrency=1).rank(ds, [], 5)
    assert len(fake_server.served) == 10


def test_cached_vectors_of_another_size_stop_the_run(fake_server, tmp_path):
    ds = dataset(n_docs=6, n_queries=2)
    retriever(fake_server, tmp_path).rank(ds, ds.queries, 3)
    fake_server.dim = 12   # the model behind the same name changed
    bigger = Dataset([*ds.documents, Document("new", "a new document")], ds.queries, ds.qrels)
    with pytest.raises(EmbeddingError, match=r"from the cache.*cache clear --model emb-1"):
        retriever(fake_server, tmp_path).rank(bigger, bigger.queries, 3)


def test_the_key_is_never_written_logged_or_shown(fake_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    ds = dataset()
    fake_server.api_key = KEY
    r = retriever(fake_server, tmp_path, query_prefix="q: ")
    r.rank(ds, ds.queries, 5)
    assert fake_server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # it was used
    fake_server.api_key = "another-key"
    with pytest.raises(AuthenticationError) as err:
        retriever(fake_server, tmp_path).rank(dataset(seed=1), dataset(seed=1).queries, 5)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files  # the cache (and its WAL) is there
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in str(err.value) and KEY not in caplog.text
    assert KEY not in json.dumps(r.config()) and KEY not in repr(r.embedder)
    assert KEY not in json.dumps(r.usage) and KEY not in " ".join(r.notes)


def test_no_cache_when_turned_off(fake_server, tmp_path):
    ds = dataset(n_docs=3, n_queries=1)
    retriever(fake_server, tmp_path, use_cache=False).rank(ds, ds.queries, 3)
    assert not any(tmp_path.iterdir())


def test_factory_checks_its_arguments(tmp_path):
    with pytest.raises(RetrievalError, match="Unknown dense retriever 'bm25'"):
        make_dense_retriever("bm25", model="x")
    with pytest.raises(RetrievalError, match=r"Unknown option.*k1"):
        make_dense_retriever("openai", model="x", k1=1.2)
    r = make_dense_retriever("openai", model="text-embedding-3-large", dimensions=256,
                             api_key=KEY, cache_dir=tmp_path, kmax=None)
    assert r.name == "openai:text-embedding-3-large@256"
    cfg = r.config()
    assert cfg["base_url"] == "https://api.openai.com/v1" and cfg["dimensions"] == 256
    assert cfg["retriever"] == "openai" and KEY not in json.dumps(cfg)


def test_cache_with_vectors_of_two_sizes_stops_before_any_call(fake_server, tmp_path):
    ds = dataset(n_docs=4, n_queries=1)
    r = retriever(fake_server, tmp_path)
    ns = r._namespace("")
    cache = EmbeddingCache(tmp_path)
    cache.put_many(ns, [text_hash(ds.documents[0].embed_text)], np.ones((1, 8), np.float32))
    cache.put_many(ns, [text_hash(ds.documents[1].embed_text)], np.ones((1, 5), np.float32))
    with pytest.raises(EmbeddingError, match=r"2 different sizes \(5, 8\).*cache clear --model"):
        r.rank(ds, ds.queries, 3)
    assert fake_server.requests == []


# -- streaming on a fresh cache, looking up first otherwise ---------------------------------
def test_a_fresh_cache_sends_while_hashing_and_an_old_one_is_looked_up_first(
        fake_server, tmp_path, monkeypatch):
    ds = dataset(n_docs=40, n_queries=12)
    lookups = []
    get_many = EmbeddingCache.get_many

    def spy(cache, ns, hashes):
        lookups.append(time.monotonic())
        return get_many(cache, ns, hashes)

    monkeypatch.setattr(EmbeddingCache, "get_many", spy)
    sent_while_hashing = []
    text_hashes = retriever_module.text_hashes

    def hashes_spy(texts):  # slow hashing: requests that leave meanwhile reach the server
        sent_while_hashing.append(len(fake_server.requests))
        time.sleep(0.01)
        return text_hashes(texts)

    monkeypatch.setattr(retriever_module, "text_hashes", hashes_spy)
    fake_server.latency = 0.02
    first = retriever(fake_server, tmp_path, batch_size=4).rank(ds, ds.queries, 5)
    assert lookups == []  # nothing of this model was cached: nothing to look up
    assert sent_while_hashing[0] == 0 and max(sent_while_hashing) > 0
    assert [len(r.inputs) for r in fake_server.requests] == [4] * 13
    assert_same_ranking(first, oracle(fake_server, ds, ds.queries, 5))

    fake_server.requests.clear()
    bigger = Dataset([*ds.documents, *[Document(f"n{i}", f"new text {i}") for i in range(9)]],
                     ds.queries, ds.qrels)
    sent_while_hashing.clear()
    r = retriever(fake_server, tmp_path, batch_size=4)
    second = r.rank(bigger, bigger.queries, 5)
    assert len(lookups) == 13  # one lookup per chunk of batch_size + 1 texts
    assert max(sent_while_hashing) == 0  # every text was looked up before the first request
    assert min(req.started for req in fake_server.requests) > max(lookups)
    assert [len(req.inputs) for req in fake_server.requests] == [4, 4, 1]
    assert r.usage["cached_texts"] == 52
    assert_same_ranking(second, oracle(fake_server, bigger, bigger.queries, 5))


def test_another_models_rows_do_not_stop_the_streaming(fake_server, tmp_path):
    ds = dataset(n_docs=20, n_queries=5)
    retriever(fake_server, tmp_path, model="emb-other").rank(ds, ds.queries, 3)
    fake_server.requests.clear()
    r = retriever(fake_server, tmp_path, batch_size=4)
    assert_same_ranking(r.rank(ds, ds.queries, 3), oracle(fake_server, ds, ds.queries, 3))
    assert r.usage["cached_texts"] == 0 and len(fake_server.requests) == 7


def test_two_cached_sizes_far_into_the_data_still_stop_before_any_call(fake_server, tmp_path):
    ds = dataset(n_docs=40, n_queries=4)
    r = retriever(fake_server, tmp_path, batch_size=4)  # chunks of 5 texts
    cache = EmbeddingCache(tmp_path)
    cache.put_many(r._namespace(""), [text_hash(ds.documents[1].embed_text)],
                   np.ones((1, 8), np.float32))
    cache.put_many(r._namespace(""), [text_hash(ds.documents[37].embed_text)],
                   np.ones((1, 5), np.float32))
    with pytest.raises(EmbeddingError, match=r"2 different sizes \(5, 8\)"):
        r.rank(ds, ds.queries, 3)
    assert fake_server.requests == []


def test_a_cached_size_far_into_the_data_is_known_before_the_first_reply(fake_server,
                                                                          tmp_path):
    ds = dataset(n_docs=40, n_queries=4)
    r = retriever(fake_server, tmp_path, batch_size=4, concurrency=1)
    EmbeddingCache(tmp_path).put_many(r._namespace(""), [text_hash(ds.queries[-1].text)],
                                      np.ones((1, 12), np.float32) / np.sqrt(12))
    with pytest.raises(EmbeddingError, match=r"8-dimensional vectors after 12-dimensional "
                                             r"ones from the cache"):
        r.rank(ds, ds.queries, 3)
    assert len(fake_server.requests) <= 2  # the first reply stops it (one more may be out)
    assert EmbeddingCache(tmp_path).info()["rows"] == 1


def test_a_failure_while_hashing_keeps_what_was_already_paid_for(fake_server, tmp_path,
                                                                 monkeypatch):
    ds = dataset(n_docs=60, n_queries=0)
    fake_server.latency = 0.05
    calls = []
    text_hashes = retriever_module.text_hashes

    def failing(texts):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return text_hashes(texts)

    monkeypatch.setattr(retriever_module, "text_hashes", failing)
    with pytest.raises(KeyboardInterrupt):
        retriever(fake_server, tmp_path, batch_size=5).rank(ds, [], 3)
    fake_server.wait_idle()
    paid = {text_hash(t) for t in fake_server.served}
    assert 5 <= len(paid) <= 15  # batches left while later texts were being hashed
    conn = sqlite3.connect(EmbeddingCache(tmp_path).path)
    cached = {bytes(h) for (h,) in conn.execute("SELECT text_sha256 FROM embeddings")}
    conn.close()
    assert cached == paid  # every one of them was cached before the interruption went on


def test_an_empty_document_gets_a_zero_vector_without_being_sent(fake_server, tmp_path):
    docs = [Document("a", "梅雨"), Document("b", ""), Document("c", "東京")]
    ds = Dataset(docs, [Query("q", "梅雨")], {"q": {"a": 1}})
    r = retriever(fake_server, tmp_path)
    docs_, scores = r.rank(ds, ds.queries, 3).get("q")
    assert sorted(fake_server.served) == ["東京", "梅雨"]  # the query is the same text as "a"
    assert docs_[0] == "a" and scores[0] == pytest.approx(1.0)
    assert dict(zip(docs_, scores))["b"] == 0.0
    assert any("zero vector" in n for n in r.notes)
