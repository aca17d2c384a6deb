"""``python -m ragdash frontier``: saved run ids and run JSON files, through a real run store
and the command line in a subprocess; the figures agree with ragdash.stats on the same runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from fake_openai import FakeOpenAI
from paths import JSQUAD, ROOT

from ragdash.loaders import load_dataset
from ragdash.pipeline import run_evaluation
from ragdash.retrieval import make_retriever
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.retrieval.sweep import sweep
from ragdash.runs import RunStore
from ragdash.runs.exchange import export_json
from ragdash.stats import build_frontier


def ragdash(*args, home):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGDASH_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "ragdash", "frontier", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    ds = load_dataset(JSQUAD)
    store = RunStore(home)
    bm25 = run_evaluation(ds, make_retriever("bm25"), kmax=20, limit_queries=120)
    ids = [store.save(bm25)]
    with FakeOpenAI(dim=16) as server:
        retriever = make_dense_retriever("openai", model="text-embedding-3-small",
                                         base_url=server.url, cache_dir=home)
        result = sweep(ds, retriever, dims=[8, None], precisions=["float32", "int8"], kmax=20,
                       limit_queries=120)
    ids.append(store.save(result.parent))
    ids.extend(store.save(r) for r in result.runs())
    return home, store, ids


def test_json_over_saved_runs_agrees_with_the_python_api(stored):
    home, store, ids = stored
    proc = ragdash(*ids, "--x", "memory", "--format", "json", home=home)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    expected = build_frontier([store.load(i) for i in ids], metric="ndcg@10", x="memory")
    assert out["x"] == "memory" and out["unit"] == "bytes" and out["queries"] == 120
    # the full-size float32 sweep point ranks exactly as its parent: one point, said
    assert [p["run_id"] for p in out["points"]] == [p.run_id for p in expected.points]
    assert len(out["points"]) == len(ids) - 1 and len(out["merged"]) == 1
    for got, want in zip(out["points"], expected.points):
        assert set(got) >= {"run", "x", "y", "ci_low", "ci_high", "pareto",
                            "indistinguishable_from_best"}
        assert got["x"] == want.x and got["y"] == pytest.approx(want.y, abs=1e-12)
        assert got["pareto"] == want.pareto
        assert got["indistinguishable_from_best"] == want.indistinguishable_from_best
    # BM25 is the best on this set; the memory of each point follows its transform
    assert out["points"][0]["best"] is True
    by_id = {p["run_id"]: p for p in out["points"]}
    int8_8 = next(i for i in ids[2:] if store.load(i).resources["dimensions"] == 8
                  and store.load(i).resources["precision"] == "int8")
    assert by_id[int8_8]["x"] == 1145 * 8 + 4 * 8
    assert out["sentence"] == expected.recommendation("en")
    assert out["sentence_ja"] == expected.recommendation("ja")


def test_table_output_in_japanese_and_projection(stored):
    home, _, ids = stored
    proc = ragdash(*ids[:3], "--x", "memory", "--project-to", 10_000_000, "--lang", "ja",
                   home=home)
    assert proc.returncode == 0, proc.stderr
    assert "at 10,000,000" in proc.stdout and "nDCG@10" in proc.stdout
    assert any("\u3040" <= ch <= "\u30ff" for ch in proc.stdout)  # the Japanese sentence


def test_run_json_files_work_like_ids(stored, tmp_path):
    home, store, ids = stored
    files = []
    for i in ids[:2]:
        path = tmp_path / f"{i}.json"
        path.write_bytes(export_json(store.load(i), include_dataset=True))
        files.append(path)
    by_file = json.loads(ragdash(*files, "--format", "json", home=tmp_path / "empty").stdout)
    by_id = json.loads(ragdash(*ids[:2], "--format", "json", home=home).stdout)
    assert [p["y"] for p in by_file["points"]] == pytest.approx([p["y"] for p in
                                                                 by_id["points"]])
    assert by_file["sentence"] == by_id["sentence"]


@pytest.mark.parametrize("args,needle", [
    (["nosuchrun1"], "no run 'nosuchrun1'"),
    (["missing/file.json"], "no such file"),
    (["RUN", "--x", "weight"], "invalid choice"),
])
def test_bad_input_is_one_line(stored, args, needle):
    home, _, ids = stored
    args = [ids[0] if a == "RUN" else a for a in args]
    proc = ragdash(*args, home=home)
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr
