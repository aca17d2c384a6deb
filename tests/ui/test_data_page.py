"""AppTest: the Data page — samples, uploads (several tables, a zip), the column mapping and
its override, the validation report, and bad files as one message, never a traceback."""

from __future__ import annotations

import io
import json
import threading
import zipfile

import pytest
from app_support import frame_with, new_app, open_page, plain, texts, upload_files, wait_for_jobs

from ragdash.ui import data, keys

CORPUS = ("id,text,summary\nd1,東京は日本の首都です,首都\nd2,大阪は商業の街,商業\n"
          "d3,京都は古都,古都\n")
QUERIES = "id,text\nq1,日本の首都は?\nq2,古い都はどこ?\n"
QRELS = "query_id,doc_id,relevance\nq1,d1,2\nq2,d3,1\n"


def test_the_sample_loads_with_sizes_tokens_and_previews():
    at = open_page(new_app(), "data")
    assert "200 MB" in texts(at)  # the upload limit is stated
    at.button(key="data_load_sample").click().run()
    page = texts(at)
    assert "284" in page and "280" in page and "578" in page  # docs, queries, judgements
    assert "Tokens one evaluation embeds" in page and "cl100k" in page
    assert len(frame_with(at, "Document id", "Title", "Text")) == 20
    assert "No errors" in page
    # the sidebar (drawn before the button) names the dataset too
    assert "jsquad-mini" in plain(" ".join(c.value for c in at.sidebar.caption))
    assert "From: the bundled sample “JSQuAD mini" in page


def test_three_tables_load_and_the_mapping_is_shown():
    at = upload_files(open_page(new_app(), "data"),
                 [("corpus.csv", CORPUS), ("queries.csv", QUERIES), ("qrels.csv", QRELS)])
    ds = at.session_state[keys.DATASET]
    assert len(ds.documents) == 3 and ds.qrels == {"q1": {"d1": 2.0}, "q2": {"d3": 1.0}}
    mapping = frame_with(at, "Table", "Role ← column")
    assert "Text ← text" in mapping.set_index("Table").loc["Corpus (documents)",
                                                          "Role ← column"]
    # named after the corpus file (not "upload"), and the name can be edited
    assert "corpus" in plain(" ".join(c.value for c in at.sidebar.caption))
    assert "From: corpus.csv, queries.csv, qrels.csv" in texts(at)
    fp = at.session_state[keys.DATASET_FP]
    at.text_input(key="w:data_name").set_value("my shop faq").run()
    assert at.session_state[keys.DATASET].name == "my shop faq"
    assert at.session_state[keys.DATASET_FP] == fp  # the same data
    assert "my shop faq" in plain(" ".join(c.value for c in at.sidebar.caption))
    open_page(at, "run")
    open_page(at, "data")  # the field shows the name after a page switch too
    assert at.text_input(key="w:data_name").value == "my shop faq"


@pytest.mark.parametrize("names, want", [
    (["corpus.csv", "queries.csv", "qrels.csv"], "corpus"),
    (["jsquad/corpus.jsonl", "jsquad/queries.jsonl", "jsquad/qrels/test.tsv"], "jsquad"),
    (["faq_corpus.jsonl", "faq_queries.jsonl", "test.tsv"], "faq_corpus"),
    (["shop-docs.csv", "shop-questions.csv", "shop-qrels.csv"], "shop-docs"),
    (["docs.csv", "shop_q.csv", "shop_qrels.csv"], "docs"),
    (["shop_corpus.csv", "shop_queries.csv", "shop_qrels.csv"], "shop_corpus"),
    (["a.csv", "b.csv"], None),
])
def test_loose_uploads_are_named_after_their_corpus(names, want):
    from ragdash.ui.data import upload_name

    assert upload_name(names) == want


def test_a_lone_table_says_which_part_it_recognised():
    at = upload_files(open_page(new_app(), "data"), [("queries.csv", QUERIES)])
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "looks like the queries (from its name)" in error
    assert "the corpus (documents) and the qrels (relevance judgments)" in error
    at = upload_files(open_page(new_app(), "data"), [("stuff.csv", "doc_id,title,text\nd1,T,x\n")])
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "looks like the corpus (documents) (from its columns)" in error
    at = upload_files(open_page(new_app(), "data"), [("stuff.csv", CORPUS)])
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "ids and texts (from its columns): the corpus or the queries" in error


