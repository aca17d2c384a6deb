"""Property: whatever bytes or JSON a loader is fed, it returns a clean Dataset / Qrels or
raises DatasetError. Never another exception, never ids that are not strings, never a grade
that is not a finite float, and validation of whatever loaded never fails."""

from __future__ import annotations

import io
import json
import math
import tempfile
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragdash.dataset import Dataset
from ragdash.errors import DatasetError
from ragdash.loaders import load_dataset, load_qrels, load_tables, load_uploads
from ragdash.validation import validate

SETTINGS = settings(deadline=None,  # max_examples: the profile (100 by default)
                    suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 20) | st.floats(allow_nan=True)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=25,
)
positions = st.one_of(st.integers(0, 5), st.integers(0, 5), st.integers(-2, 8),
                      st.text(max_size=3), st.floats(), st.booleans())
grades = st.one_of(st.floats(0, 2), st.integers(-2, 3), st.floats(), st.text(max_size=4))
article_query = st.fixed_dictionaries(
    {"query": st.one_of(st.text(max_size=20), st.text(max_size=20), json_values)},
    optional={"relevant_docs": st.one_of(st.lists(positions, max_size=4), json_values),
              "relevance_scores": st.one_of(
                  st.dictionaries(st.one_of(st.integers(-1, 6).map(str), st.text(max_size=3)),
                                  grades, max_size=4),
                  json_values)})
article_like = st.fixed_dictionaries(
    {"corpus": st.one_of(st.lists(st.text(max_size=20), min_size=1, max_size=6),
                         st.lists(st.text(max_size=20), min_size=6, max_size=8), json_values),
     "queries": st.one_of(st.lists(article_query, min_size=1, max_size=4), json_values)})


def mostly(good, bad, one_in: int = 12):
    """``good`` most of the time, ``bad`` about once in ``one_in`` draws."""
    return st.integers(1, one_in).flatmap(lambda i: bad if i == 1 else good)


ids = mostly(st.sampled_from(["d1", "d2", "q1", "q2", "1", "2"]) | st.integers(0, 3),
             st.one_of(st.floats(0, 3), st.text(max_size=3), st.none(), json_values))
texts = mostly(st.text(max_size=12), st.one_of(st.none(), json_values))
records = st.lists(st.fixed_dictionaries({"_id": ids, "text": texts}, optional={"title": texts}),
                   min_size=1, max_size=3)
qrels_rows = st.lists(st.tuples(st.sampled_from(["q1", "1", "0", "d1"]),
                                st.sampled_from(["d1", "d2", "1", "0", "q1"]),
                                st.sampled_from(["1", "2", "0", "0.5", "-1", "x", "", "nan"])),
                      max_size=5)
cells = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
table_text = st.lists(st.lists(cells, min_size=1, max_size=5), max_size=6).flatmap(
    lambda rows: st.sampled_from([",", "\t", " ", ";"]).map(
        lambda sep: "\n".join(sep.join(r) for r in rows)))
blobs = st.one_of(st.binary(max_size=600), table_text.map(str.encode),
                  json_values.map(lambda v: json.dumps(v).encode()),
                  st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))


def check_dataset(ds: Dataset) -> None:
    assert isinstance(ds, Dataset)
    assert all(type(d.id) is str and d.id for d in ds.documents)
    assert all(type(q.id) is str and q.id for q in ds.queries)
    assert all(isinstance(d.text, str) and isinstance(d.title, str) for d in ds.documents)
    check_qrels(ds.qrels, allow_empty_rows=True)
    report = validate(ds, tokens=False)
    json.dumps(report.to_dict(), ensure_ascii=False)
    ds.fingerprint()


def check_qrels(qrels: dict, *, allow_empty_rows: bool = False) -> None:
    for q, row in qrels.items():
        assert type(q) is str and q
        assert allow_empty_rows or row
        for d, g in row.items():
            assert type(d) is str and d
            assert type(g) is float and math.isfinite(g)


def attempt(fn, check) -> None:
    try:
        result = fn()
    except DatasetError as exc:
        assert str(exc)
        return
    check(result)


def zip_of(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


@SETTINGS
@given(data=blobs, ext=st.sampled_from([".json", ".jsonl", ".csv", ".tsv", ".zip", ".txt",
                                        ".qrels", ".gz", ""]))
def test_random_bytes_to_every_single_file_loader(data: bytes, ext: str):
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"file{ext}"
        p.write_bytes(data)
        attempt(lambda: load_dataset(p), check_dataset)
        attempt(lambda: load_qrels(p), check_qrels)
        attempt(lambda: load_uploads([(p.name, data)]), check_dataset)


@SETTINGS
@given(obj=st.one_of(json_values, article_like))
def test_random_json_as_the_article_format(obj):
    text = json.dumps(obj, ensure_ascii=False)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "dataset.json"
        p.write_text(text, encoding="utf-8")
        attempt(lambda: load_dataset(p), check_dataset)
        attempt(lambda: load_qrels(p), check_qrels)
    attempt(lambda: load_uploads([("dataset.json", text.encode())]), check_dataset)


@SETTINGS
@given(corpus=blobs, queries=blobs, qrels=blobs,
       jsonl=st.lists(json_values, max_size=4))
def test_random_beir_folders_and_zips(corpus: bytes, queries: bytes, qrels: bytes, jsonl):
    lines = "\n".join(json.dumps(v) for v in jsonl).encode()
    good_corpus = b'{"_id": "d1", "text": "x"}\n'
    files = {"corpus.jsonl": corpus if jsonl == [] else lines or good_corpus,
             "queries.jsonl": queries, "qrels/test.tsv": qrels}
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "beir"
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        attempt(lambda: load_dataset(root), check_dataset)
        z = Path(d) / "beir.zip"
        z.write_bytes(zip_of({f"beir/{k}": v for k, v in files.items()}))
        attempt(lambda: load_dataset(z), check_dataset)
    attempt(lambda: load_uploads([("beir.zip", zip_of(files))]), check_dataset)
    attempt(lambda: load_uploads([("corpus.jsonl", files["corpus.jsonl"]),
                                  ("queries.jsonl", queries), ("test.tsv", qrels)]),
            check_dataset)


def beir_files(corpus, queries, qrels, header: bool) -> dict[str, bytes]:
    def jsonl(recs):
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs).encode()

    head = "query-id\tcorpus-id\tscore\n" if header else ""
    return {"corpus.jsonl": jsonl(corpus), "queries.jsonl": jsonl(queries),
            "qrels/test.tsv": (head + "".join("\t".join(r) + "\n" for r in qrels)).encode()}


@SETTINGS
@given(corpus=records, queries=records, qrels=qrels_rows, header=st.booleans())
def test_structured_beir_with_random_values(corpus, queries, qrels, header: bool):
    files = beir_files(corpus, queries, qrels, header)
    attempt(lambda: load_uploads([("beir.zip", zip_of(files))]), check_dataset)
    attempt(lambda: load_uploads([("corpus.jsonl", files["corpus.jsonl"]),
                                  ("queries.jsonl", files["queries.jsonl"]),
                                  ("test.tsv", files["qrels/test.tsv"])]), check_dataset)


VALID = beir_files([{"_id": "d1", "title": "題", "text": "日本語の本文"},
                    {"_id": "d2", "text": "text, with \"quotes\""}],
                   [{"_id": "q1", "text": "質問は？"}, {"_id": "q2", "text": "q"}],
                   [("q1", "d1", "2"), ("q2", "d2", "1")], True)


@SETTINGS
@given(which=st.sampled_from(sorted(VALID)), data=st.data())
def test_valid_beir_with_mutated_bytes(which: str, data):
    raw = bytearray(VALID[which])
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        i = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if op == "flip" and raw:
            raw[i] = data.draw(st.integers(0, 255))
        elif op == "insert":
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=3))
        elif op == "delete" and raw:
            del raw[i]
        elif op == "cut":
            del raw[i:]
    files = {**VALID, which: bytes(raw)}
    attempt(lambda: load_uploads([("m.zip", zip_of(files))]), check_dataset)
    with tempfile.TemporaryDirectory() as d:
        for rel, content in files.items():
            (Path(d) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(d) / rel).write_bytes(content)
        attempt(lambda: load_dataset(d), check_dataset)
        if which.startswith("qrels"):
            attempt(lambda: load_qrels(Path(d) / which), check_qrels)


HEADERS = [["id", "text"], ["_id", "title", "text"], ["doc_id", "body"], ["ID", "本文", "title"],
           ["qid", "docid", "score"], ["query-id", "corpus-id", "score"], ["x", "text"]]


@SETTINGS
@given(header=st.one_of(st.sampled_from(HEADERS),
                        st.lists(st.sampled_from(["id", "text", "title", "qid", "docid",
                                                  "score", "x"]), min_size=1, max_size=4)),
       data=st.data(), sep=st.sampled_from([",", "\t"]))
def test_tables_with_plausible_headers(header, data, sep: str):
    cell = st.sampled_from(["d1", "q1", "1", "2", "0.5", "", "a,b", '"', "x\ny", "日本"])
    width = st.sampled_from([len(header)] * 4 + [len(header) + 1, max(1, len(header) - 1)])
    rows = data.draw(st.lists(width.flatmap(lambda w: st.lists(cell, min_size=w, max_size=w)),
                              min_size=1, max_size=4))

    def table(hdr, body):
        return (sep.join(hdr) + "\n" + "".join(sep.join(r) + "\n" for r in body)).encode()

    ext = ".csv" if sep == "," else ".tsv"
    corpus = table(header, rows)
    queries = table(["id", "text"], [["q1", "question"]])
    qrels = table(["qid", "docid", "score"], [["q1", "d1", "1"]])
    attempt(lambda: load_tables(("corpus" + ext, corpus), ("queries" + ext, queries),
                                ("qrels" + ext, qrels)), check_dataset)
    attempt(lambda: load_tables(("corpus" + ext, table(["id", "text"], [["d1", "t"]])),
                                ("queries" + ext, queries), ("qrels" + ext, corpus)),
            check_dataset)


@SETTINGS
@given(corpus=blobs, queries=blobs, qrels=blobs,
       names=st.tuples(*[st.sampled_from(["a.csv", "b.tsv", "c.jsonl", "d.json", "e.txt"])] * 3))
def test_random_tables(corpus: bytes, queries: bytes, qrels: bytes, names):
    attempt(lambda: load_tables((names[0], corpus), (names[1], queries), (names[2], qrels)),
            check_dataset)
    attempt(lambda: load_uploads(list(zip(names, (corpus, queries, qrels)))), check_dataset)


@SETTINGS
@given(rows=st.lists(st.tuples(st.sampled_from(["q1", "q2", "1", " q3 "]),
                               st.sampled_from(["0", "Q0", "x"]),
                               st.sampled_from(["d1", "d2", "7", "7.0"]),
                               st.sampled_from(["0", "1", "2", "0.5", "-1", "nan", "x", ""])),
                     max_size=6),
       width=st.sampled_from([3, 4]), sep=st.sampled_from([" ", "\t", ","]))
def test_random_qrels_lines(rows, width: int, sep: str):
    text = "\n".join(sep.join(r if width == 4 else (r[0], r[2], r[3])) for r in rows)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "qrels.txt"
        p.write_text(text, encoding="utf-8")
        attempt(lambda: load_qrels(p), check_qrels)
