"""Loaders on real and crafted data: every format, the column mapping, ids, encodings,
duplicates, uploads, and the article's str-key NDCG bug shown impossible."""

from __future__ import annotations

import gzip
import io
import json
import math
import shutil
import zipfile
from pathlib import Path

import pytest
from article_sample import ARTICLE, ARTICLE_QRELS
from paths import JSQUAD

from ragdash.dataset import Dataset
from ragdash.errors import DatasetError
from ragdash.loaders import (
    LoadNote,
    column_mappings,
    inspect_tables,
    load_dataset,
    load_qrels,
    load_tables,
    load_uploads,
    write_beir,
)
from ragdash.loaders.article_json import to_article_json
from ragdash.validation import validate


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def zip_folder(folder: Path, dest: Path, *, top: str | None) -> Path:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                rel = p.relative_to(folder).as_posix()
                zf.write(p, f"{top}/{rel}" if top else rel)
    return dest


def all_ids_are_str(ds: Dataset) -> bool:
    return (all(type(d.id) is str for d in ds.documents)
            and all(type(q.id) is str for q in ds.queries)
            and all(type(q) is str and all(type(d) is str for d in row)
                    for q, row in ds.qrels.items()))


# -- the real data ---------------------------------------------------------------------------
def test_jsquad_valid_folder():
    ds = load_dataset(JSQUAD)
    assert len(ds.documents) == 1145
    assert len(ds.queries) == 4442
    assert len(ds.evaluated_queries()) == 4442
    assert sum(len(r) for r in ds.qrels.values()) == 16164
    assert {g for r in ds.qrels.values() for g in r.values()} == {1.0, 2.0}
    assert ds.qrels["a10336p0q0"] == {"a0p0": 2.0, "a0p28": 1.0}
    assert ds.documents[0].id == "a0p0" and ds.documents[0].title == "梅雨"
    assert ds.queries[0] .text == "日本で梅雨がないのは北海道とどこか。"
    assert all_ids_are_str(ds)
    assert all(d in ds.doc_index for r in ds.qrels.values() for d in r)
    assert ds.name == "jsquad-valid"
    assert any("split 'test'" in n for n in ds.notes)
    # Oracle: count the judgement lines and grade-2 lines straight from the file.
    lines = (JSQUAD / "qrels/test.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert sum(1 for x in lines if x.endswith("\t2")) == sum(
        1 for r in ds.qrels.values() for g in r.values() if g == 2.0) == 4442


@pytest.mark.parametrize("top", [None, "jsquad-valid"], ids=["flat", "top-folder"])
def test_jsquad_valid_zip(tmp_path: Path, top):
    folder = load_dataset(JSQUAD)
    z = zip_folder(JSQUAD, tmp_path / "jsquad.zip", top=top)
    ds = load_dataset(z)
    assert ds.fingerprint() == folder.fingerprint()
    assert ds.name == (top or "jsquad")
    # The same zip through the app's uploader.
    up = load_uploads([("jsquad.zip", z.read_bytes())])
    assert up.fingerprint() == folder.fingerprint()


def test_jsquad_uploaded_as_three_files_named_as_browsers_send_them():
    files = [("corpus.jsonl", (JSQUAD / "corpus.jsonl").read_bytes()),
             ("queries.jsonl", (JSQUAD / "queries.jsonl").read_bytes()),
             ("test.tsv", (JSQUAD / "qrels/test.tsv").read_bytes())]
    assert load_uploads(files).fingerprint() == load_dataset(JSQUAD).fingerprint()


# -- BEIR details -------------------------------------------------------------------------------
CORPUS = ('{"_id": "d1", "title": "T1", "text": "one"}\n'
          '{"_id": "d2", "title": "", "text": "two"}\n'
          '{"_id": "d3", "text": "three", "metadata": {"x": 1}}\n')
QUERIES = '{"_id": "q1", "text": "first"}\n{"_id": "q2", "text": "second"}\n'


