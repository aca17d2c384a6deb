"""Quoting in delimited files: a stray ``"`` in an unquoted tab-separated file (MS MARCO's
layout) never merges lines silently; genuine quoted cells with line breaks are counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragdash.loaders import load_dataset, load_qrels
from ragdash.validation import validate

# a cell starting with a quote on line 3, another ending with one on line 5 (header = line 1)
CORPUS = ('id\ttext\nd1\tplain passage\nd2\t"Quoted start of a passage\nd3\tmiddle passage\n'
          'd4\tends with a quote"\n')
QUERIES = 'id\ttext\nq1\t"what is\nq2\tthe thing"\nq3\tthird question\n'
QRELS = 'q1\td1\t1\n"q2\td3\t1\nq3\td4"\t1\n'  # MS MARCO qrels: no header


def folder(tmp_path: Path, corpus=CORPUS, queries=QUERIES, qrels=QRELS) -> Path:
    for name, body in (("corpus.tsv", corpus), ("queries.tsv", queries), ("qrels.tsv", qrels)):
        (tmp_path / name).write_text(body, encoding="utf-8")
    return tmp_path


def warnings(ds) -> dict[str, str]:
    return {Path(n.split(":")[0]).name: str(n) for n in ds.notes
            if getattr(n, "code", "") == "quoting_merged"}


def test_stray_quotes_in_a_tsv_keep_one_row_per_line_and_say_so(tmp_path: Path):
    ds = load_dataset(folder(tmp_path))
    assert [d.id for d in ds.documents] == ["d1", "d2", "d3", "d4"]
    assert ds.documents[1].text == '"Quoted start of a passage'
    assert ds.documents[3].text == 'ends with a quote"'
    assert [q.id for q in ds.queries] == ["q1", "q2", "q3"]
    assert ds.qrels == {"q1": {"d1": 1.0}, '"q2': {"d3": 1.0}, "q3": {'d4"': 1.0}}
    said = warnings(ds)
    assert "line 3" in said["corpus.tsv"] and "line 5" in said["corpus.tsv"]
    assert "4 rows, one per line" in said["corpus.tsv"]
    assert "line 2" in said["queries.tsv"] and "to line 3" in said["queries.tsv"]
    assert "3 rows" in said["queries.tsv"] and "3 rows" in said["qrels.tsv"]
    # and the validation report (the Data page, the command line) carries the warning
    assert validate(ds, tokens=False).get("quoting_merged") is not None


def test_a_quote_that_never_closes_is_named(tmp_path: Path):
    corpus = 'id\ttext\nd1\tplain\nd2\t"opens and never closes\nd3\tlast\n'
    ds = load_dataset(folder(tmp_path, corpus=corpus, queries="id\ttext\nq1\tx\n",
                             qrels="q1\td1\t1\n"))
    assert [d.id for d in ds.documents] == ["d1", "d2", "d3"]
    said = warnings(ds)["corpus.tsv"]
    assert "line 3" in said and "never closes" in said and "3 rows" in said


def test_trec_qrels_with_quotes_keep_their_lines(tmp_path: Path):
    path = tmp_path / "qrels.tsv"
    path.write_text('q1\td1\t1\n"q2\td2\t1\nq3\td3"\t2\n', encoding="utf-8")
    assert load_qrels(path) == {"q1": {"d1": 1.0}, '"q2': {"d2": 1.0}, "q3": {'d3"': 2.0}}


@pytest.mark.parametrize("ext, sep", [(".csv", ","), (".tsv", "\t")])
def test_genuine_quoted_line_breaks_are_read_and_counted(tmp_path: Path, ext: str, sep: str):
    # Excel's way: a quoted cell holding a line break; unquoted, the rows would have
    # different widths, so the quotes are meant
    corpus = (f'id{sep}text\nd1{sep}"first line\nsecond line"\nd2{sep}"a {sep} b"\n'
              f'd3{sep}plain\n')
    for name, body in ((f"corpus{ext}", corpus), (f"queries{ext}", f"id{sep}text\nq1{sep}x\n"),
                       (f"qrels{ext}", f"qid{sep}docid\nq1{sep}d1\n")):
        (tmp_path / name).write_text(body, encoding="utf-8")
    ds = load_dataset(tmp_path)
    assert [d.text for d in ds.documents] == ["first line\nsecond line", f"a {sep} b", "plain"]
    (note,) = [n for n in ds.notes if getattr(n, "code", "") == "rows_span_lines"]
    assert f"corpus{ext}" in note and "1 row spans several lines" in note
    assert "lines 2–3" in note
    assert not [n for n in ds.notes if getattr(n, "code", "") == "quoting_merged"]
    assert note.level == ("warning" if sep == "\t" else "info")


def test_a_table_recognised_by_its_columns_is_read_the_same_way(tmp_path: Path):
    # "data1.tsv" names no part: its columns are sampled to classify it, quotes and all
    (tmp_path / "data1.tsv").write_text(CORPUS.replace("plain passage", "a plain passage, "
                                                       "long enough to be the corpus"),
                                        encoding="utf-8")
    (tmp_path / "queries.tsv").write_text("id\ttext\nq1\twhat\nq2\tthing\n", encoding="utf-8")
    (tmp_path / "qrels.tsv").write_text("q1\td1\t1\nq2\td3\t1\n", encoding="utf-8")
    ds = load_dataset(tmp_path)
    assert [d.id for d in ds.documents] == ["d1", "d2", "d3", "d4"]
    assert "4 rows, one per line" in warnings(ds)["data1.tsv"]
