"""Vector engines met as users meet them: ids that name no document of the dataset are
counted and five of them named, in the JSON and in the table output (real Qdrant local mode;
vectors from the fake OpenAI server on 127.0.0.1); a Milvus Lite file held by another process,
a damaged store and a file that is no store are one sentence each, with the library's own
logging off stderr unless --verbose (real milvus-lite, real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ragdash.cli import main
from ragdash.retrieval.engines import open_engine
from tests.fake_openai import FakeOpenAI
from tests.paths import ROOT
from tests.retrieval.engines.test_engines import _dataset, _dense, _index_dataset

SAMPLE = ROOT / "ragdash" / "data" / "samples" / "jsquad-mini"


@pytest.fixture
def server():
    with FakeOpenAI(dim=16) as s:
        yield s


def _beir(ds, folder):
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": d.id, "title": "", "text": d.text}) + "\n" for d in ds.documents))
    (folder / "queries.jsonl").write_text("".join(
        json.dumps({"_id": q.id, "text": q.text}) + "\n" for q in ds.queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t1\n" for q, docs in ds.qrels.items() for d in docs))
    return folder


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_unmapped_collection_ids_are_counted_and_five_are_named(server, tmp_path, capsys,
                                                                fmt):
    ds = _dataset(n_docs=40, n_queries=8)
    uri = str(tmp_path / "qdrant")
    engine = open_engine("qdrant", uri)
    try:
        _index_dataset(engine, "docs", ds, _dense(server, tmp_path), extra=40)
    finally:
        engine.close()
    folder = _beir(ds, tmp_path / "beir")
    code = main(["evaluate", str(folder), "--retriever", "qdrant", "--uri", uri,
                 "--collection", "docs", "--id-field", "doc_id", "--embedder", "openai",
                 "--model", "fake-embed", "--base-url", server.url, "--k", "10",
                 "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 0, err
    if fmt == "json":
        report = json.loads(out)
        assert report["unmapped_ids"] >= 8 * 3  # a stranger twin beside every document
        examples = report["unmapped_examples"]
        assert len(examples) == 5 and all(e.startswith("stranger-") for e in examples)
    else:
        (said,) = [line for line in err.splitlines() if "not in the dataset" in line]
        count = int(said.split("note: ")[1].split(" hits")[0].replace(",", ""))
        assert count >= 8 * 3 and "doc_id" in said
        assert len([w for w in said.split() if w.startswith("'stranger-")]) == 5


# -- Milvus Lite files that cannot be opened (real milvus-lite, real processes) -----------------
HOLD = """
import sys
from pymilvus import MilvusClient
client = MilvusClient(sys.argv[1])
print("ready", flush=True)
sys.stdin.read()
"""


MAKE = """
import sys
from pymilvus import MilvusClient
client = MilvusClient(sys.argv[1])
client.create_collection("docs", dimension=4)
client.insert("docs", [{"id": i, "vector": [0.1 * i, 0.2, 0.3, 0.4]} for i in range(5)])
client.close()
"""


def _evaluate_milvus(uri, *extra):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RAGDASH_VERBOSE", None)
    return subprocess.run(
        [sys.executable, "-m", "ragdash", *extra, "evaluate", str(SAMPLE), "--retriever",
         "milvus", "--uri", str(uri), "--collection", "docs", "--id-field", "doc_id",
         "--embedder", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=180)


def test_a_milvus_lite_file_held_by_another_process_is_said_in_one_line(tmp_path):
    uri = tmp_path / "held.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(uri)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        quiet = _evaluate_milvus(uri)
        loud = _evaluate_milvus(uri, "--verbose")
    finally:
        holder.communicate("", timeout=60)
    assert quiet.returncode == 2 and quiet.stderr.count("\n") == 1, quiet.stderr
    assert "open in another process" in quiet.stderr and "Traceback" not in quiet.stderr
    # asked for, the library's own lines are there too
    assert loud.returncode == 2 and "DataDirLockedError" in loud.stderr
    assert "open in another process" in loud.stderr


def test_damaged_milvus_lite_stores_are_one_line_without_the_librarys_traceback(tmp_path):
    good = tmp_path / "good.db"
    subprocess.run([sys.executable, "-c", MAKE, str(good)], check=True, timeout=120,
                   capture_output=True)  # another process: Milvus Lite keeps a file it opened
    (good / "collections" / "docs" / "schema.json").write_text("{not json")
    damaged = _evaluate_milvus(good)
    assert damaged.returncode == 2 and damaged.stderr.count("\n") == 1, damaged.stderr
    assert "schema.json" in damaged.stderr and "Traceback" not in damaged.stderr
    garbage = tmp_path / "old.db"
    garbage.write_bytes(bytes(range(256)) * 8)  # a file where Milvus Lite keeps a folder
    other = _evaluate_milvus(garbage)
    assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
    assert "not a Milvus Lite store" in other.stderr
