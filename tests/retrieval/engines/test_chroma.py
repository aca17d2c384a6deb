"""Chroma as a vector engine, a real part: ``chromadb.PersistentClient`` in a temporary folder,
collections made with the vectors given (no embedding function, no model download).

Query vectors come from the fake OpenAI server on 127.0.0.1 (deterministic per text), so the
exact ranking ragdash computes is known and Chroma's answers are checked against it; the
command line (``evaluate --retriever chroma --path DIR --collection NAME``, ``index --engine
chroma``) and a setup file run the same collection.
"""

from __future__ import annotations

import json

import chromadb
import numpy as np
import pytest

from ragdash.cli import main
from ragdash.errors import EngineError
from ragdash.pipeline import run_evaluation
from ragdash.retrieval.engines import EngineRetriever, IndexSpec, open_engine
from tests.fake_openai import FakeOpenAI
from tests.retrieval.engines.test_engine_inputs import _beir
from tests.retrieval.engines.test_engines import _dataset, _dense


@pytest.fixture
def server():
    with FakeOpenAI(dim=16) as s:
        yield s


def _client(path):
    from chromadb.config import Settings

    return chromadb.PersistentClient(path=str(path),
                                     settings=Settings(anonymized_telemetry=False))


def _deploy(path, name, dataset, dense, *, space="cosine", chunks=False):
    """A collection as a team would have made it with chromadb itself: record ids of its own,
    the document id in the metadata (two chunks per document with ``chunks``)."""
    (vecs,) = dense.embed_groups([("documents", "", dataset.doc_texts())])
    client = _client(path)
    col = client.create_collection(name, configuration={"hnsw": {"space": space}},
                                   embedding_function=None)
    ids, metas, rows = [], [], []
    for i, doc in enumerate(dataset.doc_ids):
        ids.append(f"rec-{i}")
        metas.append({"doc_id": doc, "lang": "ja" if i % 2 else "en"})
        rows.append(vecs[i])
        if chunks:  # a second, weaker chunk of the same document
            ids.append(f"rec-{i}-b")
            metas.append({"doc_id": doc, "lang": "ja" if i % 2 else "en"})
            rows.append(0.5 * vecs[i] + 0.5 * vecs[(i + 1) % len(vecs)])
    col.add(ids=ids, embeddings=np.asarray(rows, dtype=np.float32), metadatas=metas)
    return vecs


def _same_ranking(a, b):
    for qid in a.query_ids:
        a_ids, a_scores = a.ranking.get(qid)
        b_ids, b_scores = b.ranking.get(qid)
        assert list(b_ids) == list(a_ids), qid
        np.testing.assert_allclose(b_scores, a_scores, atol=1e-5)


@pytest.mark.parametrize("space", ["cosine", "ip", "l2"])
def test_a_deployed_collection_ranks_as_exact_search_in_every_space(server, tmp_path, space):
    ds = _dataset(n_docs=60, n_queries=8)
    dense = _dense(server, tmp_path)
    _deploy(tmp_path / "chroma", "docs", ds, dense, space=space)
    engine = open_engine("chroma", str(tmp_path / "chroma"))
    try:
        deployed = run_evaluation(ds, EngineRetriever(engine, "docs", id_field="doc_id",
                                                      queries=dense), kmax=10)
    finally:
        engine.close()
    exact = run_evaluation(ds, dense, kmax=10)
    # cosine and ip give 1 - distance; l2 (squared, normalized vectors) 1 - d/2: the cosine
    _same_ranking(exact, deployed)
    assert deployed.usage["unmapped_ids"] == 0
    assert deployed.config["retriever"] == "chroma"


def test_record_ids_chunks_and_a_filter(server, tmp_path):
    ds = _dataset(n_docs=40, n_queries=6)
    dense = _dense(server, tmp_path)
    _deploy(tmp_path / "chroma", "chunks", ds, dense, chunks=True)
    engine = open_engine("chroma", str(tmp_path / "chroma"))
    try:
        (qvecs,) = dense.embed_groups([("queries", "", [q.text for q in ds.queries])])
        # the record id itself: "id"
        got = engine.search("chunks", qvecs, 5, vector_field="", id_field="id")
        assert all(i.startswith("rec-") for row in got.ids for i in row)
        # chunks fold to their document's first (best) rank
        folded = run_evaluation(ds, EngineRetriever(engine, "chunks", id_field="doc_id",
                                                    queries=dense), kmax=10)
        for qid in folded.query_ids:
            docs = list(folded.ranking.get(qid)[0])
            assert len(docs) == len(set(docs))
        # a filter: only the Japanese half (odd rows), both in field=value and JSON forms
        for where in ("lang=ja", '{"lang": "ja"}'):
            got = engine.search("chunks", qvecs, 10, vector_field="", id_field="doc_id",
                                filter=where)
            odd = {d for i, d in enumerate(ds.doc_ids) if i % 2}
            assert got.ids[0] and all(d in odd for row in got.ids for d in row)
        with pytest.raises(EngineError, match="not a Chroma where clause"):
            engine.search("chunks", qvecs, 5, vector_field="", id_field="doc_id",
                          filter="lang")
    finally:
        engine.close()


