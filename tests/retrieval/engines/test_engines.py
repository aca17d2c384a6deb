"""Vector engines as real parts: Milvus Lite (a local file) and Qdrant's local mode.

Vectors come from the fake OpenAI server on 127.0.0.1 (deterministic per text), so the exact
ranking ragdash computes is known, and an engine's answers can be checked against it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import EngineError
from ragdash.pipeline import run_evaluation
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.retrieval.engines import (
    EngineRetriever,
    IndexSpec,
    ann_experiment,
    open_engine,
)
from ragdash.retrieval.engines.experiment import ann_recall, estimate_index_bytes
from tests.fake_openai import FakeOpenAI
from tests.paths import ROOT


def _dataset(n_docs: int = 300, n_queries: int = 40, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(500)]
    docs = [Document(id=f"d{i:04d}", title="", text=" ".join(rng.choice(words, 12)))
            for i in range(n_docs)]
    queries = [Query(id=f"q{i}", text=" ".join(rng.choice(words, 4))) for i in range(n_queries)]
    qrels = {q.id: {docs[int(j)].id: 1.0 for j in rng.choice(n_docs, 3, replace=False)}
             for q in queries}
    return Dataset(documents=docs, queries=queries, qrels=qrels, name="synthetic")


@pytest.fixture
def server():
    with FakeOpenAI(dim=16) as s:
        yield s


def _dense(server, tmp_path):
    return make_dense_retriever("openai", model="fake-embed", base_url=server.url,
                                cache_dir=tmp_path / "cache")


FLAT = IndexSpec("flat")


def _index_dataset(engine, name, dataset, dense, index=FLAT, extra=0):
    (vecs,) = dense.embed_groups([("documents", "", dataset.doc_texts())])
    ids = list(dataset.doc_ids)
    if extra:  # vectors whose id field names no document of the dataset
        vecs = np.vstack([vecs, vecs[:extra]])
        ids += [f"stranger-{i}" for i in range(extra)]
    engine.create(name, vecs.shape[1], index)
    engine.insert(name, ids, vecs)
    return vecs


@pytest.fixture(params=["milvus", "qdrant"])
def engine(request, tmp_path):
    uri = str(tmp_path / "m.db") if request.param == "milvus" else str(tmp_path / "qdrant")
    e = open_engine(request.param, uri)
    yield e
    e.close()


def test_a_deployed_flat_collection_ranks_as_exact_search(engine, server, tmp_path):
    ds = _dataset()
    dense = _dense(server, tmp_path)
    _index_dataset(engine, "docs", ds, dense)
    exact = run_evaluation(ds, dense, kmax=20)
    deployed = run_evaluation(ds, EngineRetriever(engine, "docs", id_field="doc_id",
                                                  queries=dense), kmax=20)
    for qid in exact.query_ids:
        a_ids, a_scores = exact.ranking.get(qid)
        b_ids, b_scores = deployed.ranking.get(qid)
        assert list(b_ids) == list(a_ids)
        np.testing.assert_allclose(b_scores, a_scores, atol=1e-5)
    assert deployed.table().mean("ndcg@10") == pytest.approx(exact.table().mean("ndcg@10"))
    assert deployed.usage["unmapped_ids"] == 0
    assert deployed.usage["engine_requests"] == 1  # 40 queries, one batch of 64


def test_unmapped_ids_are_counted_and_named_not_dropped_silently(engine, server, tmp_path):
    ds = _dataset(n_docs=50, n_queries=10)
    dense = _dense(server, tmp_path)
    _index_dataset(engine, "docs", ds, dense, extra=50)  # every doc has a stranger twin
    retriever = EngineRetriever(engine, "docs", id_field="doc_id", queries=dense)
    run = run_evaluation(ds, retriever, kmax=10)
    # each twin scores like its document: about half of every top 10 is strangers
    assert retriever.unmapped >= 10 * 3
    assert run.usage["unmapped_ids"] == retriever.unmapped
    assert "stranger-" in retriever.notes[-1] and "left out" in retriever.notes[-1]
    for qid in run.query_ids:
        assert all(not d.startswith("stranger") for d in run.ranking.get(qid)[0])


def test_dimension_mismatch_is_one_sentence(engine, server, tmp_path):
    ds = _dataset(n_docs=20, n_queries=3)
    engine.create("wide", 32, IndexSpec("flat"))
    engine.insert("wide", ds.doc_ids, np.eye(20, 32, dtype=np.float32))
    retriever = EngineRetriever(engine, "wide", id_field="doc_id", queries=_dense(server,
                                                                                 tmp_path))
    with pytest.raises(EngineError, match=r"32-dimension vectors but .* gives 16; use the "
                                          r"embedding model"):
        run_evaluation(ds, retriever, kmax=5)
    # the query vectors were paid for and are cached: a second try makes no request
    before = len(server.embedding_requests)
    with pytest.raises(EngineError):
        run_evaluation(ds, retriever, kmax=5)
    assert len(server.embedding_requests) == before


def test_missing_collection_names_what_exists(engine):
    engine.create("present", 4, IndexSpec("flat"))
    with pytest.raises(EngineError, match=r"no collection 'absent' \(it has: present\); "
                                          r"check --collection"):
        engine.describe("absent")


def test_unreachable_milvus_server_is_one_sentence_without_the_token():
    with pytest.raises(EngineError) as info:
        e = open_engine("milvus", "http://127.0.0.1:9", token="tok-secret-123", timeout=2)
        e.describe("docs")
    msg = str(info.value)
    assert "milvus at http://127.0.0.1:9" in msg and "check the URI" in msg
    assert "tok-secret-123" not in msg and "\n" not in msg


def test_unreachable_qdrant_server_is_one_sentence_without_the_key():
    e = open_engine("qdrant", "http://127.0.0.1:9", token="key-secret-456", timeout=2)
    with pytest.raises(EngineError) as info:
        e.describe("docs")
    msg = str(info.value)
    assert msg.startswith("qdrant at http://127.0.0.1:9: listing collections failed")
    assert "key-secret-456" not in msg


def test_aggressive_ivf_in_milvus_lite_loses_recall_and_hnsw_keeps_it(server, tmp_path):
    ds = _dataset(n_docs=2000, n_queries=60)
    dense = _dense(server, tmp_path)
    engine = open_engine("milvus", str(tmp_path / "ann.db"))
    ivf = ann_experiment(ds, dense, engine, IndexSpec("ivf", nlist=64, nprobe=1), kmax=20)
    hnsw = ann_experiment(ds, dense, engine, IndexSpec("hnsw", m=16, ef_construction=200,
                                                       ef=64), kmax=20)
    engine.close()
    assert ivf.recall_at_k < 0.9  # 1 of 64 clusters searched
    assert hnsw.recall_at_k > ivf.recall_at_k
    assert ann_recall(ivf.exact.ranking, ivf.exact.ranking, 10) == 1.0
    # the exact run is ragdash's own top-k: identical to the dense retriever's ranking
    direct = run_evaluation(ds, dense, kmax=20)
    assert ivf.exact.table().mean("ndcg@10") == pytest.approx(direct.table().mean("ndcg@10"))
    # the ANN run is derived from the exact one and says how
    assert ivf.ann.config["transform"]["index"] == {"kind": "ivf", "nlist": 64, "nprobe": 1}
    assert ivf.ann.source == "engine"
    assert ivf.index_bytes == estimate_index_bytes(2000, 16, IndexSpec("ivf"))
    assert ivf.latency_ms["p95"] >= ivf.latency_ms["p50"] > 0
    assert 0.0 <= ivf.p_value <= 1.0


def test_qdrant_refuses_ivf_with_advice(tmp_path):
    e = open_engine("qdrant", ":memory:")
    with pytest.raises(EngineError, match="qdrant has no IVF index; use --index hnsw"):
        e.create("x", 4, IndexSpec("ivf"))


def test_index_settings_are_checked():
    with pytest.raises(EngineError, match="unknown index 'annoy'"):
        IndexSpec("annoy")
    with pytest.raises(EngineError, match="ef must be a whole number >= 1"):
        IndexSpec("hnsw", ef=0)


def _cli(*args, env_extra=None, cwd=None):
    import os

    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "ragdash", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT, env=env, timeout=300)


def test_cli_evaluate_a_milvus_collection_and_index_ann(server, tmp_path):
    ds = _dataset(n_docs=300, n_queries=30)
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": d.id, "title": "", "text": d.text}) + "\n" for d in ds.documents))
    (folder / "queries.jsonl").write_text("".join(
        json.dumps({"_id": q.id, "text": q.text}) + "\n" for q in ds.queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t1\n" for q, docs in ds.qrels.items() for d in docs))
    home = tmp_path / "home"
    env = {"RAGDASH_HOME": str(home), "OPENAI_API_KEY": "sk-test-not-real-000000"}
    uri = str(tmp_path / "cli.db")
    common = ["--embedder", "openai", "--model", "fake-embed", "--base-url", server.url,
              "--uri", uri]
    out = _cli("index", str(folder), "--engine", "milvus", "--index", "hnsw", "--M", "8",
               "--collection", "cand", "--format", "json", "--store", *common, env_extra=env)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert 0.5 < report["ann_recall@10"] <= 1.0
    assert set(report["exact"]) >= {"ndcg@10", "recall@100"}
    assert report["index"] == {"kind": "hnsw", "m": 8, "ef_construction": 200, "ef": 64}
    assert report["usage"]["requests"] >= 1 and set(report["run_ids"]) == {"exact", "ann"}
    requests_after_index = len(server.embedding_requests)

    out = _cli("evaluate", str(folder), "--retriever", "milvus", "--collection", "cand",
               "--id-field", "doc_id", "--format", "json", *common, env_extra=env)
    assert out.returncode == 0, out.stderr
    evaluated = json.loads(out.stdout)
    assert evaluated["unmapped_ids"] == 0
    assert evaluated["usage"]["requests"] == 0  # every query vector came from the cache
    assert len(server.embedding_requests) == requests_after_index
    assert evaluated["metrics"]["ndcg@10"] == pytest.approx(report["ann"]["ndcg@10"])

    out = _cli("evaluate", str(folder), "--retriever", "milvus", "--collection", "nope",
               "--id-field", "doc_id", *common, env_extra=env)
    assert out.returncode == 2
    assert "no collection 'nope' (it has: cand)" in out.stderr
    assert "Traceback" not in out.stderr and "sk-test" not in out.stderr

    out = _cli("evaluate", str(folder), "--retriever", "qdrant", "--collection", "x",
               *common, env_extra=env)
    assert out.returncode == 2 and "needs --id-field FIELD" in out.stderr


# -- bad input and faults ------------------------------------------------------------------
def test_a_missing_id_field_is_one_sentence(engine, server, tmp_path):
    ds = _dataset(n_docs=30, n_queries=5)
    dense = _dense(server, tmp_path)
    _index_dataset(engine, "docs", ds, dense)
    retriever = EngineRetriever(engine, "docs", id_field="docid", queries=dense)
    with pytest.raises(EngineError) as info:
        run_evaluation(ds, retriever, kmax=5)
    msg = str(info.value)
    assert "'docid'" in msg and "check --id-field" in msg and "\n" not in msg
    if engine.kind == "milvus":  # a schema: told before searching, with the fields it has
        assert "has no field 'docid' (fields: pk, doc_id, vector)" in msg


def test_a_missing_vector_field_is_one_sentence(engine, server, tmp_path):
    ds = _dataset(n_docs=10, n_queries=2)
    _index_dataset(engine, "docs", ds, _dense(server, tmp_path))
    with pytest.raises(EngineError, match=r"'embedding'.*(vector fields: vector|leave "
                                          r"--vector-field out)"):
        engine.describe("docs", "embedding")


class FakeQdrant:
    """A Qdrant server over HTTP on 127.0.0.1: the REST calls ragdash makes, answered by a
    real Qdrant (local mode, in memory) behind it; ``hang_on_batch`` = n makes the n-th
    batch search wait ``hang_seconds`` before answering (an engine stalling mid-run)."""

    def __init__(self, *, hang_on_batch: int | None = None, hang_seconds: float = 5.0):
        from qdrant_client import QdrantClient

        self.local = QdrantClient(location=":memory:")
        self.hang_on_batch, self.hang_seconds = hang_on_batch, hang_seconds
        self.batches = 0

    def __enter__(self):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, result, status=200):
                body = json.dumps({"result": result, "status": "ok", "time": 0.0}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                parts = self.path.split("?")[0].strip("/").split("/")
                if parts == [""]:
                    body = json.dumps({"title": "qdrant", "version": "1.20.0"}).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif len(parts) == 3 and parts[2] == "exists":
                    self._reply({"exists": fake.local.collection_exists(parts[1])})
                elif len(parts) == 2:
                    info = fake.local.get_collection(parts[1])
                    self._reply(json.loads(info.model_dump_json()))
                else:
                    self._reply(None, 404)

            def do_POST(self):
                import time

                from qdrant_client import models

                n = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(n) or b"{}")
                parts = self.path.split("?")[0].strip("/").split("/")
                name = parts[1]
                if parts[2:] == ["points", "count"]:
                    self._reply({"count": fake.local.count(name, exact=True).count})
                elif parts[2:] == ["points", "query", "batch"]:
                    fake.batches += 1
                    if fake.batches == fake.hang_on_batch:
                        time.sleep(fake.hang_seconds)
                    answers = fake.local.query_batch_points(name, requests=[
                        models.QueryRequest(**s) for s in request["searches"]])
                    self._reply([json.loads(a.model_dump_json()) for a in answers])
                else:
                    self._reply(None, 404)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.local.close()


def test_an_engine_that_stalls_mid_run_is_one_sentence_and_the_vectors_stay_cached(
        server, tmp_path):
    ds = _dataset(n_docs=60, n_queries=12)
    dense = _dense(server, tmp_path)
    with FakeQdrant(hang_on_batch=2, hang_seconds=4.0) as fake:
        from ragdash.retrieval.engines.qdrant import QdrantEngine

        local = QdrantEngine(":memory:")
        local._client = fake.local  # build the collection straight into the served store
        _index_dataset(local, "docs", ds, dense)
        remote = open_engine("qdrant", fake.url, token="qd-secret-789", timeout=1)
        retriever = EngineRetriever(remote, "docs", id_field="doc_id", queries=dense, batch=4)
        with pytest.raises(EngineError) as info:
            run_evaluation(ds, retriever, kmax=5)
        msg = str(info.value)
        assert msg.startswith(f"qdrant at {fake.url}: searching failed (")
        assert "did not answer within 1 s" in msg and "--timeout" in msg
        assert "at queries 5-8 of 12" in msg and "qd-secret-789" not in msg
        assert "\n" not in msg
        from ragdash.i18n import message

        assert message(info.value, "en") == msg
        ja = message(info.value, "ja", app=True)  # the app: Japanese, no --timeout
        assert ja.startswith(f"{fake.url} の qdrant: 検索に失敗しました("), ja
        assert "1 秒以内に応答しませんでした" in ja and "全 12 クエリ中 5-8 件目" in ja, ja
        assert "--timeout" not in ja and "qd-secret-789" not in ja
        # the engine answers again: a second run pays for no query vector
        before = len(server.embedding_requests)
        fake.hang_on_batch = None
        run = run_evaluation(ds, EngineRetriever(remote, "docs", id_field="doc_id",
                                                 queries=dense, batch=4), kmax=5)
        assert len(server.embedding_requests) == before
        assert run.usage["unmapped_ids"] == 0 and run.usage["engine_requests"] == 3
        remote.close()


def test_the_apps_engine_modes_through_make_retriever(server, tmp_path):
    from ragdash.retrieval import make_retriever

    ds = _dataset(n_docs=200, n_queries=20)
    common = {"dense": "openai", "model": "fake-embed", "base_url": server.url,
              "cache_dir": tmp_path / "cache", "engine": "milvus",
              "uri": str(tmp_path / "app.db")}
    ann = make_retriever("ann", **common, index="hnsw", m=8, ef=32)
    run = run_evaluation(ds, ann, kmax=20)
    transform = run.config["transform"]
    assert transform["kind"] == "ann" and transform["index"]["m"] == 8
    assert 0 < transform["ann_recall@10"] <= 1.0 and transform["latency_ms"]["p50"] > 0
    assert run.retriever == "openai:fake-embed (milvus hnsw)"
    exact = run_evaluation(ds, make_retriever("openai", model="fake-embed", base_url=server.url,
                                              cache_dir=tmp_path / "cache"), kmax=20)
    assert [list(ann.exact.get(q)[0]) for q in exact.query_ids] == [
        list(exact.ranking.get(q)[0]) for q in exact.query_ids]
    deployed = make_retriever("engine", **common, collection=transform["collection"],
                              id_field="doc_id")
    again = run_evaluation(ds, deployed, kmax=20)
    assert again.usage["requests"] == 0 and again.usage["unmapped_ids"] == 0
    with pytest.raises(EngineError, match="unknown index 'annoy'"):
        make_retriever("ann", **common, index="annoy")


def test_the_run_page_evaluates_an_existing_index(server, home):
    """AppTest: the Run page's "an existing index" with a Milvus Lite collection deployed
    beforehand; the engine's token stays in the session (never in the run or a file)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from app_support import custom_server, new_app, open_sample, texts, wait_for_jobs

    from ragdash.runs import get_store
    from ragdash.samples import load_sample

    ds = load_sample("jsquad-mini")
    dense = make_dense_retriever("openai", model="fake-embed", base_url=server.url,
                                 cache_dir=home)
    deployed = open_engine("milvus", str(home / "deployed.db"))
    _index_dataset(deployed, "docs", ds, dense)
    deployed.close()

    at = custom_server(open_sample(new_app()), server.url, model="fake-embed",
                       key="sk-app-engine-0000").run()
    at.radio(key="w:rd_engine_mode").set_value("engine").run()
    assert at.button(key="run_start").disabled  # no collection named yet
    assert "Name the collection to evaluate." in texts(at)
    at.text_input(key="w:rd_engine_uri").set_value(str(home / "deployed.db"))
    at.text_input(key="w:rd_engine_collection").set_value("docs")
    at.text_input(key="w:rd_engine_token").set_value("tok-engine-SECRET-42").run()
    assert not at.exception and not at.button(key="run_start").disabled
    at.button(key="run_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    (summary,) = get_store().list()
    run = get_store().load(summary.id)
    assert run.retriever == "milvus:docs" and run.usage["unmapped_ids"] == 0
    assert run.config["collection"] == "docs" and run.config["id_field"] == "doc_id"
    exact = run_evaluation(ds, dense, kmax=run.kmax)
    assert run.table().mean("ndcg@10") == pytest.approx(exact.table().mean("ndcg@10"))
    assert "tok-engine-SECRET-42" not in json.dumps(run.config)
    for path in home.rglob("*"):
        if path.is_file() and path.suffix != ".db":
            assert b"tok-engine-SECRET-42" not in path.read_bytes(), path


def test_engine_errors_are_said_in_japanese_and_the_apps_words_not_flags(engine, tmp_path):
    from ragdash.i18n import message

    engine.create("present", 4, IndexSpec("flat"))
    with pytest.raises(EngineError) as info:
        engine.describe("absent")
    exc = info.value
    assert message(exc, "en") == str(exc) and "check --collection" in str(exc)
    assert message(exc, "en", app=True).endswith("check the collection name")
    ja = message(exc, "ja", app=True)
    assert "コレクション 'absent' がありません(あるもの: present)" in ja, ja
    assert "「コレクション」欄" in ja and "--" not in ja
    assert "--collection" in message(exc, "ja")  # the command line keeps its flag
    with pytest.raises(EngineError) as info:
        open_engine("qdrant", ":memory:").create("x", 4, IndexSpec("ivf"))
    assert message(info.value, "en") == str(info.value)
    assert "--" not in message(info.value, "ja", app=True)
    assert "IVF インデックスがありません" in message(info.value, "ja", app=True)


def test_an_engine_call_that_failed_names_what_in_japanese():
    from ragdash.i18n import CATALOG, message

    with pytest.raises(EngineError) as info:
        e = open_engine("qdrant", "http://127.0.0.1:9", token="key-secret-456", timeout=2)
        e.describe("x")
    exc = info.value
    assert message(exc, "en") == str(exc) and "key-secret-456" not in str(exc)
    ja = message(exc, "ja")
    assert "http://127.0.0.1:9 の qdrant: " in ja and "に失敗しました" in ja, ja
    assert "key-secret-456" not in ja and not re.search(r"\bcheck\b|\bfailed\b", ja), ja
    # every phrase the engines pass to _call/_fail (message ids of what was being done and
    # what to check) has its English and its Japanese
    src = "".join(p.read_text() for p in
                  (ROOT / "ragdash/retrieval/engines").glob("*.py"))
    calls = re.findall(r"(?:_call|_fail)\(\s*\"([^\"]*)\",\s*(?:exc,\s*)?\"([^\"]*)\"", src)
    assert len(calls) >= 20
    for what, hint in calls:
        assert what.startswith("engine.do.") and hint.startswith("engine.check."), (what, hint)
        for said in (what, hint):
            entry = CATALOG[f"msg.{said}"]
            assert entry["en"] and entry["ja"] and not re.search(r"\bcheck\b", entry["ja"])


def test_engine_settings_that_cannot_work_are_said_in_japanese():
    from ragdash.i18n import message

    for make in (lambda: IndexSpec("lsh"), lambda: IndexSpec("hnsw", m=0),
                 lambda: open_engine("faiss", "x")):
        with pytest.raises(EngineError) as info:
            make()
        exc = info.value
        assert exc.msg_id and message(exc, "en") == str(exc)
        ja = message(exc, "ja")
        assert ja != str(exc) and not re.search(r"\b(unknown|must|choose)\b", ja), ja