def test_the_column_mapping_can_be_overridden():
    at = upload_files(open_page(new_app(), "data"),
                 [("corpus.csv", CORPUS), ("queries.csv", QUERIES), ("qrels.csv", QRELS)])
    at.selectbox(key="data_map:corpus:text").set_value("summary").run()
    at.button(key="data_map_reload").click().run()
    assert not at.exception
    ds = at.session_state[keys.DATASET]
    assert [d.text for d in ds.documents] == ["首都", "商業", "古都"]
    assert "Text ← summary" in frame_with(at, "Table", "Role ← column").iloc[0, -1]


def test_unmatched_columns_can_be_chosen_after_the_failure():
    corpus = "記事番号,記事本文,見出し\nd1,東京は日本の首都です,首都\nd2,大阪は商業の街,商業\n"
    at = upload_files(open_page(new_app(), "data"),
                 [("文書.csv", corpus), ("queries.csv", QUERIES), ("qrels.csv", QRELS)])
    (error,) = at.error
    assert "文書.csv" in plain(error.value) and "no column for the corpus id" in plain(error.value)
    assert keys.DATASET not in at.session_state
    # the message says "choose the column in the mapping": the choosers are there
    assert at.selectbox(key="data_fix:文書.csv:id").value == "—"
    assert at.selectbox(key="data_fix:文書.csv:title").value == "見出し"  # an alias: guessed
    at.selectbox(key="data_fix:文書.csv:id").set_value("記事番号").run()
    assert at.error, "the message stays while the columns are being chosen"
    at.selectbox(key="data_fix:文書.csv:text").set_value("記事本文").run()
    at.button(key="data_fix_reload").click().run()
    if keys.LOAD_JOB in at.session_state:
        wait_for_jobs(at)
        at.run()
    ds = at.session_state[keys.DATASET]
    first = ds.documents[0]
    assert (first.id, first.title, first.text) == ("d1", "首都", "東京は日本の首都です")
    assert not at.error
    # Japanese: roles and kinds in the mapping table are translated
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    mapping = frame_with(at, "表", "役割 ← 列")
    assert "本文 ← 記事本文" in mapping.set_index("表").loc["コーパス(文書)", "役割 ← 列"]


def test_a_failure_with_no_column_to_choose_shows_no_chooser():
    at = upload_files(open_page(new_app(), "data"), [("broken.json", '{"corpus": [')])
    (error,) = at.error
    assert "broken.json" in plain(error.value)
    assert not [s for s in at.selectbox if str(s.key).startswith("data_fix:")]


def test_a_beir_zip_loads():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mini/corpus.jsonl", "\n".join(json.dumps(
            {"_id": f"d{i}", "title": "", "text": f"文書{i}"}, ensure_ascii=False)
            for i in range(4)))
        zf.writestr("mini/queries.jsonl", json.dumps({"_id": "q1", "text": "文書"},
                                                      ensure_ascii=False))
        zf.writestr("mini/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td2\t1\n")
    at = upload_files(open_page(new_app(), "data"), [("mini.zip", buf.getvalue())])
    ds = at.session_state[keys.DATASET]
    assert ds.sizes()["documents"] == 4 and ds.qrels == {"q1": {"d2": 1.0}}


def test_a_bad_grade_is_one_message_naming_file_and_line():
    bad = "query_id,doc_id,relevance\nq1,d1,2\nq2,d3,very\n"
    at = upload_files(open_page(new_app(), "data"),
                 [("corpus.csv", CORPUS), ("queries.csv", QUERIES), ("qrels.csv", bad)])
    (error,) = at.error
    assert "qrels.csv" in plain(error.value) and "line 3" in plain(error.value)
    assert keys.DATASET not in at.session_state
    assert "Traceback" not in texts(at)


def test_validation_errors_stop_the_run_page():
    qrels = "query_id,doc_id,relevance\nq1,nope,1\nq2,nada,1\n"  # no judged doc exists
    at = upload_files(open_page(new_app(), "data"),
                 [("corpus.csv", CORPUS), ("queries.csv", QUERIES), ("qrels.csv", qrels)])
    assert at.error, "the validation report shows the error"
    open_page(at, "run")
    assert "fix them before running" in texts(at)
    assert not [b for b in at.button if b.key == "run_start"]


