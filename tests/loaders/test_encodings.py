"""Japanese Excel exports: CP932 / Shift_JIS (and EUC-JP) files are recognised without kana —
kanji-only headers, half-width kana, kanji-only corpora, Japanese only after a long ASCII
start — confirmed over the whole file and named in the notes; what is not Japanese, or not
valid in the encoding it looks like, is one sentence naming the likely encoding and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragdash.errors import DatasetError
from ragdash.loaders import column_mappings, load_tables

QRELS = "質問ID,文書ID,関連度\n" + "".join(f"Q{i},D{i},{i % 3}\n" for i in range(40))
CORPUS = "文書ID,本文\n" + "".join(f"D{i},東京都千代田区大手町{i}丁目 政府庁舎\n"
                                 for i in range(40))
HALF_WIDTH = "質問ID,質問\n" + "".join(f"Q{i},ﾄｳｷｮｳﾀﾜｰﾉ ﾀｶｻ {i}\n" for i in range(40))
# the first Japanese byte after 100 KB of ASCII (the old sniffing read 64 KB)
LATE = ("id,text\n" + "".join(f"D{i},plain ascii passage number {i}\n" for i in range(4000))
        + "".join(f"D{4000 + i},大阪府大阪市北区梅田{i}丁目\n" for i in range(40)))


def write(tmp_path: Path, name: str, text: str, encoding: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


@pytest.mark.parametrize("encoding, label", [("cp932", "Shift_JIS (CP932)"),
                                             ("euc_jp", "EUC-JP")])
def test_kana_less_japanese_tables_load_and_name_their_encoding(tmp_path, encoding, label):
    corpus = write(tmp_path, "corpus.csv", CORPUS, encoding)
    queries = write(tmp_path, "queries.csv", HALF_WIDTH, "cp932")
    qrels = write(tmp_path, "qrels.csv", QRELS, encoding)
    ds = load_tables(corpus, queries, qrels)
    assert ds.documents[3].text == "東京都千代田区大手町3丁目 政府庁舎"
    assert ds.queries[0].text == "ﾄｳｷｮｳﾀﾜｰﾉ ﾀｶｻ 0"
    assert ds.qrels["Q4"] == {"D4": 1.0} and ds.qrels["Q3"] == {"D3": 0.0} and len(ds.qrels) == 40
    said = "\n".join(ds.notes)
    assert f"corpus.csv: read as {label}" in said and f"qrels.csv: read as {label}" in said
    assert "queries.csv: read as Shift_JIS (CP932)" in said
    mapping = column_mappings(ds)["qrels"]
    assert mapping.chosen == {"query_id": "質問ID", "doc_id": "文書ID", "grade": "関連度"}


def test_japanese_after_a_long_ascii_start_is_found(tmp_path):
    corpus = write(tmp_path, "corpus.csv", LATE, "cp932")
    queries = write(tmp_path, "queries.csv", "id,text\nq1,梅田\n", "utf-8")
    qrels = write(tmp_path, "qrels.csv", "qid,docid\nq1,D4001\n", "utf-8")
    ds = load_tables(corpus, queries, qrels)
    assert ds.documents[-1].text == "大阪府大阪市北区梅田39丁目"
    assert any("corpus.csv: read as Shift_JIS (CP932)" in n for n in ds.notes)


def test_a_bad_byte_late_in_a_shift_jis_file_names_the_line_and_the_encoding(tmp_path):
    # the start says Shift_JIS; the whole file is decoded before it is trusted
    body = QRELS.encode("cp932") + b"Q99,D\x81\x20,1\n" + b"Q100,D1,1\n"
    path = tmp_path / "qrels.csv"
    path.write_bytes(body)
    with pytest.raises(DatasetError) as caught:
        load_tables(write(tmp_path, "corpus.csv", CORPUS, "cp932"),
                    write(tmp_path, "queries.csv", HALF_WIDTH, "cp932"), path)
    said = str(caught.value)
    assert "qrels.csv, line 42" in said and "looks like Shift_JIS (CP932)" in said
    assert "Save the file as UTF-8" in said and "CSV UTF-8" in said


@pytest.mark.parametrize("encoding, text, likely", [
    ("gb18030", "中文文本这是一个测试，我们在这里写一些中文句子。", "GB18030 (Chinese)"),
    ("cp949", "한국어 텍스트입니다 안녕하세요 한국어 텍스트입니다", "CP949 (Korean)"),
])
def test_other_encodings_get_one_sentence_naming_them(tmp_path, encoding, text, likely):
    corpus = write(tmp_path, "corpus.csv", f"id,text\nd1,{text}\n", encoding)
    with pytest.raises(DatasetError) as caught:
        load_tables(corpus, write(tmp_path, "q.csv", "id,text\nq1,x\n", "utf-8"),
                    write(tmp_path, "r.csv", "qid,docid\nq1,d1\n", "utf-8"))
    said = str(caught.value)
    assert "corpus.csv, line 2" in said and f"it looks like {likely}" in said
    assert "CSV UTF-8" in said and "\n" not in said


def test_evaluate_names_the_encoding_it_read(tmp_path, capsys):
    from ragdash.cli import main

    write(tmp_path, "corpus.csv", CORPUS, "cp932")
    write(tmp_path, "queries.csv", "質問ID,質問\n" + "".join(
        f"Q{i},千代田区大手町{i}丁目\n" for i in range(40)), "cp932")
    write(tmp_path, "qrels.csv", QRELS, "cp932")
    assert main(["evaluate", str(tmp_path), "--k", "1,5", "--kmax", "5",
                 "--format", "json"]) == 0
    out, err = capsys.readouterr()
    import json

    report = json.loads(out)
    assert report["queries"] == 40 and report["metrics"]["recall@5"] > 0.5  # ids matched
    for name in ("corpus.csv", "queries.csv", "qrels.csv"):
        assert f"{name}: read as Shift_JIS (CP932)" in err, err
