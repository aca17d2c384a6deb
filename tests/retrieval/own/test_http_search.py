"""A search service over HTTP as a first stage: real servers on 127.0.0.1 (tests/fake_search.py)
answering with ragdash's BM25 over the sample in Elasticsearch's ``_search`` shape, in a custom
nested shape and in Vespa's GET shape. The run's metrics equal pytrec_eval's on exactly the
ranking the service returned; requests carry the query JSON-escaped whatever it holds; the key
goes in its header and nowhere else.
"""

from __future__ import annotations

import json

import pytest
import pytrec_eval

from ragdash.dataset import Dataset, Document
from ragdash.errors import AuthenticationError, RetrievalError
from ragdash.pipeline import run_evaluation
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.retrieval.own import OwnRetriever
from ragdash.retrieval.own.http import (
    DEFAULT_REQUEST,
    HttpSearch,
    SearchServiceSetupError,
    fill_template,
    parse_template,
)
from ragdash.samples import load_sample
from tests.fake_search import (
    CUSTOM_PATHS,
    CUSTOM_REQUEST,
    ES_PATHS,
    ES_REQUEST,
    VESPA_PATHS,
    FakeSearch,
    fast_backoff,  # noqa: F401  (autouse)
)

MEASURES = {"ndcg_cut_10", "recall_10", "recip_rank", "P_5", "map_cut_100"}
OURS = {"ndcg_cut_10": "ndcg@10", "recall_10": "recall@10", "recip_rank": "mrr@100",
        "P_5": "precision@5", "map_cut_100": "map@100"}


@pytest.fixture(scope="module")
def sample():
    return load_sample("jsquad-mini")


@pytest.fixture(scope="module")
def service(sample):
    with FakeSearch(sample) as s:
        yield s


def _evaluated(ds, n=40):
    return ds.evaluated_queries(n)


def _pytrec(ds, queries, answered) -> dict[str, float]:
    """pytrec_eval's means on the ranking the service returned for ``queries``."""
    run = {q.id: {d: s for d, s in answered[q.text]} or {"__none__": 0.0} for q in queries}
    qrels = {q.id: {d: int(g) for d, g in ds.qrels[q.id].items()} for q in queries}
    per = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    return {m: sum(v[m] for v in per.values()) / len(per) for m in MEASURES}


def _run(ds, search, queries, **kw):
    retriever = OwnRetriever(search, name=search.name, config=search.config(), **kw)
    return run_evaluation(ds, retriever, kmax=100, limit_queries=len(queries)), retriever


@pytest.mark.parametrize("shape", ["es", "custom"])
def test_metrics_equal_pytrec_eval_on_the_ranking_the_service_returned(sample, service,
                                                                       shape):
    queries = _evaluated(sample)
    template, paths = (ES_REQUEST, ES_PATHS) if shape == "es" else (CUSTOM_REQUEST,
                                                                    CUSTOM_PATHS)
    search = HttpSearch(service.url(shape), request=template, **paths)
    run, retriever = _run(sample, search, queries, concurrency=4)
    want = _pytrec(sample, queries, service.answered)
    table = run.table()
    for measure, ours in OURS.items():
        assert table.mean(ours) == pytest.approx(want[measure], abs=1e-9), measure
    # the service is ragdash's own BM25: the same ranking as ragdash's BM25 run
    bm25 = run_evaluation(sample, BM25Retriever(), kmax=100, limit_queries=len(queries))
    assert table.mean("ndcg@10") == pytest.approx(bm25.table().mean("ndcg@10"))
    assert retriever.usage["failed_queries"] == 0
    assert run.resources["latency_probe"]["requests"] == len(queries)
    assert run.config["retriever"] == "http" and run.config["ids"] == paths["ids"]


