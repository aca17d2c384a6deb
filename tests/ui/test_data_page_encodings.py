"""AppTest: a Japanese team's Excel exports (CP932, kanji-only headers, half-width kana)
uploaded on the Data page load, and the page names the encoding it read them with."""

from __future__ import annotations

from app_support import new_app, open_page, upload_files

from ragdash.ui import keys

CORPUS = "文書ID,本文\n" + "".join(f"D{i},東京都千代田区大手町{i}丁目 政府庁舎\n"
                                 for i in range(20))
QUERIES = "質問ID,質問\n" + "".join(f"Q{i},ﾄｳｷｮｳﾀﾜｰﾉ ﾀｶｻ {i}\n" for i in range(20))
QRELS = "質問ID,文書ID,関連度\n" + "".join(f"Q{i},D{i},1\n" for i in range(20))
FILES = [("corpus.csv", CORPUS.encode("cp932")), ("queries.csv", QUERIES.encode("cp932")),
         ("qrels.csv", QRELS.encode("cp932"))]


def notes(at) -> str:
    return "\n".join(m.value.replace("\\", "") for m in at.markdown if m.value.startswith("- "))


def test_cp932_excel_exports_load_and_the_encoding_is_named():
    at = upload_files(open_page(new_app(), "data"), FILES)
    assert not at.error, [e.value for e in at.error]
    ds = at.session_state[keys.DATASET]
    assert len(ds.documents) == 20 and len(ds.queries) == 20 and len(ds.qrels) == 20
    assert ds.queries[1].text == "ﾄｳｷｮｳﾀﾜｰﾉ ﾀｶｻ 1"
    said = notes(at)
    for name in ("corpus.csv", "queries.csv", "qrels.csv"):
        assert f"{name}: read as Shift_JIS (CP932)" in said, said


def test_in_japanese_the_page_names_the_encoding_in_japanese():
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    at = upload_files(open_page(at, "data"), FILES)
    assert not at.error, [e.value for e in at.error]
    assert "qrels.csv: Shift_JIS (CP932) として読みました" in notes(at)


def test_a_korean_file_is_one_sentence_naming_its_encoding():
    korean = "id,text\nd1,한국어 텍스트입니다 안녕하세요 한국어 텍스트\n".encode("cp949")
    files = [("corpus.csv", korean),
             ("queries.csv", "id,text\nq1,x\n"), ("qrels.csv", "qid,docid\nq1,d1\n")]
    at = upload_files(open_page(new_app(), "data"), files)
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "corpus.csv" in error and "CP949 (Korean)" in error and "CSV UTF-8" in error
    assert keys.DATASET not in at.session_state