def make_beir(folder: Path, splits: dict[str, str]) -> Path:
    write(folder / "corpus.jsonl", CORPUS)
    write(folder / "queries.jsonl", QUERIES)
    for split, body in splits.items():
        write(folder / "qrels" / f"{split}.tsv", "query-id\tcorpus-id\tscore\n" + body)
    return folder


def test_beir_split_is_selectable(tmp_path: Path):
    make_beir(tmp_path, {"test": "q1\td1\t1\n", "dev": "q2\td2\t2\n"})
    assert load_dataset(tmp_path).qrels == {"q1": {"d1": 1.0}}
    dev = load_dataset(tmp_path, split="dev")
    assert dev.qrels == {"q2": {"d2": 2.0}}
    assert [q.id for q in dev.evaluated_queries()] == ["q2"]
    with pytest.raises(DatasetError, match="available splits: dev, test"):
        load_dataset(tmp_path, split="train")


def test_beir_titles_missing_title_and_extra_keys(tmp_path: Path):
    ds = load_dataset(make_beir(tmp_path, {"test": "q1\td1\t1\n"}))
    assert [(d.id, d.title, d.text) for d in ds.documents] == [
        ("d1", "T1", "one"), ("d2", "", "two"), ("d3", "", "three")]
    assert ds.documents[0].embed_text == "T1 one"


def test_zip_ignores_macos_litter(tmp_path: Path):
    make_beir(tmp_path / "data", {"test": "q1\td1\t1\n"})
    z = tmp_path / "d.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for p in (tmp_path / "data").rglob("*"):
            if p.is_file():
                rel = p.relative_to(tmp_path / "data").as_posix()
                zf.write(p, f"data/{rel}")
                zf.writestr(f"__MACOSX/data/._{p.name}", b"\x00\x05\x16\x07junk")
        zf.writestr("data/.DS_Store", b"\x00\x00\x00\x01Bud1")
    assert load_dataset(z).fingerprint() == load_dataset(tmp_path / "data").fingerprint()


def test_gzipped_jsonl(tmp_path: Path):
    make_beir(tmp_path, {"test": "q1\td1\t1\n"})
    plain = load_dataset(tmp_path)
    corpus = tmp_path / "corpus.jsonl"
    (tmp_path / "corpus.jsonl.gz").write_bytes(gzip.compress(corpus.read_bytes()))
    corpus.unlink()
    assert load_dataset(tmp_path).fingerprint() == plain.fingerprint()


def test_numeric_json_ids_match_text_ids_in_qrels(tmp_path: Path):
    write(tmp_path / "corpus.jsonl", '{"_id": 1, "text": "a"}\n{"_id": 2.0, "text": "b"}\n')
    write(tmp_path / "queries.jsonl", '{"_id": 10, "text": "q"}\n')
    write(tmp_path / "qrels/test.tsv", "query-id\tcorpus-id\tscore\n10\t1\t1\n10\t2\t2\n")
    ds = load_dataset(tmp_path)
    assert ds.doc_ids == ["1", "2"] and ds.query_ids == ["10"]
    assert ds.qrels == {"10": {"1": 1.0, "2": 2.0}}
    assert validate(ds, tokens=False).ok


# -- the article's JSON ---------------------------------------------------------------------------
def test_article_round_trip_keeps_grades_equal_to_the_article(tmp_path: Path):
    """The article's bug: after json.dumps/json.loads the relevance_scores keys are strings
    and its int lookups found nothing, so NDCG was 0. Here the keys become the same string
    doc ids as the documents, so every grade lines up."""
    text = json.dumps(ARTICLE, ensure_ascii=False, indent=2)
    assert '"1": 0.9' in text  # the int keys really became strings
    ds = load_dataset(write(tmp_path / "rag_eval_dataset.json", text))
    assert ds.qrels == ARTICLE_QRELS
    assert ds.qrels["q0"] == {"1": 0.9, "6": 1.0}
    for qid, row in ds.qrels.items():
        for did in row:
            assert ds.document(did) is not None, (qid, did)
    # Round trip again: identical qrels, identical fingerprint.
    again = load_dataset(write(tmp_path / "again.json",
                               json.dumps(json.loads(text), ensure_ascii=False)))
    assert again.qrels == ds.qrels and again.fingerprint() == ds.fingerprint()
    # The gains a ranking finds by doc id are the grades: NDCG of the ideal ranking is 1,
    # where the article's lookup (int keys against str keys) found 0 gain.
    for q in ds.queries:
        judged = ds.qrels[q.id]
        ranked = sorted(judged, key=judged.get, reverse=True)
        dcg = sum(judged.get(d, 0.0) / math.log2(i + 2) for i, d in enumerate(ranked))
        assert dcg > 0
        article_lookup = {int(k): v for k, v in judged.items()}
        assert sum(article_lookup.get(d, 0.0) for d in ranked) == 0  # the bug, reproduced


def test_article_ids_and_every_query_evaluated(tmp_path: Path):
    obj = {"corpus": ["a", "b", "c"],
           "queries": [{"query": "x", "relevant_docs": [2]},
                       {"query": "y", "relevant_docs": []},
                       {"query": "z", "relevance_scores": {"1": 2}},
                       {"query": "w", "relevant_docs": [0, 1, 0],
                        "relevance_scores": {"0": 0.5, "02": 1.5}}]}
    ds = load_dataset(write(tmp_path / "a.json", json.dumps(obj)))
    assert ds.doc_ids == ["0", "1", "2"] and ds.query_ids == ["q0", "q1", "q2", "q3"]
    assert ds.qrels == {"q0": {"2": 1.0}, "q1": {}, "q2": {"1": 2.0},
                        "q3": {"0": 0.5, "1": 1.0, "2": 1.5}}
    assert [q.id for q in ds.evaluated_queries()] == ["q0", "q1", "q2", "q3"]
    report = validate(ds, tokens=False)
    assert report.get("no_relevant").count == 1
    scored = report.get("scored_not_listed")
    assert scored is not None and scored.level == "warning" and scored.count == 2
    assert any(n.code == "article_format" for n in ds.notes if isinstance(n, LoadNote))


def test_article_float_keys_and_numeric_string_grades(tmp_path: Path):
    text = '{"corpus": ["a", "b"], "queries": [{"query": "x", "relevant_docs": [1.0], ' \
           '"relevance_scores": {"1.0": "0.5"}}]}'
    assert load_dataset(write(tmp_path / "a.json", text)).qrels == {"q0": {"1": 0.5}}


def test_article_export_round_trip():
    from ragdash.samples import load_sample

    ds = load_sample("article-ja")
    obj = to_article_json(ds)
    assert obj["corpus"] == ARTICLE["corpus"]
    assert [q["relevant_docs"] for q in obj["queries"]] == [[1, 6], [0, 2, 3], [7, 8]]


# -- tables ------------------------------------------------------------------------------------
def article_as_tables(tmp_path: Path, fmt: str) -> tuple[Path, Path, Path]:
    """The article's sample written as corpus / queries / qrels tables in ``fmt``."""
    docs = [(str(i), t) for i, t in enumerate(ARTICLE["corpus"])]
    queries = [(f"q{i}", q["query"]) for i, q in enumerate(ARTICLE["queries"])]
    qrels = [(q, d, g) for q, row in ARTICLE_QRELS.items() for d, g in row.items()]
    if fmt == "jsonl":
        c = "".join(json.dumps({"doc_id": i, "body": t}, ensure_ascii=False) + "\n"
                    for i, t in docs)
        q = "".join(json.dumps({"qid": i, "question": t}, ensure_ascii=False) + "\n"
                    for i, t in queries)
        r = "".join(json.dumps({"query_id": a, "doc_id": b, "relevance": g}) + "\n"
                    for a, b, g in qrels)
        ext = "jsonl"
    else:
        sep = "," if fmt == "csv" else "\t"
        ext = fmt

        def row(*cells):
            out = []
            for c in cells:
                c = str(c)
                if sep in c or '"' in c:
                    c = '"' + c.replace('"', '""') + '"'
                out.append(c)
            return sep.join(out) + "\r\n"

        c = row("Document ID", "Content") + "".join(row(i, t) for i, t in docs)
        q = row("query_id", "query") + "".join(row(i, t) for i, t in queries)
        r = row("qid", "docid", "score") + "".join(row(a, b, g) for a, b, g in qrels)
    return (write(tmp_path / f"docs.{ext}", c), write(tmp_path / f"topics.{ext}", q),
            write(tmp_path / f"judgments.{ext}", r))


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_three_table_formats_give_the_article_dataset(tmp_path: Path, fmt: str):
    article = load_dataset(write(tmp_path / "a.json", json.dumps(ARTICLE, ensure_ascii=False)))
    c, q, r = article_as_tables(tmp_path, fmt)
    ds = load_tables(c, q, r)
    assert ds.qrels == ARTICLE_QRELS
    assert ds.fingerprint() == article.fingerprint()
    # ... and the same files found in a folder by their names
    for p in (tmp_path / "a.json",):
        p.unlink()
    assert load_dataset(tmp_path).fingerprint() == article.fingerprint()


def test_fingerprint_equal_across_article_beir_and_csv(tmp_path: Path):
    article = load_dataset(write(tmp_path / "a" / "a.json", json.dumps(ARTICLE)))
    beir = load_dataset(write_beir(article, tmp_path / "beir"))
    csv_ds = load_tables(*article_as_tables(tmp_path / "csv", "csv"))
    assert article.fingerprint() == beir.fingerprint() == csv_ds.fingerprint()


def test_column_mapping_is_reported_and_can_be_overridden(tmp_path: Path):
    c = write(tmp_path / "c.csv", "ID,タイトル,body,本文\n1,題,english,日本語\n2,題2,en2,日本語2\n")
    q = write(tmp_path / "q.csv", "Query-ID,Question\nq1,どこ\n")
    r = write(tmp_path / "r.csv", "QID,DocID\nq1,2\n")
    ds = load_tables(c, q, r)
    maps = column_mappings(ds)
    assert maps["corpus"].chosen == {"id": "ID", "text": "body", "title": "タイトル"}
    assert maps["queries"].chosen == {"id": "Query-ID", "text": "Question"}
    assert maps["qrels"].chosen == {"query_id": "QID", "doc_id": "DocID", "grade": None}
    assert ds.qrels == {"q1": {"2": 1.0}}  # no grade column: grade 1
    assert any("id ← 'ID', text ← 'body', title ← 'タイトル'" in n for n in ds.notes)
    assert any("no grade column" in n for n in ds.notes)
    # The user picks the Japanese column instead, and drops the title.
    ds2 = load_tables(c, q, r, mapping={"corpus": {"text": "本文", "title": None}})
    assert [d.text for d in ds2.documents] == ["日本語", "日本語2"]
    assert [d.title for d in ds2.documents] == ["", ""]
    m2 = column_mappings(ds2)["corpus"]
    assert m2.overridden == ["text", "title"] and "(set by you)" in m2.describe()
    # inspect_tables reads the headers only and agrees.
    inspected = inspect_tables(c, q, r)
    assert {k: v.chosen for k, v in inspected.items()} == {k: v.chosen for k, v in maps.items()}
    assert inspected["corpus"].columns == ["ID", "タイトル", "body", "本文"]
    assert maps["corpus"].to_dict()["file"] == str(c)


def test_csv_ids_keep_their_spelling(tmp_path: Path):
    c = write(tmp_path / "c.csv", "id,text\n007,a\n1,b\n1.0,c\n")
    q = write(tmp_path / "q.csv", "id,text\n1,x\n")
    r = write(tmp_path / "r.csv", "qid,docid,rel\n1,007,1\n1,1.0,2\n")
    ds = load_tables(c, q, r)
    assert ds.doc_ids == ["007", "1", "1.0"]
    assert ds.qrels == {"1": {"007": 1.0, "1.0": 2.0}}


