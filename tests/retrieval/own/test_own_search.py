"""``ragdash.evaluate_search`` over plain and async functions: metrics equal pytrec_eval's on the
ranking the function returned; latency measured; concurrency; failures retried, counted,
refused unless allowed; a call that blocks past the timeout; cancel and a restart that asks
only for the queries not yet answered; a run that maps too little refused in one sentence."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from own_support import assert_equals_pytrec, folded, keyword_search, tiny_dataset

import ragdash
from ragdash.errors import Cancelled, RetrievalError
from ragdash.retrieval.own import retriever as own_retriever_module
from ragdash.retrieval.own.answers import AnswerStore
from ragdash.samples import load_sample


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch):
    """Retries wait nothing (the policy's delays are tested in tests/services/)."""
    monkeypatch.setattr(own_retriever_module, "retry_delay", lambda attempt, headers: 0.0)


@pytest.fixture(scope="module")
def mini():
    return load_sample("jsquad-mini")


def _bigram_search(dataset, *, score: bool = True):
    """search(query, k) over ``dataset``: documents sharing character bigrams with the query
    (a real ranking of a few dozen documents per query), records what it returned."""
    texts = [(d.id, d.text) for d in dataset.documents]
    returned: dict[str, list] = {}

    def search(query: str, k: int):
        grams = {query[i:i + 2] for i in range(len(query) - 1)}
        scored = [(doc, float(sum(g in text for g in grams))) for doc, text in texts]
        scored = sorted((x for x in scored if x[1] > 1), key=lambda x: (-x[1], x[0]))[:k]
        returned[query] = scored
        return scored if score else [doc for doc, _ in scored]

    return search, returned


def _returned_run(dataset, query_ids, returned, *, score=True):
    by_text = {q.id: q.text for q in dataset.queries}
    return {q: folded([(d, s if score else None) for d, s in returned[by_text[q]]])
            for q in query_ids}


def test_a_function_equals_pytrec_eval_and_its_latency_is_kept(mini):
    search, returned = _bigram_search(mini)
    run = ragdash.evaluate_search(mini, search, k=100, limit_queries=30)
    assert len(run.query_ids) == 30
    assert_equals_pytrec(run, mini, _returned_run(mini, run.query_ids, returned))
    probe = run.resources["latency_probe"]
    assert probe["requests"] == 30 and 0 < probe["p50_ms"] <= probe["p95_ms"] <= probe["p99_ms"]
    assert run.resources["ms_per_query"] > 0
    assert run.usage["search_calls"] == 30 and run.usage["failed_queries"] == 0
    assert run.config["retriever"] == "python" and run.name == "search"


def test_ids_without_scores_rank_in_the_order_returned_and_it_is_said(mini):
    search, returned = _bigram_search(mini, score=False)
    run = ragdash.evaluate_search(mini, search, k=100, limit_queries=15)
    assert_equals_pytrec(run, mini, _returned_run(mini, run.query_ids, returned,
                                                  score=False))
    assert run.usage["no_score_queries"] == 15
    notes = own_retriever_module.own_notes(run.resources)
    assert any("rank order is the score" in n for n in notes)
    assert any(n.startswith("latency per query") for n in notes)
    assert own_retriever_module.own_notes(run.resources, "ja")[0].startswith("クエリごと")


def test_an_async_function_runs_concurrently_and_equals_the_sync_one(mini):
    search, returned = _bigram_search(mini)
    in_flight = {"now": 0, "most": 0}

    async def asearch(query, k):
        in_flight["now"] += 1
        in_flight["most"] = max(in_flight["most"], in_flight["now"])
        await asyncio.sleep(0.02)
        in_flight["now"] -= 1
        return search(query, k)

    started = time.perf_counter()
    run = ragdash.evaluate_search(mini, asearch, k=100, limit_queries=24, concurrency=8)
    took = time.perf_counter() - started
    assert in_flight["most"] == 8
    assert took < 24 * 0.02  # not one after the other
    assert_equals_pytrec(run, mini, _returned_run(mini, run.query_ids, returned))
    assert run.resources["latency_probe"]["p50_ms"] >= 20


def test_threads_ask_a_plain_function_concurrently():
    ds = tiny_dataset()
    base = keyword_search(ds)
    active, most = [0], [0]
    lock = threading.Lock()

    def slow(query, k):
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return base(query, k)

    run = ragdash.evaluate_search(ds, slow, k=10, concurrency=3)
    assert most[0] == 3
    assert run.table().mean("recall@10") == 1.0


def test_a_transient_error_is_retried_and_a_fault_is_a_failed_query():
    ds = tiny_dataset()
    base = keyword_search(ds)
    calls: dict[str, int] = {}

    def flaky(query, k):
        calls[query] = calls.get(query, 0) + 1
        if query == "dog" and calls[query] == 1:
            raise ConnectionError("connection reset by peer")
        if query == "bird":
            raise KeyError("bird")
        return base(query, k)

    with pytest.raises(RetrievalError) as got:
        ragdash.evaluate_search(ds, flaky, k=10, resume=False)
    said = str(got.value)
    assert "failed on 1 query of 3" in said and "q3: KeyError: 'bird'" in said
    assert "--allow-failures" in said and "\n" not in said
    assert calls["dog"] == 2 and calls["bird"] == 1  # retried once; a fault is not retried

    run = ragdash.evaluate_search(ds, flaky, k=10, allow_failures=True, resume=False)
    assert run.usage["failed_queries"] == 1 and run.resources["own_search"]["failed"] == [
        ["q3", "KeyError: 'bird'"]]
    assert run.table().value("recall@10").tolist() == [1.0, 1.0, 0.0]  # q3 scores 0
    assert any("1 query of 3 failed" in n for n in own_retriever_module.own_notes(
        run.resources))


@pytest.mark.parametrize("returned,said", [
    (None, "returned None"),
    ([1.5], "id of type float"),
    ([("d1", None), ("d2", float("nan"))], "not a finite number"),
])
def test_bad_returns_fail_the_query_with_one_sentence(returned, said):
    ds = tiny_dataset()
    with pytest.raises(RetrievalError, match=said):
        ragdash.evaluate_search(ds, lambda q, k: returned, k=10, resume=False)


def test_a_call_blocking_past_the_timeout_is_a_failed_query():
    ds = tiny_dataset()
    base = keyword_search(ds)
    release = threading.Event()

    def stuck(query, k):
        if query == "dog":
            release.wait(30)
        return base(query, k)

    started = time.perf_counter()
    run = ragdash.evaluate_search(ds, stuck, k=10, timeout=0.3, allow_failures=True,
                                  resume=False)
    release.set()
    assert time.perf_counter() - started < 5
    assert run.resources["own_search"]["failed"] == [
        ["q2", "no answer within 0.3 s (the per-query timeout)"]]
    assert run.table().value("recall@10").tolist() == [1.0, 0.0, 1.0]


def test_an_async_call_past_the_timeout_is_a_failed_query():
    ds = tiny_dataset()
    base = keyword_search(ds)

    async def stuck(query, k):
        if query == "bird":
            await asyncio.sleep(30)
        return base(query, k)

    run = ragdash.evaluate_search(ds, stuck, k=10, timeout=0.2, allow_failures=True,
                                  concurrency=3, resume=False)
    assert [q for q, _ in run.resources["own_search"]["failed"]] == ["q3"]


def test_cancel_keeps_the_answers_and_a_restart_asks_only_the_others(mini, home):
    search, _ = _bigram_search(mini)
    asked: list[str] = []
    cancel = threading.Event()

    def counted(query, k):
        asked.append(query)
        if len(asked) == 10:
            cancel.set()
        return search(query, k)

    with pytest.raises(Cancelled):
        ragdash.evaluate_search(mini, counted, k=20, limit_queries=25, cancel=cancel)
    first = list(asked)
    assert 10 <= len(first) < 25
    assert AnswerStore(home).info()["rows"] == len(first)
    asked.clear()
    events = []
    run = ragdash.evaluate_search(mini, counted, k=20, limit_queries=25,
                                  progress=events.append)
    assert sorted(asked) == sorted({q.text for q in mini.evaluated_queries(25)} - set(first))
    assert run.usage["answered_before"] == len(first)
    assert events[0] == {"stage": "searching", "done": len(first), "total": 25}
    assert events[-1] == {"stage": "searching", "done": 25, "total": 25}
    # the run is complete: its answers are gone, the next run asks again
    assert AnswerStore(home).info()["rows"] == 0


def test_a_failed_run_keeps_its_answers_for_the_restart(home):
    ds = tiny_dataset()
    base = keyword_search(ds)
    asked: list[str] = []
    broken = {"bird"}

    def search(query, k):
        asked.append(query)
        if query in broken:
            raise RuntimeError("index offline")
        return base(query, k)

    with pytest.raises(RetrievalError, match="RuntimeError: index offline"):
        ragdash.evaluate_search(ds, search, k=10)
    broken.clear()
    asked.clear()
    run = ragdash.evaluate_search(ds, search, k=10)
    assert asked == ["bird"] and run.usage["answered_before"] == 2
    # the store holds no key, no query text: hashes and the answers only
    raw = (home / "own_search.sqlite").read_bytes()
    assert b"bird" not in raw


def test_a_run_mapping_under_90_percent_is_refused_naming_the_fixes():
    ds = tiny_dataset()

    def chunk_ids(query, k):
        return [f"{d}#chunk0" for d, _ in keyword_search(ds)(query, k)]

    with pytest.raises(RetrievalError) as got:
        ragdash.evaluate_search(ds, chunk_ids, k=10, resume=False)
    said = str(got.value)
    assert said.startswith("only 0.0% of the") and "--id-field" in said
    assert "--match text" in said and "'d1#chunk0'" in said


def test_a_few_ids_not_in_the_corpus_are_counted_and_shown(mini):
    base, _ = _bigram_search(mini)
    first = mini.evaluated_queries(1)[0].text

    def search(query, k):
        got = base(query, k)
        return [*got[:3], ("ghost", got[2][1]), *got[3:]] if query == first else got

    run = ragdash.evaluate_search(mini, search, k=100, limit_queries=5, resume=False)
    assert run.usage["not_found"] == 1
    assert run.resources["own_search"]["not_found_examples"] == ["ghost"]
    assert any("'ghost'" in n for n in own_retriever_module.own_notes(run.resources))


def test_match_text_maps_chunks_by_their_text():
    ds = tiny_dataset()

    def texts_only(query, k):
        return [{"text": d.text[:12], "score": 1.0 / (i + 1)}
                for i, d in enumerate(x for x in ds.documents if query in x.text)]

    run = ragdash.evaluate_search(ds, texts_only, k=10, match="text", resume=False)
    assert run.table().mean("recall@10") == 1.0
    with pytest.raises(RetrievalError, match="--id-field"):
        ragdash.evaluate_search(ds, texts_only, k=10, resume=False)


def test_a_function_of_the_query_alone_and_bad_options():
    ds = tiny_dataset()
    run = ragdash.evaluate_search(ds, lambda query: [d.id for d in ds.documents
                                                      if query in d.text], resume=False)
    assert run.table().mean("recall@10") == 1.0
    with pytest.raises(RetrievalError, match="concurrency 0"):
        ragdash.evaluate_search(ds, lambda q: [], concurrency=0)
    with pytest.raises(RetrievalError, match="cannot search"):
        ragdash.evaluate_search(ds, 42)
