"""AppTest: the Run page's own-search sections (ragdash/ui/search_form.py) driven through the
real page script — "Your search service (HTTP)" with Try one query and a run to the store,
against a real Elasticsearch-shaped server on 127.0.0.1 (tests/fake_search.py); a template
that is not JSON stopping Start; the Python kind from a loaded setup file, run only where
the server allows it."""

from __future__ import annotations

import json
import textwrap

import pytest
from app_support import new_app, open_page, open_sample, plain, texts, wait_for_jobs

from ragdash.runs import get_store
from tests.fake_search import ES_PATHS, ES_REQUEST, FakeSearch, fast_backoff  # noqa: F401

KEY = "sk-search-ui-0123456789SECRET"


@pytest.fixture(scope="module")
def service(sample):
    with FakeSearch(sample, key=KEY, key_header="X-Api-Key") as s:
        yield s


def _http_form(service, *, request: str = ES_REQUEST):
    at = open_sample(new_app())
    open_page(at, "run")
    at.radio(key="w:rd_retriever").set_value("http").run()
    at.text_input(key="w:rd_search_url").set_value(service.url("es"))
    at.text_area(key="w:rd_search_request").set_value(request)
    at.text_input(key="w:rd_search_ids").set_value(ES_PATHS["ids"])
    at.text_input(key="w:rd_search_scores").set_value(ES_PATHS["scores"])
    at.text_input(key="w:rd_search_key").set_value(KEY)
    at.text_input(key="w:rd_search_key_header").set_value("X-Api-Key")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _everything(at) -> str:
    """Every text the page holds, code blocks and tables included."""
    parts = [texts(at), *(str(c.value) for c in at.code)]
    parts += [df.value.to_csv() for df in at.dataframe]
    return "\n".join(parts)


def test_try_one_query_shows_the_request_the_reply_and_the_ids_found(sample, service):
    at = _http_form(service)
    query = sample.evaluated_queries(1)[0].text
    assert at.text_input(key="w:rd_search_try_query").value == query  # the first query
    at.button(key="svc_try").click().run()
    assert not at.exception, [e.value for e in at.exception]
    sent, reply = at.code[0].value, at.code[1].value
    assert sent.startswith(f"POST {service.url('es')}")
    assert "X-Api-Key: ***" in sent
    assert json.loads(sent.split("\n\n", 1)[1]) == json.loads(
        ES_REQUEST.replace("{query}", query).replace("{k}", "10"))
    assert json.loads(reply)["hits"]["hits"][0]["_id"] == service.answered[query][0][0]
    table = at.dataframe[0].value
    assert list(table["Id in the reply"]) == [d for d, _ in service.answered[query]]
    assert set(table["In the corpus?"]) == {"in the corpus"}
    assert KEY not in _everything(at)
    # a service answering ids that are not the corpus's: each says "not found"
    service.fault("body", body={"hits": {"hits": [{"_id": "x-1", "_score": 2.0},
                                                  {"_id": "a0p0", "_score": 1.0}]}})
    at.text_input(key="w:rd_search_try_query").set_value("別の質問").run()
    at.button(key="svc_try").click().run()
    assert list(at.dataframe[0].value["In the corpus?"]) == ["not found", "in the corpus"]
    assert "2 results**, 1 in the corpus" in _everything(at)


def test_a_path_matching_nothing_is_said_with_the_replys_keys(service):
    at = _http_form(service)
    at.text_input(key="w:rd_search_ids").set_value("hits.items[*].id").run()
    at.button(key="svc_try").click().run()
    said = plain(" ".join(e.value for e in at.error))
    assert "hits.items[*].id matches nothing" in said and "took, timed_out" in said
    assert '"_shards"' in at.code[1].value  # the reply is shown to compare with


def test_a_run_of_the_service_is_saved_without_its_key(sample, service):
    at = _http_form(service)
    at.number_input(key="w:rd_query_limit").set_value(20).run()
    assert "nothing is embedded or paid" in texts(at)
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    (summary,) = get_store().list()
    run = get_store().load(summary.id)
    assert run.config["retriever"] == "http" and run.config["api_key_set"] is True
    assert KEY not in json.dumps(run.config) and len(run.query_ids) == 20
    assert run.resources["latency_probe"]["requests"] == 20
    # the ranking is what the service answered
    q = sample.evaluated_queries(1)[0]
    assert list(run.ranking.get(q.id)[0]) == [d for d, _ in service.answered[q.text]]


def test_a_template_that_is_not_json_stops_start_with_one_sentence(service):
    at = _http_form(service, request='{"query": "{query}", "size": {k},}')
    said = texts(at)
    assert "not JSON" in said and "line 1, column" in said
    assert at.button(key="run_start").disabled and at.button(key="svc_try").disabled