def test_csv_quoted_multiline_semicolon_and_long_fields(tmp_path: Path):
    long_text = "長" * 200_000  # beyond csv's default 128 KiB field limit
    c = write(tmp_path / "c.csv",
              f'id;text\nd1;"line one\nline two; still ""d1"""\nd2;{long_text}\n')
    q = write(tmp_path / "q.csv", "id;text\nq1;x\n")
    r = write(tmp_path / "r.csv", "qid;docid;relevance\nq1;d1;1\n")
    ds = load_tables(c, q, r)
    assert ds.documents[0].text == 'line one\nline two; still "d1"'
    assert ds.documents[1].text == long_text


def test_headerless_qrels_three_and_four_columns(tmp_path: Path):
    three = write(tmp_path / "r3.csv", "q1,d1,2\nq1,d2,0\n")
    four = write(tmp_path / "r4.tsv", "q1\t0\td1\t2\nq1\t0\td2\t0\n")
    assert load_qrels(three) == load_qrels(four) == {"q1": {"d1": 2.0, "d2": 0.0}}


def test_qrels_formats_agree(tmp_path: Path):
    expected = {"q1": {"d1": 2.0, "d2": 0.0}, "q2": {"d9": 1.0}}
    files = {
        "trec.qrels": "q1 0 d1 2\nq1 0 d2 0\n\nq2 Q0 d9 1\n",
        "beir.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td9\t1\n",
        "table.csv": "query_id,doc_id,relevance\nq1,d1,2\nq1,d2,0\nq2,d9,1\n",
        "table.jsonl": '{"qid": "q1", "docid": "d1", "rel": 2}\n{"qid": "q1", "docid": "d2", '
                       '"rel": 0}\n{"qid": "q2", "docid": "d9", "rel": 1}\n',
        "pytrec.json": json.dumps(expected),
        "crlf.txt": "q1 0 d1 2\r\nq1 0 d2 0\r\nq2 0 d9 1\r\n",
    }
    for name, body in files.items():
        got = load_qrels(write(tmp_path / name, body))
        assert got == expected, name
        assert all(type(g) is float for r in got.values() for g in r.values())


def test_fractional_and_negative_grades_are_kept(tmp_path: Path):
    got = load_qrels(write(tmp_path / "r.tsv", "q1\t0\td1\t0.8\nq1\t0\td2\t-1\n"))
    assert got == {"q1": {"d1": 0.8, "d2": -1.0}}


# -- encodings ------------------------------------------------------------------------------------
def test_shift_jis_tables_are_decoded_with_a_note(tmp_path: Path):
    c = write(tmp_path / "c.csv", "id,本文\nd1,日本語のテキストです\n".encode("cp932"))
    q = write(tmp_path / "q.csv", "id,質問\nq1,テキストとは？\n".encode("cp932"))
    r = write(tmp_path / "r.csv", "qid,docid\nq1,d1\n")
    ds = load_tables(c, q, r)
    assert ds.documents[0].text == "日本語のテキストです"
    assert ds.queries[0].text == "テキストとは？"
    notes = [n for n in ds.notes if "Shift_JIS" in n]
    assert len(notes) == 2 and "c.csv" in notes[0]
    assert column_mappings(ds)["corpus"].encoding == "cp932"


def test_shift_jis_article_json(tmp_path: Path):
    p = write(tmp_path / "a.json", json.dumps(ARTICLE, ensure_ascii=False).encode("cp932"))
    ds = load_dataset(p)
    assert ds.qrels == ARTICLE_QRELS and ds.documents[0].text == ARTICLE["corpus"][0]
    assert any("Shift_JIS" in n for n in ds.notes)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_bom_files(tmp_path: Path, encoding: str):
    c = write(tmp_path / "c.tsv", "id\ttext\r\nd1\tあいう\r\n".encode(encoding))
    q = write(tmp_path / "q.tsv", "id\ttext\nq1\tx\n".encode(encoding))
    r = write(tmp_path / "r.tsv", "qid\tdocid\trel\nq1\td1\t1\n".encode(encoding))
    ds = load_tables(c, q, r)
    assert ds.documents[0].text == "あいう"
    assert column_mappings(ds)["corpus"].columns == ["id", "text"]


