"""Bad input never escapes as a traceback: a DatasetError names the file, the line or record,
and what to do. One row per malformed input, with a readable id."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ragdash.errors import DatasetError
from ragdash.loaders import load_dataset, load_qrels, load_tables, load_uploads

ARTICLE_OK = {"corpus": ["a", "b"], "queries": [{"query": "x", "relevant_docs": [0]}]}
CORPUS = '{"_id": "d1", "title": "", "text": "one"}\n{"_id": "d2", "title": "", "text": "two"}\n'
QUERIES = '{"_id": "q1", "text": "first"}\n'
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"


def zip_bytes(files: dict[str, str | bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in files.items():
            zf.writestr(name, content.encode() if isinstance(content, str) else content)
    return buf.getvalue()


def beir(corpus=CORPUS, queries=QUERIES, qrels=QRELS, split="test") -> dict[str, str | bytes]:
    return {"corpus.jsonl": corpus, "queries.jsonl": queries, f"qrels/{split}.tsv": qrels}


@dataclass
class Case:
    id: str
    files: dict[str, str | bytes]          # written under tmp_path
    call: str                              # dataset | qrels | tables | uploads
    target: str = ""                       # the path given to the loader (relative)
    expect: list[str] = field(default_factory=list)  # substrings of the message
    kwargs: dict = field(default_factory=dict)


def j(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


CASES = [
    # -- the article's JSON -----------------------------------------------------------------
    Case("json-truncated", {"a.json": '{\n  "corpus": ["a", "b"],\n  "queries": [\n'},
         "dataset", "a.json", ["a.json", "line 4", "not valid JSON"]),
    Case("json-missing-comma", {"a.json": '{"corpus": ["a" "b"], "queries": []}'},
         "dataset", "a.json", ["a.json", "line 1", "column 17"]),
    Case("json-empty-file", {"a.json": ""}, "dataset", "a.json", ["a.json", "empty"]),
    Case("json-top-level-list", {"a.json": "[1, 2, 3]"}, "dataset", "a.json",
         ["a.json", "a list, not an object with corpus and queries"]),
    Case("json-no-queries-key", {"a.json": j({"corpus": ["a"]})}, "dataset", "a.json",
         ["a.json", "'queries' is missing"]),
    Case("json-corpus-is-dict", {"a.json": j({"corpus": {"0": "a"}, "queries": []})},
         "dataset", "a.json", ["a.json", "record corpus", "corpus is an object"]),
    Case("json-queries-not-list", {"a.json": j({"corpus": ["a"], "queries": {"query": "x"}})},
         "dataset", "a.json", ["a.json", "queries is an object"]),
    Case("json-corpus-item-number", {"a.json": j({"corpus": ["a", 7], "queries": [{}]})},
         "dataset", "a.json", ["a.json", "record corpus[1]", "not a string"]),
    Case("json-query-not-object", {"a.json": j({"corpus": ["a"], "queries": ["x"]})},
         "dataset", "a.json", ["a.json", "record queries[0]", "not an object"]),
    Case("json-query-without-text",
         {"a.json": j({"corpus": ["a"], "queries": [{"relevant_docs": [0]}]})},
         "dataset", "a.json", ["a.json", "record queries[0]", "no \"query\""]),
    Case("json-relevant-out-of-range",
         {"a.json": j({"corpus": ["a", "b"], "queries": [
             {"query": "x", "relevant_docs": [0]}, {"query": "y", "relevant_docs": [1, 5]}]})},
         "dataset", "a.json", ["a.json", "record queries[1].relevant_docs[1]", "out of range",
                               "positions 0 to 1"]),
    Case("json-relevant-not-int",
         {"a.json": j({"corpus": ["a"], "queries": [{"query": "x", "relevant_docs": ["doc"]}]})},
         "dataset", "a.json", ["a.json", "queries[0].relevant_docs[0]", "not a document position"]),
    Case("json-relevant-bool",
         {"a.json": j({"corpus": ["a"], "queries": [{"query": "x", "relevant_docs": [True]}]})},
         "dataset", "a.json", ["a.json", "not a document position"]),
    Case("json-relevant-docs-dict",
         {"a.json": j({"corpus": ["a"], "queries": [{"query": "x", "relevant_docs": {"0": 1}}]})},
         "dataset", "a.json", ["a.json", "relevant_docs is an object, not a list"]),
    Case("json-grade-non-numeric",
         {"a.json": j({"corpus": ["a"], "queries": [
             {"query": "x", "relevant_docs": [0], "relevance_scores": {"0": "high"}}]})},
         "dataset", "a.json", ["a.json", "queries[0].relevance_scores['0']", "'high'",
                               "not a number"]),
    Case("json-grade-nan",
         {"a.json": '{"corpus": ["a"], "queries": [{"query": "x", "relevant_docs": [0], '
                    '"relevance_scores": {"0": NaN}}]}'},
         "dataset", "a.json", ["a.json", "relevance_scores['0']", "not a number"]),
    Case("json-score-key-out-of-range",
         {"a.json": j({"corpus": ["a"], "queries": [
             {"query": "x", "relevant_docs": [0], "relevance_scores": {"3": 1}}]})},
         "dataset", "a.json", ["a.json", "relevance_scores['3']", "out of range"]),
    Case("json-duplicate-key",
         {"a.json": '{"corpus": ["a"], "corpus": ["b"], "queries": []}'},
         "dataset", "a.json", ["a.json", "'corpus' twice"]),
    Case("json-not-a-dataset-object", {"a.json": j({"qrels": {}})}, "dataset", "a.json",
         ["a.json", "without corpus and queries (keys: 'qrels')"]),
    # -- encodings ----------------------------------------------------------------------------
    Case("latin1-bytes", beir(corpus=CORPUS.encode() + '{"_id": "d3", "text": "café"}\n'
                              .encode("latin-1")),
         "dataset", "", ["corpus.jsonl", "line 3", "not UTF-8", "Save the file as UTF-8"]),
    Case("shift-jis-after-utf8-start",
         beir(corpus=(j({"_id": "d1", "text": "日本語" * 120_000}) + "\n").encode()
              + '{"_id": "d3", "text": "日本語のテキスト"}\n'.encode("cp932")),
         "dataset", "", ["corpus.jsonl", "line 2", "looks like Shift_JIS", "UTF-8"]),
    Case("utf8-japanese-with-one-bad-byte",
         beir(corpus='{"_id": "d1", "text": "日本語のテキスト"}\n'.encode() + b'{"_id": "d2", '
              b'"text": "\xe3\x81"}\n' + '{"_id": "d3", "text": "もう一つ"}\n'.encode()),
         "dataset", "", ["corpus.jsonl", "line 2", "not UTF-8"]),
    Case("utf16-without-bom", {"corpus.csv": "id,text\nd1,x\n".encode("utf-16-le"),
                               "queries.csv": "id,text\nq1,y\n", "qrels.csv": "qid,docid\nq1,d1\n"},
         "dataset", "", ["corpus.csv", "line 1", "not a text file"]),
    Case("bom-and-unknown-columns",
         {"corpus.csv": "\ufeffdoc,words\nd1,x\n", "queries.csv": "id,text\nq1,y\n",
          "qrels.csv": "qid,docid\nq1,d1\n"},
         "dataset", "", ["corpus.csv", "no column for the corpus id", "'doc', 'words'"]),
    Case("binary-file-as-table",
         {"corpus.csv": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
          "queries.csv": "id,text\nq1,y\n", "qrels.csv": "qid,docid\nq1,d1\n"},
         "dataset", "", ["corpus.csv", "not a text file"]),
    # -- JSON Lines ---------------------------------------------------------------------------
    Case("jsonl-line-not-object", beir(corpus=CORPUS + "[1, 2]\n"), "dataset", "",
         ["corpus.jsonl", "line 3", "a list, not a JSON object"]),
    Case("jsonl-bad-json", beir(queries=QUERIES + '{"_id": "q2", "text": "x"\n'), "dataset",
         "", ["queries.jsonl", "line 2", "not valid JSON"]),
    Case("jsonl-missing-text", beir(corpus=CORPUS + '{"_id": "d3", "title": "t"}\n'),
         "dataset", "", ["corpus.jsonl", "line 3", "no 'text'"]),
    Case("jsonl-id-is-object", beir(corpus=CORPUS + '{"_id": {"a": 1}, "text": "t"}\n'),
         "dataset", "", ["corpus.jsonl", "line 3", "document id is an object"]),
    Case("jsonl-empty-id", beir(queries='{"_id": "  ", "text": "x"}\n'), "dataset", "",
         ["queries.jsonl", "line 1", "query id is empty"]),
    Case("jsonl-text-is-list", beir(corpus='{"_id": "d1", "text": ["a"]}\n'), "dataset", "",
         ["corpus.jsonl", "line 1", "document text is a list"]),
    # -- BEIR folders and zips ----------------------------------------------------------------
    Case("beir-split-missing", beir(split="dev"), "dataset", "",
         ["no qrels for split 'test'", "available splits: dev"]),
    Case("beir-no-qrels", {"corpus.jsonl": CORPUS, "queries.jsonl": QUERIES}, "dataset", "",
         ["no qrels file found"]),
    Case("empty-corpus-file", beir(corpus=""), "dataset", "", ["corpus.jsonl", "empty"]),
    Case("duplicate-doc-ids",
         beir(corpus=CORPUS + '{"_id": "d1", "title": "", "text": "another"}\n'),
         "dataset", "", ["corpus.jsonl", "'d1' appears twice on line 1 and line 3",
                         "different text", "unique id"]),
    Case("zip-without-corpus",
         {"data.zip": zip_bytes({"queries.jsonl": QUERIES, "qrels/test.tsv": QRELS})},
         "dataset", "data.zip", ["data.zip", "no corpus file found", "queries.jsonl"]),
    Case("corrupt-zip", {"data.zip": b"PK\x03\x04" + b"\x00garbage" * 10}, "dataset",
         "data.zip", ["data.zip", "not a readable .zip"]),
    Case("truncated-zip", {"data.zip": zip_bytes(beir())[:150]}, "dataset", "data.zip",
         ["data.zip", "not a readable .zip"]),
    Case("zip-two-datasets",
         {"two.zip": zip_bytes({**{f"a/{k}": v for k, v in beir().items()},
                                **{f"b/{k}": v for k, v in beir().items()}})},
         "dataset", "two.zip", ["two.zip", "several datasets"]),
    Case("corrupt-gzip", {"corpus.jsonl.gz": b"\x1f\x8b\x08\x00garbage",
                          "queries.jsonl": QUERIES, "qrels/test.tsv": QRELS},
         "dataset", "", ["corpus.jsonl.gz", "cannot read the gzip file"]),
    # -- CSV / TSV tables ---------------------------------------------------------------------
    Case("csv-missing-text-column",
         {"c.csv": "id,foo\nd1,x\n", "q.csv": "id,text\nq1,y\n", "r.csv": "qid,docid\nq1,d1\n"},
         "tables", "", ["c.csv", "no column for the corpus text", "'id', 'foo'"]),
    Case("csv-missing-qrels-doc-column",
         {"c.csv": "id,text\nd1,x\n", "q.csv": "id,text\nq1,y\n", "r.csv": "qid,grade\nq1,1\n"},
         "tables", "", ["r.csv", "no column for the qrels document id"]),
    Case("csv-extra-field",
         {"c.csv": "id,text\nd1,fine\nd2,an, unquoted comma\n", "q.csv": "id,text\nq1,y\n",
          "r.csv": "qid,docid\nq1,d1\n"},
         "tables", "", ["c.csv", "line 3", "3 fields but the header has 2"]),
    Case("csv-unterminated-quote",
         {"c.csv": 'id,text\nd1,x\nd2,"never closed\nd3,y\n', "q.csv": "id,text\nq1,y\n",
          "r.csv": "qid,docid\nq1,d1\n"},
         "tables", "", ["c.csv", "line 3", "double quotes"]),
    Case("csv-header-only",
         {"c.csv": "id,text\n", "q.csv": "id,text\nq1,y\n", "r.csv": "qid,docid\nq1,d1\n"},
         "tables", "", ["c.csv", "header but no rows"]),
    Case("csv-duplicate-query-ids",
         {"c.csv": "id,text\nd1,x\n", "q.csv": "id,text\nq1,y\nq2,z\nq1,other\n",
          "r.csv": "qid,docid\nq1,d1\n"},
         "tables", "", ["q.csv", "'q1' appears twice on line 2 and line 4"]),
    Case("mapping-names-missing-column",
         {"c.csv": "id,text\nd1,x\n", "q.csv": "id,text\nq1,y\n", "r.csv": "qid,docid\nq1,d1\n"},
         "tables", "", ["c.csv", "'本文'", "no such column"],
         {"mapping": {"corpus": {"text": "本文"}}}),
    # -- qrels ---------------------------------------------------------------------------------
    Case("qrels-non-numeric-grade", {"r.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\n"
                                              "q1\td2\thigh\n"},
         "qrels", "r.tsv", ["r.tsv", "line 3", "'high' is not a number"]),
    Case("qrels-nan-grade", {"r.tsv": "q1\td1\t1\nq1\td2\tnan\n"}, "qrels", "r.tsv",
         ["r.tsv", "line 2", "'nan' is not a number"]),
    Case("qrels-empty-grade", {"r.csv": "qid,docid,rel\nq1,d1,\n"}, "qrels", "r.csv",
         ["r.csv", "line 2", "'' is not a number"]),
    Case("qrels-conflicting-grades",
         {"r.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t1\nq1\td1\t2\n"},
         "qrels", "r.tsv", ["r.tsv", "line 4", "twice with different grades", "1 on line 2"]),
    Case("trec-qrels-wrong-column-count", {"q.qrels": "q1 0 d1 1\nq1 0 d2\n"}, "qrels",
         "q.qrels", ["q.qrels", "line 2", "expected 4 columns"]),
    Case("trec-run-given-as-qrels", {"run.txt": "q1 Q0 d1 1 0.9 bm25\n"}, "qrels", "run.txt",
         ["run.txt", "line 1", "TREC run file"]),
    Case("qrels-empty", {"r.tsv": "\n\n"}, "qrels", "r.tsv", ["r.tsv", "empty"]),
    Case("qrels-json-not-object-rows", {"r.json": j({"q1": [1, 2]})}, "qrels", "r.json",
         ["r.json", "not an object"]),
    # -- single files and paths ---------------------------------------------------------------
    Case("excel-workbook", {"data.xlsx": b"PK\x03\x04 not really"}, "dataset", "data.xlsx",
         ["data.xlsx", "Excel", "CSV UTF-8"]),
    Case("single-table", {"corpus.csv": "id,text\nd1,x\n"}, "dataset", "corpus.csv",
         ["corpus.csv", "looks like the corpus", "one part of a dataset"]),
    Case("no-such-path", {}, "dataset", "missing.json", ["missing.json", "no such file"]),
    # -- uploads -------------------------------------------------------------------------------
    Case("upload-zip-with-others", {"data.zip": zip_bytes(beir()), "x.csv": "id,text\n"},
         "uploads", "", ["data.zip", "on its own"]),
    Case("upload-only-qrels", {"test.tsv": QRELS}, "uploads", "",
         ["test.tsv", "looks like the qrels", "one part of a dataset"]),
]


def run(case: Case, tmp_path: Path):
    for rel, content in case.files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    if case.call == "dataset":
        return load_dataset(tmp_path / case.target, **case.kwargs)
    if case.call == "qrels":
        return load_qrels(tmp_path / case.target)
    if case.call == "tables":
        return load_tables(tmp_path / "c.csv", tmp_path / "q.csv", tmp_path / "r.csv",
                           **case.kwargs)
    if case.call == "uploads":
        return load_uploads([(rel, (tmp_path / rel).read_bytes()) for rel in case.files],
                            **case.kwargs)
    raise AssertionError(case.call)


def test_the_table_is_large_enough():
    assert len(CASES) >= 25
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed_input_raises_a_dataset_error(case: Case, tmp_path: Path):
    with pytest.raises(DatasetError) as info:
        run(case, tmp_path)
    message = str(info.value)
    for part in case.expect:
        assert part in message, f"{part!r} not in {message!r}"
    assert "\n" not in message
    assert info.value.fix, "every error says what to do"
    assert message.rstrip().endswith(".")


def test_no_upload_at_all():
    with pytest.raises(DatasetError, match="no file was uploaded"):
        load_uploads([])


def test_an_error_carries_file_and_line_as_attributes(tmp_path: Path):
    (tmp_path / "r.tsv").write_text("q1\td1\t1\nq1\td2\tx\n", encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        load_qrels(tmp_path / "r.tsv")
    assert info.value.file == str(tmp_path / "r.tsv")
    assert info.value.line == 2


def test_gzip_truncated_mid_stream(tmp_path: Path):
    data = gzip.compress(("\n".join(j({"_id": f"d{i}", "text": "x" * 50}) for i in range(2000))
                          + "\n").encode())
    for rel, content in beir().items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content, encoding="utf-8")
    (tmp_path / "corpus.jsonl").unlink()
    (tmp_path / "corpus.jsonl.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(DatasetError, match=r"corpus\.jsonl\.gz.*cannot read the gzip file"):
        load_dataset(tmp_path)