def test_what_cannot_be_searched_is_one_sentence(server, tmp_path):
    ds = _dataset(n_docs=20, n_queries=2)
    dense = _dense(server, tmp_path)
    _deploy(tmp_path / "chroma", "docs", ds, dense)
    engine = open_engine("chroma", str(tmp_path / "chroma"))
    try:
        with pytest.raises(EngineError, match=r"no collection 'nope' \(it has: docs\)"):
            engine.describe("nope")
        with pytest.raises(EngineError, match="one embedding per record"):
            engine.describe("docs", "dense_vec")
        engine.create("empty", 16, IndexSpec("default"))
        with pytest.raises(EngineError, match="holds no records"):
            engine.describe("empty")
        with pytest.raises(EngineError, match="HNSW only, not flat"):
            engine.create("flat", 16, IndexSpec("flat"))
        wide = EngineRetriever(engine, "docs", id_field="doc_id",
                               queries=_dense(server, tmp_path))
        assert engine.describe("docs").dimension == 16
        engine.create("wide", 32, IndexSpec("hnsw"))
        engine.insert("wide", ds.doc_ids, np.eye(20, 32, dtype=np.float32))
        wide.collection = "wide"
        with pytest.raises(EngineError, match=r"32-dimension vectors but .* gives 16"):
            run_evaluation(ds, wide, kmax=5)
    finally:
        engine.close()
    with pytest.raises(EngineError, match="opens a local folder"):
        open_engine("chroma", "http://localhost:8000")
    (tmp_path / "file").write_text("x")
    with pytest.raises(EngineError, match="is a file, not a folder"):
        open_engine("chroma", str(tmp_path / "file"))


def test_command_line_and_setup_file_evaluate_a_chroma_collection(server, tmp_path, capsys):
    ds = _dataset(n_docs=40, n_queries=8)
    dense = _dense(server, tmp_path)
    _deploy(tmp_path / "chroma", "docs", ds, dense)
    folder = _beir(ds, tmp_path / "beir")
    flags = ["--retriever", "chroma", "--path", str(tmp_path / "chroma"), "--collection",
             "docs", "--id-field", "doc_id", "--model", "fake-embed", "--base-url", server.url,
             "--k", "10"]
    assert main(["evaluate", str(folder), *flags, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    exact = run_evaluation(ds, dense, kmax=100)
    assert report["metrics"]["ndcg@10"] == pytest.approx(exact.table().mean("ndcg@10"))
    assert report["retriever"]["retriever"] == "chroma"
    assert report["unmapped_ids"] == 0
    # without --id-field the Chroma record id is the id: none is a document of the dataset
    flags_ids = [f for f in flags if f not in ("--id-field", "doc_id")]
    assert main(["evaluate", str(folder), *flags_ids, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["retriever"]["id_field"] == "id" and report["unmapped_ids"] > 0
    setup = tmp_path / "setup.toml"
    setup.write_text(
        f'dataset = "{folder}"\nk = [10]\n[retriever]\nkind = "chroma"\n'
        f'uri = "{tmp_path / "chroma"}"\ncollection = "docs"\nid_field = "doc_id"\n'
        f'model = "fake-embed"\nbase_url = "{server.url}"\n')
    assert main(["run", str(setup), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metrics"]["ndcg@10"] == pytest.approx(exact.table().mean("ndcg@10"))


def test_index_builds_a_chroma_collection_and_measures_it(server, tmp_path, capsys):
    ds = _dataset(n_docs=60, n_queries=8)
    folder = _beir(ds, tmp_path / "beir")
    code = main(["index", str(folder), "--engine", "chroma", "--path",
                 str(tmp_path / "chroma"), "--index", "hnsw", "--embedder", "openai",
                 "--model", "fake-embed", "--base-url", server.url, "--kmax", "20",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    # 60 vectors in HNSW with ef 64: the graph search finds the exact top 10
    assert report["ann_recall@10"] == pytest.approx(1.0)
    assert report["engine"]["engine"] == "chroma"
    code = main(["index", str(folder), "--engine", "chroma", "--path",
                 str(tmp_path / "chroma"), "--index", "ivf", "--embedder", "openai",
                 "--model", "fake-embed", "--base-url", server.url])
    err = capsys.readouterr().err
    assert code != 0 and "HNSW only, not ivf" in err and "Traceback" not in err
