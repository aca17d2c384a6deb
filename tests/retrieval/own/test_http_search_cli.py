"""``--retriever http``: a search service on the command line and in a setup file —
``evaluate``, ``run SETUP.toml`` and ``check QRELS BASELINE setup.toml`` — against a real
Elasticsearch-shaped server on 127.0.0.1 (tests/fake_search.py, ragdash's BM25 over the sample):
its metrics equal pytrec_eval's on what the service returned, the key goes from the
environment to its header and nowhere else (not the JSON, not the saved run), and a service
that cannot answer is one sentence with exit code 2."""

from __future__ import annotations

import json

import pytest
import pytrec_eval
from paths import ROOT

from ragdash.cli import main
from ragdash.samples import load_sample
from tests.fake_search import ES_PATHS, ES_REQUEST, FakeSearch, fast_backoff  # noqa: F401

SAMPLE = ROOT / "ragdash" / "data" / "samples" / "jsquad-mini"
QRELS = SAMPLE / "qrels" / "test.tsv"
N = 25
KEY = "sk-search-test-0123456789"


@pytest.fixture(scope="module")
def sample():
    return load_sample("jsquad-mini")


@pytest.fixture
def service(sample):
    with FakeSearch(sample, key=KEY, key_header="X-Api-Key") as s:
        yield s


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SEARCH_KEY", KEY)
    return tmp_path / "home"


def _flags(service):
    return ["--retriever", "http", "--url", service.url("es"), "--request", ES_REQUEST,
            "--ids", ES_PATHS["ids"], "--scores", ES_PATHS["scores"],
            "--api-key-env", "SEARCH_KEY", "--api-key-header", "X-Api-Key",
            "--concurrency", "4", "--limit-queries", str(N)]


def _pytrec_ndcg(sample, answered) -> float:
    queries = sample.evaluated_queries(N)
    run = {q.id: dict(answered[q.text]) or {"__none__": 0.0} for q in queries}
    qrels = {q.id: {d: int(g) for d, g in sample.qrels[q.id].items()} for q in queries}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
    return sum(v["ndcg_cut_10"] for v in got.values()) / len(got)