def test_bom_in_json_and_jsonl(tmp_path: Path):
    p = write(tmp_path / "a.json", b"\xef\xbb\xbf" + json.dumps(ARTICLE).encode())
    assert load_dataset(p).qrels == ARTICLE_QRELS
    make_beir(tmp_path / "b", {"test": "q1\td1\t1\n"})
    corpus = tmp_path / "b" / "corpus.jsonl"
    corpus.write_bytes(b"\xef\xbb\xbf" + corpus.read_bytes())
    assert load_dataset(tmp_path / "b").doc_ids == ["d1", "d2", "d3"]


def test_old_mac_line_endings(tmp_path: Path):
    c = write(tmp_path / "c.csv", "id,text\rd1,a\rd2,b\r")
    q = write(tmp_path / "q.csv", "id,text\nq1,x\n")
    r = write(tmp_path / "r.csv", "qid,docid\nq1,d2\n")
    assert load_tables(c, q, r).doc_ids == ["d1", "d2"]


# -- duplicates -----------------------------------------------------------------------------
def test_exact_repeats_are_dropped_and_reported(tmp_path: Path):
    write(tmp_path / "corpus.jsonl", CORPUS + '{"_id": "d1", "title": "T1", "text": "one"}\n')
    write(tmp_path / "queries.jsonl", QUERIES + QUERIES)
    write(tmp_path / "qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t1\n")
    ds = load_dataset(tmp_path)
    assert ds.doc_ids == ["d1", "d2", "d3"] and ds.query_ids == ["q1", "q2"]
    report = validate(ds, tokens=False)
    assert report.ok
    assert report.get("repeated_documents").count == 1
    assert report.get("repeated_queries").count == 2
    assert report.get("repeated_judgements").count == 1
    assert "line 4" in report.get("repeated_documents").examples[0]


# -- uploads --------------------------------------------------------------------------------
def test_uploads_classify_tables_by_content(tmp_path: Path):
    c, q, r = article_as_tables(tmp_path, "csv")
    files = [("a.csv", c.read_bytes()), ("b.csv", q.read_bytes()), ("c.csv", r.read_bytes())]
    article = load_dataset(write(tmp_path / "x" / "a.json", json.dumps(ARTICLE)))
    ds = load_uploads(files)
    assert ds.fingerprint() == article.fingerprint()
    assert ds.source == "upload"
    # Reversed order: the same answer.
    assert load_uploads(files[::-1]).fingerprint() == article.fingerprint()


def test_uploads_with_generic_text_columns_use_text_length(tmp_path: Path):
    docs = "id,text\n" + "".join(f"d{i},{'長い本文です' * 10}\n" for i in range(3))
    queries = "id,text\nq1,短い\nq2,質問\n"
    ds = load_uploads([("one.csv", queries.encode()), ("two.csv", docs.encode()),
                       ("three.csv", b"qid,docid\nq1,d1\n")])
    assert ds.doc_ids == ["d0", "d1", "d2"] and ds.query_ids == ["q1", "q2"]


def test_upload_of_the_article_json_and_of_split_files(tmp_path: Path):
    ds = load_uploads([("rag_eval_dataset.json", json.dumps(ARTICLE).encode())])
    assert ds.qrels == ARTICLE_QRELS
    make_beir(tmp_path, {"test": "q1\td1\t1\n", "dev": "q2\td2\t2\n"})
    files = [(n, (tmp_path / p).read_bytes()) for n, p in [
        ("corpus.jsonl", "corpus.jsonl"), ("queries.jsonl", "queries.jsonl"),
        ("test.tsv", "qrels/test.tsv"), ("dev.tsv", "qrels/dev.tsv")]]
    assert load_uploads(files).qrels == {"q1": {"d1": 1.0}}
    assert load_uploads(files, split="dev").qrels == {"q2": {"d2": 2.0}}