def _numbered(ds: Dataset) -> Dataset:
    """``ds`` with its documents numbered: "0", "1", ... (Vespa's fields send them as JSON
    numbers)."""
    new = {d.id: str(i) for i, d in enumerate(ds.documents)}
    return Dataset([Document(new[d.id], d.text, d.title) for d in ds.documents], ds.queries,
                   {q: {new[d]: g for d, g in docs.items()} for q, docs in ds.qrels.items()},
                   name="numbered")


def test_the_vespa_get_form_url_encodes_the_query_and_numbers_become_ids(sample):
    ds = _numbered(sample)
    with FakeSearch(ds) as svc:
        search = HttpSearch(svc.url("vespa"), method="GET", **VESPA_PATHS)
        hits = search("梅雨 & 台風 #1 / 100%", 5)
        (req,) = svc.requests
        assert req["method"] == "GET" and req["body"] is None
        assert req["query"] == "梅雨 & 台風 #1 / 100%"  # one parameter, whole
        assert "hits=5" in req["path"]
        queries = ds.evaluated_queries(20)
        run, _ = _run(ds, search, queries)
        want = _pytrec(ds, queries, svc.answered)
    assert all(isinstance(h.id, str) for h in hits)
    assert run.table().mean("ndcg@10") == pytest.approx(want["ndcg_cut_10"], abs=1e-9)


@pytest.mark.parametrize("query", [
    'say "hi" \\ back\\slash', "two\nlines\tand tab", "富士山の高さは？「引用」",
    "{k} and {query} inside", "</script>\u2028\x00"])
def test_queries_stay_valid_json_whatever_they_hold(service, query):
    search = HttpSearch(service.url("es"), request=ES_REQUEST, **ES_PATHS)
    search(query, 3)
    sent = service.requests[-1]["body"]
    assert sent == {"query": {"match": {"text": query}}, "size": 3, "_source": ["text"]}
    body = search.body(query, 7)
    assert json.loads(body)["query"]["match"]["text"] == query


def test_templates_parse_once_and_fill_in_the_structure():
    parsed = parse_template(DEFAULT_REQUEST)
    assert fill_template(parsed, 'a"b', 12) == {"query": 'a"b', "k": 12}
    # a bare {query} is a string value; inside a string a placeholder is replaced in its text
    parsed = parse_template('{"q": {query}, "p": "prefix: {query} ({k})", "n": [{k}]}')
    assert fill_template(parsed, "x\\y", 5) == {"q": "x\\y", "p": "prefix: x\\y (5)",
                                                 "n": [5]}
    with pytest.raises(SearchServiceSetupError, match=r"line 1, column \d+"):
        parse_template('{"query": "{query}", "k": {k},}')
    with pytest.raises(SearchServiceSetupError, match=r"never uses \{query\}"):
        parse_template('{"size": {k}}')
    with pytest.raises(SearchServiceSetupError, match="not a JMESPath expression"):
        HttpSearch("http://127.0.0.1:9/x", ids="hits.hits[*")
    with pytest.raises(SearchServiceSetupError, match="GET request has no body"):
        HttpSearch("http://127.0.0.1:9/x?q={query}", method="GET", request="{}", ids="a")
    with pytest.raises(SearchServiceSetupError, match=r"put \{query\} in the URL"):
        HttpSearch("http://127.0.0.1:9/x", method="GET", ids="a")
    with pytest.raises(SearchServiceSetupError, match="not an http"):
        HttpSearch("ftp://host/x", ids="a")


def test_the_key_goes_in_its_header_and_nowhere_else(sample):
    secret = "sk-search-0123456789abcdef"
    with FakeSearch(sample, key=secret, key_header="X-Api-Key") as svc:
        search = HttpSearch(svc.url("es"), request=ES_REQUEST, api_key=secret,
                            api_key_header="X-Api-Key", api_key_env="SEARCH_KEY", **ES_PATHS)
        assert search("梅雨", 3)
        assert svc.requests[-1]["headers"]["X-Api-Key"] == secret
        config = json.dumps(search.config())
        assert secret not in config and '"api_key_set": true' in config
        trial = search.trial("梅雨", 3)
        assert secret not in json.dumps(trial.headers) and trial.headers["X-Api-Key"] == "***"
        wrong = HttpSearch(svc.url("es"), request=ES_REQUEST, api_key="sk-wrong-key-000000",
                           api_key_header="X-Api-Key", **ES_PATHS)
        with pytest.raises(AuthenticationError, match="rejected the key") as caught:
            wrong("梅雨", 3)
        assert "sk-wrong" not in str(caught.value)
        assert len([r for r in svc.requests if r["headers"].get("X-Api-Key") ==
                    "sk-wrong-key-000000"]) == 1  # a 401 is never asked again


