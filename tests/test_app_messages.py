"""AppTest (#14 item 4): the core's errors on the app's pages are said in the page's language,
in the app's words (fields and pickers, not command-line flags)."""

from __future__ import annotations

import io
import zipfile

from app_support import new_app, open_page

from ragdash.ui import keys


def _japanese(page: str):
    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    return open_page(at, page)


def _upload(at, files):
    at.file_uploader(key="data_files").set_value(
        [(name, data.encode() if isinstance(data, str) else data, "application/octet-stream")
         for name, data in files]).run()
    at.button(key="data_load_files").click().run()
    if keys.LOAD_JOB in at.session_state:  # still reading (a slow machine): wait, redraw
        from app_support import wait_for_jobs

        wait_for_jobs(at)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _errors(at) -> str:
    return "\n".join(e.value.replace("\\", "") for e in at.error)


def test_a_broken_zip_and_a_bad_article_json_are_said_in_japanese():
    at = _upload(_japanese("data"), [("data.zip", b"PK\x03\x04 not really a zip")])
    said = _errors(at)
    assert "読める .zip ファイルではありません" in said and "zip を作り直して" in said, said
    assert "not a readable" not in said
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("article.json", '{"corpus": [], "queries": [{"query": "q"}]}')
    at = _upload(at, [("article.json", '{"corpus": [], "queries": [{"query": "q"}]}')])
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
