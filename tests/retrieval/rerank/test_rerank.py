"""Rerankers against real HTTP servers on 127.0.0.1 that speak each rerank protocol
(tests/fake_rerank.py): the order, the request counts, the cache, the limits and the faults."""

from __future__ import annotations

import time

import numpy as np
import pytest
from fake_rerank import FakeRerank, fake_tokens

from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import Cancelled, RerankError, RetrievalError
from ragdash.ranking import Ranking
from ragdash.rerank.client import too_many_documents
from ragdash.rerank.protocols import resolve_rerank_endpoint
from ragdash.retrieval.rerank import RerankCache, RerankClient, Reranker
from ragdash.run import Run

N_DOCS = 70
N_QUERIES = 6
RETRIEVED = 60  # documents per query in the first-stage ranking


def make_dataset() -> Dataset:
    docs = [Document(f"d{i:02d}", f"本文 {i} について text {i}", title=f"T{i}" if i % 3 else "")
            for i in range(N_DOCS)]
    queries = [Query(f"q{j}", f"質問 {j} query") for j in range(N_QUERIES)]
    qrels = {f"q{j}": {f"d{(j * 7 + k) % N_DOCS:02d}": 1.0 for k in range(3)}
             for j in range(N_QUERIES)}
    return Dataset(docs, queries, qrels, name="rerank-test")


