"""Issue #13 in the app (AppTest, the real page scripts): reading limits stated and enforced
on the upload path, the plain-http key banner, and hostile dataset strings shown as written."""

from __future__ import annotations

import io
import zipfile

from app_support import new_app, open_page, plain, texts, wait_for_jobs

from ragdash.ui import keys

QUERIES = '{"_id": "q1", "text": "a"}\n'
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"


def _upload(at, files):
    at.file_uploader(key="data_files").set_value(
        [(name, data.encode() if isinstance(data, str) else data, "application/octet-stream")
         for name, data in files]).run()
    at.button(key="data_load_files").click().run()
    if keys.LOAD_JOB in at.session_state:
        wait_for_jobs(at)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _line_zip(line_mb: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("corpus.jsonl", "w") as f:
            f.write(b'{"_id": "d1", "text": "' + b"a" * (line_mb << 20) + b'"}\n')
        zf.writestr("queries.jsonl", QUERIES)
        zf.writestr("qrels/test.tsv", QRELS)
    return buf.getvalue()


# -- 6: reading limits -----------------------------------------------------------------------
def test_the_data_page_states_the_reading_limits(monkeypatch):
    at = open_page(new_app(), "data")
    shown = texts(at)
    assert "One line may hold up to 16 MB" in shown and "unzip to 2,048 MB" in shown
    assert "RAGDASH_MAX_UNZIPPED_MB" in shown
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "64")
    at.run()
    assert "One line may hold up to 64 MB" in texts(at)


def test_an_uploaded_zip_with_a_huge_line_is_one_message_naming_the_member(monkeypatch):
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "1")
    at = _upload(open_page(new_app(), "data"), [("bomb.zip", _line_zip(3))])
    (error,) = at.error
    assert "bomb.zip:corpus.jsonl, line 1" in plain(error.value)
    assert "longer than 1.0 MB" in plain(error.value)
    assert keys.DATASET not in at.session_state and "Traceback" not in texts(at)


def test_an_uploaded_zip_over_the_unzipped_limit_is_refused(monkeypatch):
    monkeypatch.setenv("RAGDASH_MAX_UNZIPPED_MB", "2")
    at = _upload(open_page(new_app(), "data"), [("big.zip", _line_zip(3))])
    (error,) = at.error
    assert "big.zip:corpus.jsonl" in plain(error.value) and "over the limit" in plain(error.value)


def test_a_bad_limit_value_is_said_on_the_data_page(monkeypatch):
    monkeypatch.setenv("RAGDASH_MAX_UNZIPPED_MB", "lots")
    at = open_page(new_app(), "data")
    assert any("RAGDASH_MAX_UNZIPPED_MB" in plain(e.value) for e in at.error)
