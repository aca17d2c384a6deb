"""What a search service may send back, each from a real server on 127.0.0.1
(tests/fake_search.py): every reply gets a bounded answer in one sentence — an HTML page, 10 MB,
ids of the wrong type, null and NaN scores, a path that matches nothing, 429s and 500s (retried,
then a failed query), a reply that never ends (cut at the deadline) — and results already
received stay."""

from __future__ import annotations

import re
import time

import pytest

from ragdash.errors import (
    BadReplyError,
    RateLimitedError,
    RetrievalError,
    ServerError,
    ServerUnreachableError,
)
from ragdash.i18n import message
from ragdash.pipeline import run_evaluation
from ragdash.retrieval.own import OwnRetriever
from ragdash.retrieval.own.http import HttpSearch
from tests.fake_search import ES_PATHS, ES_REQUEST, FakeSearch, fast_backoff  # noqa: F401


@pytest.fixture(scope="module")
def service(sample):
    with FakeSearch(sample) as s:
        yield s


@pytest.fixture(autouse=True)
def no_faults_left(service):
    yield
    service.clear_faults()


PATHS = {"ids": ES_PATHS["ids"], "scores": ES_PATHS["scores"]}


def _search(service, **kw) -> HttpSearch:
    return HttpSearch(service.url("es"), request=ES_REQUEST, **{**PATHS, **kw})


def _requests(service) -> int:
    return len(service.requests)


def test_an_html_page_is_asked_again_once_then_said_as_such(service):
    service.fault("html", times=5)
    before = _requests(service)
    with pytest.raises(BadReplyError, match="answered with an HTML page, not JSON") as caught:
        _search(service)("梅雨", 5)
    assert _requests(service) - before == 2  # asked again once (a proxy's hiccup passes)
    assert "2 attempts" in str(caught.value)
    assert "HTML" in message(caught.value, "ja")


def test_ten_megabytes_are_cut_at_the_cap_and_never_asked_again(service):
    service.fault("huge", size=10 * 1024 * 1024)
    before = _requests(service)
    started = time.monotonic()
    with pytest.raises(BadReplyError, match="larger than a page of results can be"):
        _search(service)("梅雨", 10)
    assert _requests(service) - before == 1
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(("hits", "said"), [
    ([{"_id": {"doc": "a0p0"}, "_score": 1.0}],
     re.escape("result 1's id (hits.hits[*]._id) is an object, not an id")),
    ([{"_id": "a0p0", "_score": 1}, {"_id": ["a0p1"], "_score": 0.5}],
     r"result 2's id .* is a list, not an id: \[\"a0p1\"\]; take one value of it, e\.g\. "
     r"hits\.hits\[\*\]\._id\[0\]"),
    ([{"_id": True, "_score": 1.0}], "is true or false, not an id"),
    ([{"_id": "a0p0", "_score": float("nan")}], "result 1's score .* is not a number: NaN"),
    ([{"_id": "a0p0", "_score": "high"}], "score .* is not a number"),
    ([{"_id": "a0p0", "_score": 1.0}, {"_score": 0.5}],
     "the ids path hits.hits.*._id gives 1 values but the scores path .* gives 2: a"),
])
def test_a_reply_that_cannot_be_right_is_one_sentence_never_asked_again(service, hits, said):
    service.fault("body", body={"hits": {"hits": hits}})
    before = _requests(service)
    with pytest.raises(BadReplyError, match=said):
        _search(service)("梅雨", 5)
    assert _requests(service) - before == 1


def test_numbers_are_ids_and_null_scores_are_rank_order(service):
    service.fault("body", body={"hits": {"hits": [{"_id": 12, "_score": None},
                                                  {"_id": 7.0, "_score": None}]}})
    hits = _search(service)("梅雨", 5)  # a [*] projection drops every null: no scores
    assert [(h.id, h.score) for h in hits] == [("12", None), ("7", None)]
    some = {"hits": {"hits": [{"_id": "a0p0", "_score": 2.0}, {"_id": "a0p1", "_score": None}]}}
    service.fault("body", body=some)
    with pytest.raises(BadReplyError, match=re.escape("map(&_score, hits.hits)")):
        _search(service)("梅雨", 5)  # one null dropped: the places are lost, and said
    service.fault("body", body=some)  # map() keeps each result's place
    hits = _search(service, scores="map(&_score, hits.hits)")("梅雨", 5)
    assert [(h.id, h.score) for h in hits] == [("a0p0", 2.0), ("a0p1", None)]


def test_a_path_that_matches_nothing_names_it_and_shows_the_replys_keys(service):
    with pytest.raises(BadReplyError) as caught:
        _search(service, ids="hits.items[*].id")("梅雨", 5)
    said = str(caught.value)
    assert "the ids path hits.items[*].id matches nothing in the reply" in said
    assert "its top-level keys: took, timed_out, _shards, hits" in said
    service.fault("body", body=[1, 2, 3])
    with pytest.raises(BadReplyError, match="the reply is a list of 3 items"):
        _search(service)("梅雨", 5)
    service.fault("body", body={"hits": {"hits": {"_id": "a0p0"}}})
    with pytest.raises(BadReplyError, match=r"gives null|matches nothing"):
        _search(service)("梅雨", 5)
    service.fault("body", body={"hits": {"hits": []}, "x": 1})
    assert _search(service)("梅雨", 5) == []  # no results is an answer


def test_429s_and_500s_are_retried_then_the_query_fails(service):
    service.fault("status", status=429, headers={"Retry-After": "0"}, times=2)
    before = _requests(service)
    search = _search(service)
    assert search("梅雨", 5)  # the third attempt answers
    assert _requests(service) - before == 3 and search.usage["retries"] == 2
    service.fault("status", status=429, headers={"Retry-After": "0"}, times=10)
    with pytest.raises(RateLimitedError, match="kept answering HTTP 429"):
        _search(service, max_retries=2)("梅雨", 5)
    service.clear_faults()
    service.fault("status", status=503, body={"error": "overloaded"}, times=10)
    with pytest.raises(ServerError, match="kept failing with HTTP 503: overloaded"):
        _search(service, max_retries=2)("梅雨", 5)


def test_a_reply_that_never_ends_is_cut_at_the_deadline(service):
    service.fault("endless", times=5)
    started = time.monotonic()
    with pytest.raises(ServerUnreachableError, match=r"no whole reply .* within 0.5 s"):
        _search(service, timeout=0.5, max_retries=1)("梅雨", 5)
    assert time.monotonic() - started < 4  # two attempts of 0.5 s and a short backoff


def test_failed_queries_are_listed_and_the_answers_received_stay(sample, service, tmp_path):
    queries = sample.evaluated_queries(8)
    bad = {queries[1].text, queries[5].text}
    for q in bad:
        service.fault("status", status=500, match=q, times=10)
    search = _search(service, max_retries=1)
    retriever = OwnRetriever(search, name=search.name, config=search.config())
    with pytest.raises(RetrievalError, match="failed on 2 queries of 8"):
        run_evaluation(sample, retriever, kmax=10, limit_queries=8)
    kept = OwnRetriever(search, name=search.name, config=search.config(),
                        allow_failures=True)
    run = run_evaluation(sample, kept, kmax=10, limit_queries=8)
    assert {qid for qid, _ in kept.failed} == {queries[1].id, queries[5].id}
    assert all("HTTP 500" in why for _, why in kept.failed)
    good = [q for q in queries if q.text not in bad]
    assert all(len(run.ranking.get(q.id)[0]) > 0 for q in good)