def test_try_one_query_shows_the_request_the_reply_and_the_hits(service):
    search = HttpSearch(service.url("custom"), request=CUSTOM_REQUEST, **CUSTOM_PATHS)
    trial = search.trial("梅雨がないのはどこ", 5)
    assert trial.error is None and trial.method == "POST"
    assert json.loads(trial.body) == {"input": {"text": "梅雨がないのはどこ"},
                                      "options": {"top_k": 5}}
    assert '"relevance"' in trial.reply and "\n  " in trial.reply  # pretty-printed
    assert [h.id for h in trial.hits] == [d for d, _ in service.answered["梅雨がないのはどこ"]]
    service.fault("body", body={"data": {"items": []}}, match="何もない")
    trial = search.trial("何もない", 5)
    assert trial.hits == [] and "matches nothing" in trial.error and '"items"' in trial.reply


def test_a_failed_query_is_counted_and_the_rest_kept(sample, service):
    queries = _evaluated(sample, 6)
    service.fault("status", status=500, match=queries[2].text, times=10)
    search = HttpSearch(service.url("es"), request=ES_REQUEST, max_retries=1, **ES_PATHS)
    with pytest.raises(RetrievalError, match="failed on 1 query of 6"):
        _run(sample, search, queries)
    service.fault("status", status=500, match=queries[2].text, times=10)
    run, retriever = _run(sample, search, queries, allow_failures=True)
    assert retriever.usage["failed_queries"] == 1
    assert retriever.failed[0][0] == queries[2].id and "HTTP 500" in retriever.failed[0][1]
    assert len(run.ranking.get(queries[0].id)[0]) > 0
    service.clear_faults()


def test_a_saved_runs_configuration_gives_back_its_setup_without_the_key(service):
    from ragdash.setup.run import setup_from_config

    search = HttpSearch(service.url("es"), request=ES_REQUEST, api_key="sk-abc-123456789",
                        api_key_header="X-Api-Key", api_key_env="SEARCH_KEY", **ES_PATHS)
    config = {**search.config(), "match": None}
    setup = setup_from_config(config, dataset="data", kmax=10)
    (first,) = setup.retrievers
    assert first.kind == "http"
    assert {k: first.options.get(k) for k in ("url", "request", "ids", "scores", "texts",
                                              "api_key_env", "api_key_header")} == {
        "url": service.url("es"), "request": ES_REQUEST, **ES_PATHS,
        "api_key_env": "SEARCH_KEY", "api_key_header": "X-Api-Key"}
    assert "sk-abc" not in json.dumps(first.options)


def test_a_key_that_names_its_scheme_goes_in_authorization_as_it_is(sample):
    key = "ApiKey VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=="
    with FakeSearch(sample, key=key) as svc:  # Elasticsearch's API keys: "ApiKey <base64>"
        search = HttpSearch(svc.url("es"), request=ES_REQUEST, api_key=key, **ES_PATHS)
        assert search("梅雨", 3)
        assert svc.requests[-1]["headers"]["Authorization"] == key
        assert search.trial("梅雨", 3).headers["Authorization"] == "ApiKey ***"
        plain = HttpSearch(svc.url("es"), request=ES_REQUEST, api_key="k-123456", **ES_PATHS)
        with pytest.raises(AuthenticationError):
            plain("梅雨", 3)
        assert svc.requests[-1]["headers"]["Authorization"] == "Bearer k-123456"
