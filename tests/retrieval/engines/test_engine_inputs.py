"""A deployed collection met as users meet it: ids that name no document of the dataset are
counted and five of them named, in the JSON and in the table output (real Qdrant local mode;
vectors from the fake OpenAI server on 127.0.0.1)."""

from __future__ import annotations

import json

import pytest

from ragdash.cli import main
from ragdash.retrieval.engines import open_engine
from tests.fake_openai import FakeOpenAI
from tests.retrieval.engines.test_engines import _dataset, _dense, _index_dataset


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
