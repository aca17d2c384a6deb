"""``python -m ragdash rerank``: a BM25 run on the bundled sample, reranked through real HTTP
servers on 127.0.0.1 (tests/fake_rerank.py); request counts, the cache, JSON, key rules."""

from __future__ import annotations

import json

import pytest
from fake_rerank import FakeRerank
from paths import ROOT

from ragdash.cli import main

SAMPLE = str(ROOT / "ragdash" / "data" / "samples" / "jsquad-mini")
Q = 20


@pytest.fixture(scope="module")
def bm25_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "bm25.run"
    assert main(["evaluate", SAMPLE, "--limit-queries", str(Q), "--kmax", "60", "--k", "1,10",
                 "--save-run", str(path), "--format", "json"]) == 0
    return path


def _json(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_q_requests_for_q_queries_then_none_on_a_rerun(bm25_run, capsys, tmp_path):
    saved = tmp_path / "reranked.run"
    with FakeRerank("tei") as server:
        argv = ["rerank", SAMPLE, str(bm25_run), "--model", "bge-reranker", "--base-url",
                server.url, "--depth", "50", "--format", "json", "--limit-queries", str(Q),
                "--save-run", str(saved)]
        first = _json(capsys, argv)
        assert len(server.requests) == Q  # exactly one request per query
        assert all(len(r.documents) == 50 for r in server.requests)
        again = _json(capsys, argv)
        assert len(server.requests) == Q  # the rerun: none
    assert first["usage"]["requests"] == Q
    assert first["usage"]["pairs_scored"] == Q * 50
    assert first["usage"]["cached_pairs"] == 0
    assert again["usage"]["requests"] == 0 and again["usage"]["cached_pairs"] == Q * 50
    assert again["metrics"] == first["metrics"]
    assert set(first["metrics"]) == set(first["first_stage_metrics"])
    assert first["metrics"] != first["first_stage_metrics"]  # the order did change
    assert first["reranker"]["protocol"] == "tei" and first["depth"] == 50
    # the saved run scores to the same numbers
    qrels = str(ROOT / "ragdash" / "data" / "samples" / "jsquad-mini" / "qrels" / "test.tsv")
    scored = _json(capsys, ["score", qrels, str(saved), "--format", "json"])
    assert scored["metrics"]["ndcg@10"] == pytest.approx(first["metrics"]["ndcg@10"])


def test_cohere_needs_its_key_from_the_environment(bm25_run, capsys, monkeypatch):
    argv = ["rerank", SAMPLE, str(bm25_run), "--model", "rerank-v3.5", "--base-url",
            "https://api.cohere.com", "--limit-queries", "3"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "COHERE_API_KEY is not set" in err and "Traceback" not in err


def test_estimate_before_and_search_units_after(bm25_run, capsys, monkeypatch):
    monkeypatch.setenv("MY_KEY", "k-123456")
    with FakeRerank("cohere", api_key="k-123456") as server:
        base = ["rerank", SAMPLE, str(bm25_run), "--model", "rerank-v3.5", "--base-url",
                server.url, "--api-key-env", "MY_KEY", "--limit-queries", "5", "--format",
                "json", "--depth", "50"]
        est = _json(capsys, [*base, "--estimate"])
        assert server.requests == []  # an estimate makes no request
        assert est["estimate"]["search_units"] == 5 and est["estimate"]["requests"] == 5
        assert est["estimate"]["usd"] == pytest.approx(5 * 2.00 / 1000)
        out = _json(capsys, base)
        assert len(server.requests) == 5
        assert out["usage"]["search_units"] == 5
        assert out["cost"]["actual"]["usd"] == pytest.approx(0.01)
        est2 = _json(capsys, [*base, "--estimate"])
        assert est2["estimate"]["due_pairs"] == 0 and est2["estimate"]["usd"] == 0
    assert "k-123456" not in json.dumps(out)


def test_bad_server_reply_is_one_line(bm25_run, capsys):
    with FakeRerank("vllm") as server:
        server.fault("nan")
        code = main(["rerank", SAMPLE, str(bm25_run), "--model", "m", "--base-url", server.url,
                     "--limit-queries", "3", "--concurrency", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "NaN or infinite" in err and len(err.strip().splitlines()) == 1


def test_cache_info_and_clear_cover_rerank_scores(bm25_run, capsys):
    with FakeRerank("tei") as server:
        _json(capsys, ["rerank", SAMPLE, str(bm25_run), "--model", "bge-reranker",
                       "--base-url", server.url, "--depth", "10", "--limit-queries", "4",
                       "--format", "json"])
    info = _json(capsys, ["cache", "info", "--format", "json"])
    assert info["rerank"]["rows"] == 40
    assert info["rerank"]["models"][0]["model"] == "bge-reranker"
    assert main(["cache", "clear", "--model", "bge-reranker"]) == 0
    assert "Deleted 40 cached rerank scores" in capsys.readouterr().out
    assert _json(capsys, ["cache", "info", "--format", "json"])["rerank"]["rows"] == 0