def test_evaluate_a_search_service_with_its_key_from_the_environment(sample, service, home,
                                                                    capsys):
    code = main(["evaluate", str(SAMPLE), *_flags(service), "--format", "json", "--store"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["metrics"]["ndcg@10"] == pytest.approx(_pytrec_ndcg(sample, service.answered),
                                                         abs=1e-9)
    assert report["retriever"]["retriever"] == "http"
    assert report["retriever"]["api_key_set"] is True
    assert {r["headers"].get("X-Api-Key") for r in service.requests} == {KEY}
    assert KEY not in out and KEY not in err
    for f in home.rglob("*"):  # the saved run, the answers kept for a restart
        if f.is_file():
            assert KEY.encode() not in f.read_bytes(), f


def test_a_setup_file_reruns_it_and_check_gates_it(sample, service, tmp_path, capsys):
    setup = tmp_path / "search.toml"
    setup.write_text(
        f'dataset = "{SAMPLE}"\nlimit_queries = {N}\nk = [10]\n\n[retriever]\nkind = "http"\n'
        f'url = "{service.url("es")}"\nrequest = {json.dumps(ES_REQUEST)}\n'
        f'ids = "{ES_PATHS["ids"]}"\nscores = "{ES_PATHS["scores"]}"\n'
        f'api_key_env = "SEARCH_KEY"\napi_key_header = "X-Api-Key"\n', encoding="utf-8")
    assert main(["run", str(setup), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    want = _pytrec_ndcg(sample, service.answered)
    assert report["metrics"]["ndcg@10"] == pytest.approx(want, abs=1e-9)
    # the same service as baseline (a TREC file from evaluate) and as candidate (the setup):
    # nothing regressed
    baseline = tmp_path / "base.trec"
    assert main(["evaluate", str(SAMPLE), *_flags(service), "--save-run", str(baseline)]) == 0
    capsys.readouterr()
    code = main(["check", str(QRELS), str(baseline), str(setup), "--metric", "ndcg@10",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert KEY not in out and KEY not in err


def test_a_service_that_cannot_answer_is_one_sentence(sample, service, tmp_path, capsys,
                                                      monkeypatch):
    # every query answered with HTML: asked again once, then the run is refused
    service.fault("html", times=1000)
    code = main(["evaluate", str(SAMPLE), *_flags(service)])
    err = capsys.readouterr().err
    assert code == 2 and "HTML page" in err and "Traceback" not in err
    service.clear_faults()
    # a template that is not JSON: said before anything is sent
    before = len(service.requests)
    flags = _flags(service)
    flags[flags.index("--request") + 1] = '{"query": "{query}", "size": {k},}'
    assert main(["evaluate", str(SAMPLE), *flags]) == 2
    err = capsys.readouterr().err
    assert "not JSON" in err and "line 1, column" in err and len(service.requests) == before
    # a key variable not set, for a service on another machine
    monkeypatch.delenv("SEARCH_KEY")
    assert main(["evaluate", str(SAMPLE), "--retriever", "http", "--url",
                 "https://search.example.invalid/docs/_search", "--ids", "hits.hits[*]._id",
                 "--api-key-env", "SEARCH_KEY"]) == 2
    err = capsys.readouterr().err
    assert "SEARCH_KEY" in err and "Traceback" not in err
    # a flag of the http kind given to another kind
    assert main(["evaluate", str(SAMPLE), "--ids", "hits.hits[*]._id"]) == 2
    assert "--retriever http" in capsys.readouterr().err


def _docs_setups() -> list[tuple[str, dict]]:
    """The ``kind = "http"`` setup files of docs/own-retriever.md, each with the heading it
    sits under."""
    import tomllib

    page = (ROOT / "docs" / "own-retriever.md").read_text(encoding="utf-8")
    out, heading, block = [], "", None
    for line in page.splitlines():
        if block is None and line.startswith("#"):
            heading = line.lstrip("# ").strip()
        elif block is None and line.startswith("```toml"):
            block = []
        elif block is not None and line.startswith("```"):
            raw = tomllib.loads("\n".join(block))
            if raw["retriever"]["kind"] == "http":
                out.append((heading, raw))
            block = None
        elif block is not None:
            block.append(line)
    return out


def test_every_http_setup_file_in_the_docs_runs_against_a_service_of_its_shape(
        sample, tmp_path, capsys, monkeypatch):
    """The docs' setup files, pointed at a real server of the shape each names (its host
    replaced by 127.0.0.1), give the same ranking as the service returned."""
    from urllib.parse import urlsplit

    setups = _docs_setups()
    assert {h for h, _ in setups} >= {"Elasticsearch", "OpenSearch", "Vespa", "A custom API"}
    for var in ("ES_API_KEY", "OPENSEARCH_AUTH", "VESPA_TOKEN", "SEARCH_KEY"):
        monkeypatch.setenv(var, "Basic dGVzdDp0ZXN0")
    with FakeSearch(sample) as svc:
        for heading, raw in setups:
            retriever = dict(raw["retriever"])
            parts = urlsplit(retriever["url"])
            retriever["url"] = retriever["url"].replace(
                f"{parts.scheme}://{parts.netloc}", svc.root)
            setup = tmp_path / "docs.toml"
            lines = [f'dataset = "{SAMPLE}"', "limit_queries = 5", "k = [10]", "",
                     "[retriever]"]
            lines += [f"{k} = {json.dumps(v)}" for k, v in retriever.items()]
            setup.write_text("\n".join(lines) + "\n", encoding="utf-8")
            code = main(["run", str(setup), "--format", "json"])
            out, err = capsys.readouterr()
            assert code == 0, (heading, err)
            query = sample.evaluated_queries(1)[0]
            got = json.loads(out)
            assert got["queries"] == 5, heading
            assert svc.requests[-1]["method"] == retriever.get("method", "POST"), heading
            assert query.text in svc.answered, heading
