"""Dense retrieval in bounded memory: the documents' vectors written once to a
memory-mapped .npy under RAGDASH_HOME, searched from there.

- the streaming search over a memory-mapped file gives the in-RAM search's top K exactly
  (ties included) on random data;
- a memory test: peak RSS of a search over a memory-mapped file does not grow with the file
  (subprocesses, ``resource``);
- the vector file's life: written by the first run, opened by the next (no request, same
  ranking), keyed by the embedding config and the dataset fingerprint, float16 on request,
  a damaged or cancelled file rebuilt, removed by ``cache clear``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from fake_openai import fake_server_fixture  # noqa: F401

from ragdash import Dataset, Document, Query
from ragdash.cli import main
from ragdash.embeddings.cache import Namespace, VectorFile, clear_vector_files, vector_files
from ragdash.errors import Cancelled
from ragdash.retrieval.cosine import faiss_available, top_k_cosine
from ragdash.retrieval.dense import make_dense_retriever
from tests.paths import ROOT

BACKENDS = ["numpy"] + (["faiss"] if faiss_available() else [])


def _random_with_ties(n: int, d: int, seed: int) -> np.ndarray:
    """Random vectors where a third of the rows repeat earlier ones (exact ties), some
    scaled (same cosine, other norm), and a few zero rows."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    dup = rng.choice(n, n // 3, replace=False)
    src = rng.choice(n // 4, n // 3)
    x[dup] = x[src] * rng.choice([1.0, 2.0, 0.5], size=(len(dup), 1)).astype(np.float32)
    x[rng.choice(n, 5, replace=False)] = 0
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_memory_mapped_search_is_the_in_ram_search(tmp_path, backend, dtype):
    docs = _random_with_ties(5000, 24, seed=3).astype(dtype)
    rng = np.random.default_rng(4)
    queries = np.vstack([rng.standard_normal((30, 24)), docs[:10].astype(np.float64)])
    doc_ids = [f"doc-{(i * 7919) % 5000:05d}" for i in range(5000)]  # ids not in row order
    path = tmp_path / "v.npy"
    np.save(path, docs)
    mapped = np.load(path, mmap_mode="r")
    assert isinstance(mapped, np.memmap)
    for k, chunk in ((10, 333), (100, 1024), (7, None)):
        ram_i, ram_s = top_k_cosine(queries, docs, k, backend=backend, doc_ids=doc_ids,
                                    chunk_size=chunk)
        map_i, map_s = top_k_cosine(queries, mapped, k, backend=backend, doc_ids=doc_ids,
                                    chunk_size=chunk)
        np.testing.assert_array_equal(map_i, ram_i)
        np.testing.assert_array_equal(map_s, ram_s)
    # the ties are really there: repeated rows share a score inside the top K
    assert any(len(np.unique(row)) < len(row) for row in ram_s[30:])


_PEAK = r"""
import resource, sys
import numpy as np
from ragdash.retrieval.cosine import top_k_cosine
docs = np.load(sys.argv[1], mmap_mode="r")
q = np.random.default_rng(1).standard_normal((1000, docs.shape[1])).astype(np.float32)
idx, _ = top_k_cosine(q, docs, 10, backend=sys.argv[2])
assert (idx >= 0).all()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def _write_vectors(path, n, d, seed):
    """A float32 .npy of n x d unit vectors (as the retriever writes them), written a block
    at a time (this process stays small)."""
    rng = np.random.default_rng(seed)
    ns = Namespace("test", "mem", None)
    vf = VectorFile(path, ns, f"{n}")
    writer = vf.writer(n, d)
    for lo in range(0, n, 50_000):
        block = rng.standard_normal((min(50_000, n - lo), d)).astype(np.float32)
        writer.append(block / np.linalg.norm(block, axis=1, keepdims=True))
    writer.commit()
    return vf.path


def _peak_rss(path, backend) -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _PEAK, str(path), backend], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    return int(out.stdout.split()[-1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_peak_rss_of_a_memory_mapped_search_does_not_grow_with_the_corpus(tmp_path, backend):
    # both above one 64 MB block of the search (131,072 rows of 128 float32), so the fixed
    # scratch buffers are the same size in both
    small = _write_vectors(tmp_path / "small", 150_000, 128, seed=1)   # 77 MB
    large = _write_vectors(tmp_path / "large", 750_000, 128, seed=2)   # 384 MB
    grown = _peak_rss(large, backend) - _peak_rss(small, backend)
    file_growth = large.stat().st_size - small.stat().st_size
    # what may grow: norms, tie keys (16 B per document of 512 B); without releasing the
    # mapped pages the whole file would be resident (growth ~ 1.0 x file_growth), and
    # without releasing the pages the near-tie rescoring reads at random (1,000 queries),
    # about half of it
    assert grown < 0.2 * file_growth, (grown, file_growth)


# -- the dense retriever's vector file ------------------------------------------------------
def _dataset(n_docs=40, n_queries=8, seed=0, change=None):
    rng = np.random.default_rng(seed)
    words = ["梅雨", "東京", "river", "model", "検索", "embedding", "雨", "city", "評価"]
    docs = [Document(f"d{i:03d}", " ".join(rng.choice(words, 5)) + f" {i}")
            for i in range(n_docs)]
    if change is not None:
        docs[change] = Document(docs[change].id, docs[change].text + " changed")
    queries = [Query(f"q{i}", " ".join(rng.choice(words, 3))) for i in range(n_queries)]
    qrels = {q.id: {docs[i].id: 1.0} for i, q in enumerate(queries)}
    return Dataset(docs, queries, qrels, name="toy")


def _dense(server, home, **kw):
    kw.setdefault("batch_size", 8)
    return make_dense_retriever("openai", model=kw.pop("model", "emb-vf"), base_url=server.url,
                                api_key="sk-test-vf", cache_dir=home, **kw)


def test_the_first_run_writes_the_file_and_the_next_reads_it(fake_server, tmp_path,
                                                            monkeypatch):
    from ragdash.retrieval import dense as dense_module

    monkeypatch.setattr(dense_module, "FILE_CHUNK_DOCS", 16)  # three chunks of documents
    ds = _dataset()
    first = _dense(fake_server, tmp_path)
    events = []
    a = first.rank(ds, ds.queries, 5, progress=events.append)
    docs_events = [e for e in events if e["stage"] == "documents"]
    assert docs_events[-1]["done"] == docs_events[-1]["total"] == 40
    assert all(e["total"] == 40 for e in docs_events)
    assert [e["done"] for e in docs_events] == sorted(e["done"] for e in docs_events)
    [info] = vector_files(tmp_path)
    assert info["rows"] == 40 and info["dim"] == fake_server.dim and info["dtype"] == "float32"
    assert info["model"] == "emb-vf" and info["dataset"] == ds.fingerprint()
    on_disk = np.load(info["path"])
    assert on_disk.shape == (40, fake_server.dim)
    np.testing.assert_allclose(np.linalg.norm(on_disk, axis=1), 1.0, rtol=1e-6)

    requests = len(fake_server.embedding_requests)
    second = _dense(fake_server, tmp_path)
    assert isinstance(second.document_vectors(ds), np.memmap)
    b = second.rank(ds, ds.queries, 5)
    assert len(fake_server.embedding_requests) == requests  # nothing embedded again
    assert second.usage["cached_texts"] >= 40
    for qid in a.query_ids:
        assert list(a.get(qid)[0]) == list(b.get(qid)[0])
        np.testing.assert_array_equal(a.get(qid)[1], b.get(qid)[1])
    # the file holds the same vectors the SQLite cache does (the in-RAM path, no file)
    (ram,) = second.embed_groups([("documents", "", ds.doc_texts())])
    np.testing.assert_array_equal(second.document_vectors(ds), ram)


def test_a_changed_dataset_or_config_gets_its_own_file(fake_server, tmp_path):
    ds = _dataset()
    _dense(fake_server, tmp_path).rank(ds, ds.queries, 5)
    served = len(fake_server.served)
    changed = _dataset(change=3)
    _dense(fake_server, tmp_path).rank(changed, changed.queries, 5)
    assert fake_server.served[served:] == [changed.documents[3].text]  # only what changed
    _dense(fake_server, tmp_path, document_prefix="passage: ").rank(ds, ds.queries, 5)
    files = vector_files(tmp_path)
    assert len(files) == 3
    assert {f["dataset"] for f in files} == {ds.fingerprint(), changed.fingerprint()}
    assert {f["prefix"] for f in files} == {"", "passage: "}


def test_float16_on_request(fake_server, tmp_path):
    ds = _dataset()
    exact = _dense(fake_server, tmp_path).rank(ds, ds.queries, 5)
    half = _dense(fake_server, tmp_path, vector_dtype="float16")
    run = half.rank(ds, ds.queries, 5)
    assert half.config()["vector_dtype"] == "float16"
    assert "vector_dtype" not in _dense(fake_server, tmp_path).config()
    assert {f["dtype"] for f in vector_files(tmp_path)} == {"float32", "float16"}
    assert half.document_vectors(ds).dtype == np.float16
    agree = np.mean([exact.get(q)[0][0] == run.get(q)[0][0] for q in exact.query_ids])
    assert agree >= 0.75
    with pytest.raises(Exception, match="float32 or float16"):
        _dense(fake_server, tmp_path, vector_dtype="int8")


def test_a_damaged_file_is_rebuilt_from_the_cache(fake_server, tmp_path):
    ds = _dataset()
    a = _dense(fake_server, tmp_path).rank(ds, ds.queries, 5)
    [info] = vector_files(tmp_path)
    with open(info["path"], "r+b") as f:
        f.truncate(200)
    requests = len(fake_server.embedding_requests)
    b = _dense(fake_server, tmp_path).rank(ds, ds.queries, 5)
    assert len(fake_server.embedding_requests) == requests  # rebuilt from SQLite, not paid
    assert [list(a.get(q)[0]) for q in a.query_ids] == [list(b.get(q)[0]) for q in b.query_ids]
    assert np.load(info["path"]).shape == (40, fake_server.dim)


def test_a_cancelled_build_leaves_no_file_and_keeps_what_was_paid(fake_server, tmp_path,
                                                                 monkeypatch):
    from ragdash.retrieval import dense as dense_module

    monkeypatch.setattr(dense_module, "FILE_CHUNK_DOCS", 16)
    ds = _dataset()
    cancel = threading.Event()

    def progress(event):
        if event["stage"] == "documents" and event["done"] >= 16:
            cancel.set()

    with pytest.raises(Cancelled):
        _dense(fake_server, tmp_path).rank(ds, ds.queries, 5, progress=progress, cancel=cancel)
    assert vector_files(tmp_path) == []
    assert not list((tmp_path / "vectors").glob(".*.tmp"))
    served = len(fake_server.served)
    assert served >= 16
    _dense(fake_server, tmp_path).rank(ds, ds.queries, 5)
    assert len(fake_server.served) - served <= 40 + 8 - 16  # the first chunk was not paid again


def test_cache_clear_removes_the_vector_files(fake_server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path))
    ds = _dataset()
    _dense(fake_server, tmp_path).rank(ds, ds.queries, 5)
    _dense(fake_server, tmp_path, model="emb-other").rank(ds, ds.queries, 5)
    assert main(["cache", "info", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert sorted(f["model"] for f in shown["vector_files"]) == ["emb-other", "emb-vf"]
    assert main(["cache", "clear", "--model", "emb-other"]) == 0
    assert "Deleted 1 vector files of model 'emb-other'" in capsys.readouterr().out
    assert [f["model"] for f in vector_files(tmp_path)] == ["emb-vf"]
    assert main(["cache", "clear"]) == 0
    assert vector_files(tmp_path) == [] and clear_vector_files(tmp_path) == (0, 0)


def test_the_command_line_asks_for_float16(fake_server, tmp_path, capsys, monkeypatch):
    ds = _dataset()
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": d.id, "title": "", "text": d.text}, ensure_ascii=False) + "\n"
        for d in ds.documents), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(
        json.dumps({"_id": q.id, "text": q.text}, ensure_ascii=False) + "\n"
        for q in ds.queries), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t1\n" for q, docs in ds.qrels.items() for d in docs))
    home = tmp_path / "home"
    monkeypatch.setenv("RAGDASH_HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-vf-cli")
    args = ["evaluate", str(folder), "--retriever", "openai", "--model", "emb-cli",
            "--base-url", fake_server.url, "--format", "json"]
    assert main([*args, "--vector-dtype", "float16"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["queries"] == 8
    [info] = vector_files(home)
    assert info["dtype"] == "float16" and info["rows"] == 40
    assert main(["evaluate", str(folder), "--vector-dtype", "float16"]) == 2
    assert "--vector-dtype applies only to --retriever openai" in capsys.readouterr().err


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_norms_stored_with_the_file_are_the_searchs_own(tmp_path, backend):
    # written in chunks with ties, scaled copies and zero rows: the stored 1/|d| are the very
    # numbers the search computes, so the top k (ties by doc id) is the same either way
    docs = _random_with_ties(3000, 16, seed=5)
    vf = VectorFile(tmp_path, Namespace("u", "m", 16), "fp")
    w = vf.writer(len(docs), 16)
    for lo in range(0, len(docs), 700):
        w.append(docs[lo:lo + 700])
    w.commit()
    mapped = vf.open(len(docs))
    stored = vf.inverse_norms(len(docs))
    from ragdash.retrieval.cosine import _inverse_norms

    assert stored is not None and stored.tobytes() == _inverse_norms(docs).tobytes()
    rng = np.random.default_rng(6)
    queries = np.vstack([rng.standard_normal((20, 16)), docs[:5]])
    ids = [f"d{(i * 37) % 3000:04d}" for i in range(3000)]
    with_norms = top_k_cosine(queries, mapped, 50, backend=backend, doc_ids=ids,
                              doc_inverse_norms=stored)
    without = top_k_cosine(queries, docs, 50, backend=backend, doc_ids=ids)
    assert np.array_equal(with_norms[0], without[0])
    assert np.array_equal(with_norms[1], without[1])
    assert vf.remove() and not vf.norms_path.exists()


def test_a_vector_file_without_norms_still_loads_and_gets_them(fake_server, tmp_path):
    # a file written before norms were stored: the first search computes them once and
    # saves them beside it; the ranking is the same
    ds = _dataset()
    first = _dense(fake_server, tmp_path).rank(ds, ds.queries, 10)
    vf = _dense(fake_server, tmp_path).vector_file(ds)
    stored = vf.inverse_norms(40)
    vf.norms_path.unlink()
    second = _dense(fake_server, tmp_path).rank(ds, ds.queries, 10)
    assert second.to_dict() == first.to_dict()
    assert vf.inverse_norms(40).tobytes() == stored.tobytes()