def test_validation_speaks_japanese():
    qrels = "query_id,doc_id,relevance\nq1,d1,0\nq2,d3,1\n"  # q1 has no relevant document
    at = upload_files(open_page(new_app(), "data"),
                 [("corpus.csv", CORPUS), ("queries.csv", QUERIES), ("qrels.csv", qrels)])
    assert any("no relevant" in w.value for w in at.warning)
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    assert at.title[0].value == "データ"
    assert any("正解文書がありません" in w.value for w in at.warning)


def test_a_slow_upload_is_read_in_the_background(monkeypatch):
    release = threading.Event()
    real = data.load_uploads

    def slow(*args, **kwargs):
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(data, "load_uploads", slow)
    monkeypatch.setattr(data, "LOAD_SETTLE", 0.05)
    at = open_page(new_app(), "data")
    at.file_uploader(key="data_files").set_value(
        [(n, v.encode(), "text/csv") for n, v in
         (("corpus.csv", CORPUS), ("queries.csv", QUERIES), ("qrels.csv", QRELS))]).run()
    at.button(key="data_load_files").click().run()
    assert any("Reading corpus.csv" in plain(i.value) for i in at.info)  # the page is not held
    assert keys.DATASET not in at.session_state
    release.set()
    wait_for_jobs(at)
    at.run()
    assert at.session_state[keys.DATASET].sizes()["documents"] == 3
    assert keys.LOAD_JOB not in at.session_state


def test_the_loaders_warnings_are_in_the_pages_language():
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    repeated = CORPUS + "d1,東京は日本の首都です,首都\n"  # the same document twice
    at = upload_files(open_page(at, "data"),
                 [("corpus.csv", repeated), ("queries.csv", QUERIES), ("qrels.csv", QRELS)])
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("重複した文書(同じ ID・同じテキスト)1 件を除きました" in w for w in warnings), \
        warnings
    assert not any("were dropped" in w for w in warnings)


def test_the_loaders_notes_are_in_the_pages_language():
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    at = upload_files(open_page(at, "data"),
                 [("corpus.csv", CORPUS.encode("cp932")), ("queries.csv", QUERIES),
                  ("qrels.csv", "query_id,doc_id\nq1,d1\nq2,d3\n")])  # no grade column
    notes = [m.value.replace("\\", "") for m in at.markdown if m.value.startswith("- ")]
    said = "\n".join(notes)
    assert "qrels.csv: 関連度の列がないため、並んでいる(クエリ, 文書)の組はすべて関連度 1 です" \
        in said, notes
    assert "corpus.csv: Shift_JIS (CP932) として読みました" in said, notes
    assert "no grade column" not in said and "avoids guessing" not in said


def test_a_bad_row_is_explained_in_japanese_with_its_file_and_line():
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    broken = "id,text\nd1,東京,余分,さらに余分\n"  # 4 fields under a 2-column header
    at = upload_files(open_page(at, "data"),
                 [("corpus.csv", broken), ("queries.csv", QUERIES), ("qrels.csv", QRELS)])
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "corpus.csv、2 行目: この行は 4 列ですが見出しは 2 列です" in error, error
    assert "二重引用符" in error and "this row has" not in error


def test_two_of_three_tables_name_what_was_found_and_a_file_added_twice_is_read_once():
    """With documents.csv and questions.csv (both recognised) the fix names them and asks
    for the qrels only, not to rename every file; a file added again is one file, not
    'several corpus files: documents.csv, documents.csv'."""
    at = upload_files(open_page(new_app(), "data"),
                      [("documents.csv", CORPUS), ("questions.csv", QUERIES)])
    (error,) = [plain(e.value) for e in at.error]
    assert "found so far: documents.csv (corpus), questions.csv (queries)" in error
    assert "Add the qrels file" in error and "corpus.*" not in error
    at = upload_files(at, [("documents.csv", CORPUS), ("questions.csv", QUERIES),
                           ("documents.csv", CORPUS), ("qrels.csv", QRELS)])
    assert not at.error, [e.value for e in at.error]
    assert len(at.session_state[keys.DATASET].documents) == 3


