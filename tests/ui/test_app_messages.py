"""AppTest: the core's errors on the app's pages are said in the page's language,
in the app's words (fields and pickers, not command-line flags)."""

from __future__ import annotations

import io
import zipfile

from app_support import custom_server, new_app, open_page, open_sample, upload_files


def _japanese(page: str):
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    return open_page(at, page)


def _errors(at) -> str:
    return "\n".join(e.value.replace("\\", "") for e in at.error)


def test_a_broken_zip_and_a_bad_article_json_are_said_in_japanese():
    at = upload_files(_japanese("data"), [("data.zip", b"PK\x03\x04 not really a zip")])
    said = _errors(at)
    assert "読める .zip ファイルではありません" in said and "zip を作り直して" in said, said
    assert "not a readable" not in said
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("article.json", '{"corpus": [], "queries": [{"query": "q"}]}')
    at = upload_files(at, [("article.json", '{"corpus": [], "queries": [{"query": "q"}]}')])
    said = _errors(at)
    assert "corpus が空のリストです" in said and "文書のテキストを追加" in said, said
    assert "empty list" not in said


def test_a_price_table_error_is_said_in_japanese(home):
    at = _japanese("cost")
    at.session_state["cost_prices"] = {
        "edited_rows": {}, "deleted_rows": [],
        "added_rows": [{"provider": "Relay", "model": "m-3", "usd_per_1m": 0.5},
                       {"provider": "Relay", "model": "m-3", "usd_per_1m": 0.7}]}
    at.run()
    at.button(key="cost_prices_save").click().run()
    said = _errors(at)
    assert "Relay / m-3 が 2 回指定されています。プロバイダーとモデルごとに 1 行にしてください" \
        in said, said
    assert "given twice" not in said and "、1 行目" not in said


def _run_page_ja(url: str, key: str):
    at = custom_server(open_sample(_japanese("data")), url, model="emb-1", key=key).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_key_no_header_can_carry_is_said_in_japanese():
    from app_support import wait_for_jobs

    at = _run_page_ja("http://127.0.0.1:9/v1", "sk-ａｂｃ")  # full-width letters
    at.button(key="run_start").click().run()
    wait_for_jobs(at)
    at.run()
    said = _errors(at)
    assert "API キーに HTTP ヘッダーで送れない文字があります(Latin-1 以外の文字" in said, said
    assert "が 4 文字目にあります" in said
    assert "no HTTP header" not in said and "ａ" not in said


def test_an_empty_run_name_is_refused_in_japanese(sample):
    from app_support import save_bm25_run

    at = new_app(run=save_bm25_run(sample, name="bm25")).run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    open_page(at, "run")
    (name,) = [w for w in at.text_input if str(w.key).startswith("run_manage_name:")]
    name.set_value("   ")
    at.button(key="run_manage_rename").click().run()
    said = _errors(at)
    assert "実行の名前は空にできません" in said and "cannot be empty" not in said, said


def test_bad_chunk_settings_are_said_in_japanese_without_the_flag():
    at = _japanese("data")
    at.selectbox(key="data_sample").set_value("jsquad-mini")
    at.button(key="data_load_sample").click().run()
    open_page(at, "run")
    at.number_input(key="w:rd_pipe_chunk_size").set_value(64).run()
    at.number_input(key="w:rd_pipe_chunk_overlap").set_value(64).run()
    warned = "\n".join(w.value.replace("\\", "") for w in at.warning)
    assert "チャンクの重なりは 0 以上、チャンクサイズ(64 トークン)未満にしてください" \
        in warned, warned
    assert "例: 重なり 8" in warned and "--chunk-overlap" not in warned
    assert at.button(key="pipe_start").disabled