PYTHON_SETUP = textwrap.dedent("""\
    dataset = "sample:jsquad-mini"
    limit_queries = 10

    [retriever]
    kind = "python"
    entry = "{path}:search"
    concurrency = 2
    """)

SEARCH_PY = """\
def search(query, k):
    return [{"id": "a0p0", "score": 1.0}, {"id": "a0p1", "score": 0.5}][:k]
"""


def test_the_python_kind_shows_its_example_then_runs_from_a_loaded_setup_file(
        tmp_path, monkeypatch):
    at = open_sample(new_app())
    open_page(at, "run")
    at.radio(key="w:rd_retriever").set_value("python").run()
    assert 'kind = "python"' in at.code[0].value  # the setup-file example
    assert at.button(key="run_start").disabled
    (tmp_path / "search.py").write_text(SEARCH_PY)
    at.file_uploader(key="run_setup_file").set_value(
        [("mine.toml", PYTHON_SETUP.format(path=tmp_path / "search.py").encode(),
          "application/toml")]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="w:rd_retriever").value == "python"
    assert "search.py:search" in texts(at)
    # AppTest's server listens on no loopback address: the entry is refused there ...
    assert "RAGDASH_APP_ENTRIES=1" in texts(at) and at.button(key="run_start").disabled
    # ... unless the operator allows it
    monkeypatch.setenv("RAGDASH_APP_ENTRIES", "1")
    at.run()
    assert not at.button(key="run_start").disabled
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    (summary,) = get_store().list()
    run = get_store().load(summary.id)
    assert run.config["retriever"] == "python"
    assert list(run.ranking.get(run.query_ids[0])[0]) == ["a0p0", "a0p1"]


def test_an_http_setup_file_fills_the_section(service):
    at = open_sample(new_app())
    open_page(at, "run")
    setup = (f'dataset = "sample:jsquad-mini"\n[retriever]\nkind = "http"\n'
             f'url = "{service.url("es")}"\nrequest = {json.dumps(ES_REQUEST)}\n'
             f'ids = "{ES_PATHS["ids"]}"\nconcurrency = 3\napi_key_env = "SEARCH_KEY"\n')
    at.file_uploader(key="run_setup_file").set_value(
        [("es.toml", setup.encode(), "application/toml")]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="w:rd_retriever").value == "http"
    assert at.text_input(key="w:rd_search_url").value == service.url("es")
    assert at.text_area(key="w:rd_search_request").value == ES_REQUEST
    assert at.text_input(key="w:rd_search_ids").value == ES_PATHS["ids"]
    assert at.number_input(key="w:rd_search_concurrency").value == 3
    assert "api_key_env = SEARCH_KEY" in texts(at)  # named: the key is typed here


def test_a_chroma_collection_is_an_existing_index_on_the_run_page(sample, tmp_path):
    """The engine section offers Chroma: its folder under RAGDASH_HOME by default, HNSW only
    for an ANN test, and a deployed collection (vectors given) evaluated to a saved run."""
    from app_support import custom_server
    from fake_openai import FakeOpenAI

    from ragdash.retrieval.dense import make_dense_retriever
    from ragdash.retrieval.engines import IndexSpec, open_engine

    with FakeOpenAI(dim=16) as server:
        dense = make_dense_retriever("openai", model="fake-embed", base_url=server.url,
                                     cache_dir=tmp_path / "cache")
        (vecs,) = dense.embed_groups([("documents", "", sample.doc_texts())])
        engine = open_engine("chroma", str(tmp_path / "chroma"))
        engine.create("docs", 16, IndexSpec("hnsw"))
        engine.insert("docs", sample.doc_ids, vecs)
        engine.close()
        at = open_sample(new_app())
        custom_server(at, server.url, model="fake-embed").run()
        at.radio(key="w:rd_engine_mode").set_value("ann").run()
        at.selectbox(key="w:rd_engine_kind").set_value("chroma").run()
        assert at.text_input(key="w:rd_engine_uri").value.endswith("chroma")
        assert at.selectbox(key="w:rd_engine_index").options == ["hnsw", "default"]
        at.radio(key="w:rd_engine_mode").set_value("engine").run()
        at.text_input(key="w:rd_engine_uri").set_value(str(tmp_path / "chroma"))
        at.text_input(key="w:rd_engine_collection").set_value("docs")
        at.number_input(key="w:rd_query_limit").set_value(10).run()
        at.button(key="run_start").click().run()
        (job,) = wait_for_jobs(at)
        assert job.state == "done", job.error
    (summary,) = get_store().list()
    run = get_store().load(summary.id)
    assert run.config["retriever"] == "chroma" and run.config["collection"] == "docs"
    assert run.usage["unmapped_ids"] == 0 and len(run.query_ids) == 10