# -- datasets already in the run store ------------------------------------------------------------
def _signed_in(email: str | None, **query):
    at = new_app(**query)
    at.user = {"is_logged_in": email is not None, **({"email": email} if email else {})}
    return at


def _stored_names(at) -> set[str]:
    """The names of the datasets the store tab lists (none when it lists nothing)."""
    return {str(o).split(" · ")[0] for b in at.selectbox if b.key == "data_stored"
            for o in b.options}


def test_a_dataset_in_the_store_is_picked_without_uploading_it_again():
    """A second rater opens the set the first one loaded and evaluated: no upload."""
    from app_support import save_bm25_run

    from ragdash.loaders import load_uploads

    first = load_uploads([("corpus.csv", CORPUS.encode()), ("queries.csv", QUERIES.encode()),
                          ("qrels.csv", QRELS.encode())])
    first.name = "capitals"
    save_bm25_run(first, name="bm25 on capitals", kmax=3)
    at = open_page(new_app(), "data")
    assert "rd_dataset" not in at.session_state
    assert data.UPLOAD_PREFIX not in texts(at)
    assert at.selectbox(key="data_stored").options == ["capitals · 3 documents, 2 queries · 1 run"]
    assert at.selectbox(key="data_stored").value == first.fingerprint()
    at.button(key="data_open_stored").click().run()
    assert not at.exception, [e.value for e in at.exception]
    ds = at.session_state["rd_dataset"]
    assert ds.fingerprint() == first.fingerprint() and ds.name == "capitals"
    assert at.session_state["rd_dataset_fp"] == first.fingerprint()
    page = texts(at)
    assert "capitals" in page and "No errors" in page  # validated as any dataset is
    assert f"Data?dataset={first.fingerprint()}" in page  # its link, to hand to others


def test_with_sign_in_the_store_tab_lists_only_the_datasets_the_person_may_see():
    from ragdash.loaders import load_uploads
    from ragdash.retrieval.bm25 import BM25Retriever
    from ragdash.run import Run
    from ragdash.runs import get_store
    from ragdash.samples import load_sample

    private = load_uploads([("corpus.csv", CORPUS.encode()), ("queries.csv", QUERIES.encode()),
                            ("qrels.csv", QRELS.encode())])
    private.name = "alice's capitals"
    ranking = BM25Retriever().rank(private, private.evaluated_queries(), 3)
    alices = get_store().save(Run.of_ranking(private, ranking, kmax=3), owner="alice@corp")
    shared = load_sample("jsquad-mini")
    shared_ranking = BM25Retriever().rank(shared, shared.evaluated_queries()[:3], 10)
    get_store().save(Run.of_ranking(shared, shared_ranking, kmax=10))  # the command line's

    alice = open_page(_signed_in("alice@corp"), "data")
    assert _stored_names(alice) == {"alice's capitals", "jsquad-mini"}
    bob = open_page(_signed_in("bob@corp"), "data")
    assert _stored_names(bob) == {"jsquad-mini"}  # not Alice's
    assert "東京は日本の首都です" not in texts(bob)
    # Alice's run link: Bob may read the run, and so its dataset is listed for him
    linked = open_page(_signed_in("bob@corp", run=alices), "data")
    assert _stored_names(linked) == {"alice's capitals", "jsquad-mini"}


def test_a_dataset_link_opens_the_set_and_a_wrong_one_says_so():
    from ragdash.runs import get_store
    from ragdash.samples import load_sample

    ds = load_sample("jsquad-mini")
    fp = get_store().save_dataset(ds, owner="alice@corp")
    bob = open_page(_signed_in("bob@corp"), "data")
    assert _stored_names(bob) == set()
    linked = _signed_in("bob@corp", dataset=fp)
    linked.switch_page("pages/1_Data.py").run()
    assert not linked.exception, [e.value for e in linked.exception]
    assert linked.session_state["rd_dataset_fp"] == fp
    assert _stored_names(linked) == {ds.name}  # listed for this session from now on
    wrong = _signed_in("bob@corp", dataset="0" * 64)
    wrong.switch_page("pages/1_Data.py").run()
    assert "rd_dataset" not in wrong.session_state
    assert [e.value for e in wrong.error] == [data_t("data.link_missing")]


def data_t(key: str) -> str:
    from ragdash.i18n import t

    return t(key, "en")