def first_stage(ds: Dataset) -> Ranking:
    """Each query gets RETRIEVED documents in a query-dependent order, ties included."""
    run = {}
    for j, q in enumerate(ds.queries):
        rng = np.random.default_rng(j)
        picked = rng.permutation(N_DOCS)[:RETRIEVED]
        run[q.id] = {ds.documents[i].id: float(RETRIEVED - r // 2) for r, i in enumerate(picked)}
    return Ranking.from_dict(run, name="bm25")


def make_run(ds: Dataset) -> Run:
    return Run(ds, first_stage(ds), [q.id for q in ds.queries], kmax=RETRIEVED,
               retriever="bm25", name="BM25 on rerank-test", id="parent-run")


def reranker(server: FakeRerank, *, depth: int = 50, cache=True, **kw) -> Reranker:
    client = RerankClient(server.url, "rerank-test", protocol=server.protocol, seed=0,
                          api_key=kw.pop("api_key", None), **kw)
    return Reranker(client, depth=depth, cache=RerankCache() if cache else None)


@pytest.mark.parametrize("protocol", ["cohere", "jina", "voyage", "tei", "vllm"])
def test_top_n_follow_the_server_scores_and_the_rest_keep_first_stage_order(protocol):
    ds = make_dataset()
    run = make_run(ds)
    with FakeRerank(protocol) as server:
        r = reranker(server, depth=50)
        out = r.rerank_run(run)
        base_url = server.url
    # exactly one request per query: 50 documents fit in one request
    assert len(server.requests) == N_QUERIES
    assert out.usage["requests"] == N_QUERIES
    assert out.usage["pairs_scored"] == N_QUERIES * 50
    assert out.usage["cached_pairs"] == 0
    texts = {d.id: d.embed_text for d in ds.documents}
    for q in ds.queries:
        before, _ = run.ranking.get(q.id)
        after, scores = out.ranking.get(q.id)
        assert len(after) == RETRIEVED
        top = before[:50]
        expected = sorted(top, key=lambda d: (-FakeRerank.score(q.text, texts[d]),
                                              [-ord(c) for c in d]))
        assert after[:50] == expected
        assert after[50:] == before[50:]  # first-stage order below the depth
        assert np.all(np.diff(scores) < 0)
        np.testing.assert_allclose(scores[:50],
                                   [FakeRerank.score(q.text, texts[d]) for d in expected])
    # what the servers were sent: the query and the reranker's view of each document
    sent = server.requests[0]
    assert sent.query in {q.text for q in ds.queries}
    assert all(d in texts.values() for d in sent.documents)
    if protocol == "cohere":
        assert out.usage["search_units"] == N_QUERIES  # 50 documents: one unit per query
    elif protocol in ("jina", "voyage"):
        assert out.usage["tokens"] == sum(fake_tokens(r.query) + fake_tokens(d)
                                          for r in server.requests for d in r.documents)
    # a derived run: parent, transform, name
    assert out.parents == ["parent-run"]
    assert out.config["transform"] == {"kind": "rerank", "model": "rerank-test", "depth": 50,
                                       "reranker": "http", "base_url": base_url,
                                       "protocol": protocol}
    assert out.source == "rerank"
    assert out.name == "BM25 on rerank-test → rerank-test top 50"
    assert out.kmax == run.kmax and out.query_ids == run.query_ids


def test_rerun_makes_no_request_and_depth_changes_pay_only_new_pairs():
    ds = make_dataset()
    run = make_run(ds)
    with FakeRerank("cohere") as server:
        first = reranker(server, depth=20).rerank_run(run)
        assert len(server.requests) == N_QUERIES
        again = reranker(server, depth=20).rerank_run(run)
        assert len(server.requests) == N_QUERIES  # the rerun: 0 requests
        assert again.usage == {"requests": 0, "pairs_scored": 0, "cached_pairs": N_QUERIES * 20,
                               "search_units": 0, "retries": 0}
        assert again.ranking.to_dict() == first.ranking.to_dict()
        shallower = reranker(server, depth=10).rerank_run(run)
        assert len(server.requests) == N_QUERIES
        assert shallower.usage["requests"] == 0
        deeper = reranker(server, depth=50).rerank_run(run)
        assert len(server.requests) == 2 * N_QUERIES  # one more request per query
        assert deeper.usage["pairs_scored"] == N_QUERIES * 30  # only the 30 new pairs
        assert deeper.usage["cached_pairs"] == N_QUERIES * 20
        assert all(len(r.documents) == 30 for r in server.requests[N_QUERIES:])
    # the deeper run equals one made without any cache
    with FakeRerank("cohere") as fresh:
        direct = reranker(fresh, depth=50, cache=False).rerank_run(run)
    assert direct.ranking.to_dict() == deeper.ranking.to_dict()


def test_documents_per_request_limit_is_learned_from_the_server_and_said():
    ds = make_dataset()
    run = make_run(ds)
    with FakeRerank("tei", max_documents=32) as server:
        r = reranker(server, depth=50)
        out = r.rerank_run(run)
    refused = [q for q in server.requests if q.status == 413]
    assert len(refused) >= 1  # the first request taught the client the limit
    assert len(server.scored) == 2 * N_QUERIES  # 50 = 32 + 18
    assert all(len(q.documents) <= 32 for q in server.scored)
    assert any("at most 32 documents per request" in n for n in r.notes)
    assert "batch size" in " ".join(r.notes)
    assert out.usage["pairs_scored"] == N_QUERIES * 50
    # the same order as a server without a limit
    with FakeRerank("tei") as plain:
        direct = reranker(plain, depth=50, cache=False).rerank_run(run)
    assert len(plain.requests) == N_QUERIES
    assert direct.ranking.to_dict() == out.ranking.to_dict()


def test_max_documents_splits_without_asking_and_says_so():
    ds = make_dataset()
    with FakeRerank("cohere") as server:
        r = reranker(server, depth=50, max_documents=20)
        r.rerank_run(make_run(ds))
    assert len(server.requests) == 3 * N_QUERIES
    for q in ds.queries:
        sizes = [len(r.documents) for r in server.requests if r.query == q.text]
        assert sizes == [20, 20, 10]
    assert any("--max-documents" in n for n in r.notes)


def test_request_token_budget_splits_a_request():
    ds = make_dataset()
    with FakeRerank("voyage") as server:
        r = reranker(server, depth=50, max_request_tokens=200)
        r.rerank_run(make_run(ds))
    assert len(server.requests) > N_QUERIES
    assert any("estimated tokens per request" in n for n in r.notes)


def test_429_with_retry_after_is_waited_for_and_500_is_retried():
    ds = make_dataset()
    with FakeRerank("jina") as server:
        server.fault("status", status=429, headers={"Retry-After": "1"},
                     body={"detail": "rate limited"})
        server.fault("status", status=500)
        r = reranker(server, depth=10, concurrency=1)
        t0 = time.monotonic()
        out = r.rerank_run(make_run(ds))
        waited = time.monotonic() - t0
    assert waited >= 0.9  # Retry-After: 1 was honored
    assert out.usage["retries"] == 2
    assert len(server.requests) == N_QUERIES + 2
    assert out.usage["requests"] == N_QUERIES + 2


@pytest.mark.parametrize(("fault", "words"), [
    ("fewer", "returned 9 scores for 10 documents"),
    ("extra", "returned 11 scores for 10 documents"),
    ("range", "returned index 10 for 10 documents"),
    ("duplicate", "more than once"),
    ("nan", "NaN or infinite"),
])
def test_a_bad_reply_is_one_sentence_and_earlier_replies_stay_cached(fault, words):
    ds = make_dataset()
    run = make_run(ds)
    with FakeRerank("cohere") as server:
        r = reranker(server, depth=10, concurrency=1)
        # the first two queries are answered, the third gets the bad reply
        server.fault("shuffle", times=2)
        server.fault(fault)
        with pytest.raises(RerankError) as info:
            r.rerank_run(run)
        message = str(info.value)
        assert words in message and "cached" in message
        assert "\n" not in message and "Traceback" not in message
        assert len(server.requests) == 3  # not retried: it would pay again
        # what was paid for is kept: a rerun pays only for the 4 queries not yet scored
        out = reranker(server, depth=10).rerank_run(run)
    assert out.usage["cached_pairs"] == 20
    assert out.usage["requests"] == N_QUERIES - 2


def test_shuffled_indexes_are_put_back_in_order():
    ds = make_dataset()
    run = make_run(ds)
    with FakeRerank("vllm") as server:
        server.fault("shuffle", times=N_QUERIES)
        shuffled = reranker(server, depth=50, cache=False).rerank_run(run)
    with FakeRerank("vllm") as server:
        plain = reranker(server, depth=50, cache=False).rerank_run(run)
    assert shuffled.ranking.to_dict() == plain.ranking.to_dict()


def test_errors_say_what_to_do_and_never_show_the_key():
    ds = make_dataset()
    key = "sk-rerank-secret-0123456789abcdef"
    with FakeRerank("cohere", api_key="right-key") as server, \
            pytest.raises(RerankError) as info:
        reranker(server, api_key=key).rerank_run(make_run(ds))
    assert "rejected the API key (HTTP 401" in str(info.value)
    assert key not in str(info.value)
    assert server.requests[0].headers["authorization"] == f"Bearer {key}"
    with FakeRerank("cohere", models={"rerank-v3.5"}) as server, \
            pytest.raises(RerankError, match="no rerank endpoint or model 'rerank-test'"):
        reranker(server).rerank_run(make_run(ds))
    with FakeRerank("cohere") as server:
        server.fault("status", status=503, times=100)
        client = RerankClient(server.url, "m", max_retries=1, seed=0)
        with pytest.raises(RerankError, match=r"kept failing with HTTP 503.*after 2 attempts"):
            Reranker(client, depth=5).rerank_run(make_run(ds))
    # nothing of the key in the cache file
    cache = RerankCache()
    if cache.exists():
        assert key.encode() not in cache.path.read_bytes()


def test_a_run_naming_unknown_documents_fails_before_any_request():
    ds = make_dataset()
    bad = Ranking.from_dict({"q0": {"d00": 2.0, "nope": 1.0}})
    run = Run(ds, bad, ["q0"], kmax=2, retriever="trec")
    with FakeRerank("cohere") as server, \
            pytest.raises(RetrievalError, match=r"does not have .*'nope'"):
        reranker(server).rerank_run(run)
    assert server.requests == []


def test_cancel_keeps_what_was_scored():
    import threading

    ds = make_dataset()
    cancel = threading.Event()
    seen = []

    def progress(event):
        seen.append(event)
        if event["done"] >= 20:
            cancel.set()

    with FakeRerank("cohere", latency=0.1) as server:
        r = reranker(server, depth=10, concurrency=1)
        with pytest.raises(Cancelled):
            r.rerank(make_run(ds).ranking, ds, progress=progress, cancel=cancel)
        sent = len(server.requests)
        assert 2 <= sent <= 3  # the request in flight when cancel came may finish
        assert sent < N_QUERIES
        out = reranker(server, depth=10).rerank_run(make_run(ds))
    assert out.usage["cached_pairs"] == 10 * sent  # every reply that came in was cached
    assert out.usage["requests"] == N_QUERIES - sent


@pytest.mark.parametrize(("typed", "protocol", "url"), [
    ("https://api.cohere.com", "cohere", "https://api.cohere.com/v2/rerank"),
    ("https://api.cohere.ai/", "cohere", "https://api.cohere.ai/v2/rerank"),
    ("https://api.cohere.com/v2/rerank", "cohere", "https://api.cohere.com/v2/rerank"),
    ("https://api.jina.ai", "jina", "https://api.jina.ai/v1/rerank"),
    ("https://api.voyageai.com/v1", "voyage", "https://api.voyageai.com/v1/rerank"),
    ("http://localhost:8080", "tei", "http://localhost:8080/rerank"),
    ("http://localhost:8000/v1", "vllm", "http://localhost:8000/v1/rerank"),
    ("http://localhost:8000/v2", "cohere", "http://localhost:8000/v2/rerank"),
    ("http://user:pw@host:9/x/rerank?key=1", "tei", "http://host:9/x/rerank"),
])
def test_base_urls_resolve_like_the_embeddings_client(typed, protocol, url):
    ep = resolve_rerank_endpoint(typed)
    assert (ep.protocol, ep.url) == (protocol, url)
    assert "pw" not in ep.base and "key" not in ep.base


def test_protocol_given_wins_and_bad_urls_are_one_sentence():
    assert resolve_rerank_endpoint("http://localhost:8000", protocol="vllm").url == \
        "http://localhost:8000/rerank"
    with pytest.raises(RerankError, match="not an http"):
        resolve_rerank_endpoint("ftp://x")
    with pytest.raises(RerankError, match="Unknown rerank protocol"):
        resolve_rerank_endpoint("http://x", protocol="bing")


@pytest.mark.parametrize(("status", "message", "limit"), [
    (413, "batch size 50 > maximum allowed batch size 32", 32),
    (400, "you can rerank at most 100 documents per request", 100),
    (422, "Too many documents", None),
    (500, "batch size 50 > maximum allowed batch size 32", "no"),
])
def test_too_many_documents_messages(status, message, limit):
    from ragdash.embeddings.client import ErrorInfo

    many, got = too_many_documents(status, ErrorInfo(message=message))
    if limit == "no":
        assert not many
    else:
        assert many and got == limit


def test_a_failed_rerank_is_said_in_japanese_and_in_the_apps_words():
    from ragdash.i18n import message

    ds = make_dataset()
    with FakeRerank("cohere", models={"rerank-v3.5"}) as server, \
            pytest.raises(RerankError) as info:
        reranker(server).rerank_run(make_run(ds))
    exc = info.value
    assert str(exc) == message(exc, "en")  # the command line's English, unchanged
    assert "--protocol (cohere)" in str(exc)
    app = message(exc, "en", app=True)
    assert "the API shape (cohere)" in app and "--protocol" not in app
    ja = message(exc, "ja", app=True)
    assert "リランクのエンドポイントかモデル 'rerank-test' がありません(HTTP 404" in ja, ja
    assert "「API の形式」(cohere)" in ja and "--" not in ja
    with FakeRerank("cohere") as server:
        server.fault("status", status=503, times=100)
        client = RerankClient(server.url, "m", max_retries=1, seed=0)
        with pytest.raises(RerankError) as info:
            Reranker(client, depth=5).rerank_run(make_run(ds))
    ja = message(info.value, "ja")
    assert "HTTP 503" in ja and "2 回試行して" in ja and "スコア済みの分はキャッシュ" in ja, ja
    assert "after 2 attempts" in str(info.value)


def test_a_rerank_setup_that_cannot_work_is_said_in_japanese_without_flags_in_the_app():
    from ragdash.i18n import message

    with pytest.raises(RerankError) as info:
        resolve_rerank_endpoint("")
    exc = info.value
    assert message(exc, "en") == str(exc) and "pass --base-url" in str(exc)
    ja = message(exc, "ja", app=True)
    assert "「リランク API のベース URL」欄" in ja and "--" not in ja, ja
    with pytest.raises(RerankError) as info:
        resolve_rerank_endpoint("ftp://example.org")
    assert "http(s) の URL ではありません" in message(info.value, "ja")
    with pytest.raises(RetrievalError) as info:
        RerankClient("http://127.0.0.1:9", "")
    assert "「リランクモデル」欄" in message(info.value, "ja", app=True)
    assert "pass --model" in str(info.value)


def test_a_rerank_depth_out_of_range_is_said_in_japanese():
    from ragdash.i18n import message
    from ragdash.retrieval.rerank.stage import check_depth

    with pytest.raises(RetrievalError) as info:
        check_depth(0)
    assert message(info.value, "en") == str(info.value)
    assert str(info.value).startswith("The rerank depth must be a whole number from 1 to ")
    assert "リランクする件数は 1 から" in message(info.value, "ja")
    with pytest.raises(RetrievalError) as info:
        RerankClient("http://127.0.0.1:9", "m", concurrency=0)
    assert str(info.value) == "The concurrency must be a whole number from 1 to 64, not 0."
    assert message(info.value, "ja") == ("同時実行数は 1 から 64 までの整数にしてください"
                                         "(0 ではなく)。")