def test_upload_zip_of_tables_in_a_folder(tmp_path: Path):
    article_as_tables(tmp_path / "src", "tsv")
    z = zip_folder(tmp_path / "src", tmp_path / "tables.zip", top="mydata")
    ds = load_uploads([("tables.zip", z.read_bytes())])
    assert ds.qrels == ARTICLE_QRELS and ds.name == "mydata"


def test_load_tables_accepts_name_bytes_pairs(tmp_path: Path):
    c, q, r = article_as_tables(tmp_path, "jsonl")
    ds = load_tables(("c.jsonl", c.read_bytes()), ("q.jsonl", q.read_bytes()),
                     ("r.jsonl", r.read_bytes()))
    assert ds.qrels == ARTICLE_QRELS


def test_notes_survive_pickling(tmp_path: Path):
    import pickle

    c, q, r = article_as_tables(tmp_path, "csv")
    ds = load_tables(c, q, r)
    back = pickle.loads(pickle.dumps(ds))
    assert column_mappings(back) == column_mappings(ds)


def test_folder_with_readme_and_license_is_fine(tmp_path: Path):
    make_beir(tmp_path, {"test": "q1\td1\t1\n"})
    write(tmp_path / "README.md", "# data\n")
    write(tmp_path / "LICENSE", "CC BY-SA 4.0\n")
    write(tmp_path / "README.txt", "not a table\n")
    assert load_dataset(tmp_path).doc_ids == ["d1", "d2", "d3"]


def test_copy_of_jsquad_with_dev_split_only_lists_it(tmp_path: Path):
    dest = tmp_path / "js"
    shutil.copytree(JSQUAD, dest)
    (dest / "qrels" / "test.tsv").rename(dest / "qrels" / "dev.tsv")
    with pytest.raises(DatasetError, match="available splits: dev"):
        load_dataset(dest)
    assert len(load_dataset(dest, split="dev").evaluated_queries()) == 4442


def test_large_corpus_is_streamed(tmp_path: Path):
    """50,000 documents load in well under a few seconds (no per-line reopen, no pandas)."""
    import time

    n = 50_000
    buf = io.StringIO()
    for i in range(n):
        buf.write(json.dumps({"_id": f"d{i}", "title": "", "text": f"テキスト {i}"},
                             ensure_ascii=False) + "\n")
    write(tmp_path / "corpus.jsonl", buf.getvalue())
    write(tmp_path / "queries.jsonl", '{"_id": "q", "text": "x"}\n')
    write(tmp_path / "qrels/test.tsv", "query-id\tcorpus-id\tscore\nq\td7\t1\n")
    t = time.perf_counter()
    ds = load_dataset(tmp_path)
    assert len(ds.documents) == n
    assert time.perf_counter() - t < 5


@pytest.mark.parametrize("qrels_name, split", [
    ("my_qrels.csv", "test"), ("qrels_v2.csv", "test"), ("qrels_dev.csv", "dev"),
    ("dev-qrels.csv", "dev"), ("qrels.csv", "test")])
def test_one_qrels_file_serves_whatever_its_name(qrels_name, split):
    """Only a real split name (test, dev, ...) in a qrels file name makes it a split; a lone
    'my_qrels.csv' is the qrels, used for the default split (it was read as split 'my')."""
    files = [("corpus.csv", b"id,text\nd1,hello\nd2,world\n"),
             ("queries.csv", b"id,text\nq1,hello\n"),
             (qrels_name, b"query_id,doc_id,relevance\nq1,d1,1\n")]
    assert load_uploads(files, split=split).qrels == {"q1": {"d1": 1.0}}
