"""Hostile uploads in the app (AppTest, the real page scripts): reading limits stated and enforced
on the upload path, the plain-http key banner, and hostile dataset strings shown as written."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence

import pytest
from app_support import (
    custom_server,
    new_app,
    open_page,
    open_sample,
    plain,
    texts,
    wait_for_jobs,
)

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


# -- 2: hostile dataset strings on every page ------------------------------------------------
from markdown_it import MarkdownIt  # noqa: E402

from ragdash.dataset import Dataset, Document, Query  # noqa: E402

QID = "qx` [l](https://example.org/inj-l) ![i](https://example.org/inj-q.png) `y"
DOC = "dx` ![d](https://example.org/inj-d.png) `"
HOSTILE = Dataset(
    name="ds` ![n](https://example.org/inj-name.png) `",
    source="src ![s](https://example.org/inj-src.png)",
    documents=[Document(id=DOC, title="**t** ![t](https://example.org/inj-t.png) "
                                      "<img src=https://example.org/inj-h.png>",
                        text="apple [c](https://example.org/inj-c) "
                             "![x](https://example.org/inj-x.png)"),
               Document(id="d2", text="banana :red[r] $x$")],
    queries=[Query(id=QID, text="apple ![qt](https://example.org/inj-qt.png)"),
             Query(id="q2", text="banana `![b](https://example.org/inj-b.png)`")],
    qrels={QID: {DOC: 1.0}, "q2": {"d2": 1.0, "nope ![u](https://example.org/inj-u.png)": 1.0}})
RUN_NAMES = ["run` ![r](https://example.org/inj-run.png) `",
             "b [r2](https://example.org/inj-run2) ![r2](https://example.org/inj-run2.png)"]
PARSER = MarkdownIt("commonmark").enable(["strikethrough", "table"])
MARKDOWN_FIELDS = {"body", "label", "help", "title", "captions"}


def _markdown_strings(at) -> list[str]:
    """Every string the page hands to Streamlit's Markdown renderer: element bodies, labels
    (widgets, page links, expanders, tabs), tooltips, radio options, st.table cells."""
    out: list[str] = []

    def proto_strings(msg):
        for field, value in msg.ListFields():
            values = list(value) if isinstance(value, Sequence) and not isinstance(
                value, str) else [value]
            if field.type == field.TYPE_MESSAGE:
                for sub in values:
                    proto_strings(sub)
            elif field.type == field.TYPE_STRING and (
                    field.name in MARKDOWN_FIELDS
                    or (field.name == "options" and msg.DESCRIPTOR.name == "Radio")):
                out.extend(values)

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            proto_strings(proto)
        if type(node).__name__ == "Table":  # st.table renders its cells as Markdown
            frame = node.value
            out.extend(str(v) for v in frame.to_numpy().ravel().tolist())
            out.extend(str(c) for c in frame.columns)
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for child in children.values():
                walk(child)

    walk(at._tree)
    return out


def _unsafe(source: str) -> list[str]:
    """Images, links and raw HTML made from the hostile strings (all point at example.org;
    the app's own strings may hold a harmless ``<split>``)."""
    found = []
    for block in PARSER.parse(source):
        tokens = [block, *(block.children or [])]
        for tok in tokens:
            if tok.type in ("image", "link_open", "html_inline", "html_block") and \
                    "example.org" in f"{tok.attrs} {tok.content}":
                found.append(f"{tok.type}: {tok.attrs or tok.content!r}")
    return found


def _check_page(at, page: str, *, expect: list[str]) -> None:
    strings = _markdown_strings(at)
    bad = {s: _unsafe(s) for s in strings if _unsafe(s)}
    assert not bad, f"{page}: hostile markdown rendered: {bad}"
    shown = "\n".join(strings)
    for marker in expect:  # the hostile strings are on this page (else the check is empty)
        assert marker in shown, f"{page}: {marker} not shown"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_hostile_ids_titles_texts_and_names_render_as_text_on_every_page(lang):
    from app_support import save_bm25_run

    # BM25 with another k1 each: another configuration, so each is saved as its own run
    ids = [save_bm25_run(HOSTILE, name=name, kmax=10, k1=1.2 + 0.1 * i)
           for i, name in enumerate(RUN_NAMES)]
    at = new_app(run=ids[0])
    at.run()
    at.session_state[keys.LANG] = lang
    at.session_state[keys.DRILL_QUERY] = QID
    open_page(at, "results")
    _check_page(at, "results", expect=["inj-q.png", "inj-qt.png", "inj-run.png", "inj-name.png"])
    from ragdash.i18n import t as translate

    assert translate("res.title", lang) in texts(at)  # the page is in that language
    (trec,) = [b for b in at.get("download_button") if b.proto.id.endswith("dl_trec")
               or "dl_trec" in b.proto.id]
    assert trec.proto.disabled and "inj-q.png" in trec.proto.help  # shown, escaped
    for page, expect in (("data", ["inj-name.png", "inj-u.png"]),
                         ("run", ["inj-name.png", "inj-run.png"]),
                         ("compare", ["inj-name.png"]),
                         ("cost", []),
                         ("frontier", ["inj-name.png"]),
                         ("results", ["inj-q.png"])):
        if page == "frontier":  # the lead's page (not in app_support.PAGES)
            at.switch_page("pages/6_Frontier.py").run()
        else:
            open_page(at, page)
        assert not at.exception, [e.value for e in at.exception]
        _check_page(at, page, expect=expect)
    home = new_app()
    home.run()
    home.session_state[keys.LANG] = lang
    home.run()
    _check_page(home, "home", expect=["inj-run.png", "inj-run2.png"])


def test_a_missing_run_link_lists_hostile_run_names_as_text():
    from app_support import save_bm25_run

    save_bm25_run(HOSTILE, name=RUN_NAMES[1], kmax=10)
    at = open_page(new_app(run="nosuchrun"), "results")
    _check_page(at, "results (missing link)", expect=["inj-run2.png"])


# -- 3: a key over plain http:// to another machine: a banner on the Run page ----------------
def _run_page_with(url: str, key: str):
    at = custom_server(open_sample(new_app()), url, model="emb-1", key=key).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _plain_http_banners(at) -> list[str]:
    return [plain(w.value) for w in at.warning if "http://" in plain(w.value)]


def test_a_key_over_plain_http_to_another_machine_gets_a_banner():
    at = _run_page_with("http://10.1.2.3:8000/v1", "sk-secret-banner")
    (banner,) = _plain_http_banners(at)
    assert "10.1.2.3:8000" in banner and "RAGDASH_ALLOW_PLAIN_HTTP=1" in banner
    assert "https://" in banner and "sk-secret-banner" not in texts(at)


@pytest.mark.parametrize("url, key", [("https://api.example.com/v1", "sk-x"),
                                      ("http://localhost:8000/v1", "sk-x"),
                                      ("http://127.0.0.1:8000/v1", "sk-x"),
                                      ("http://10.1.2.3:8000/v1", "")])
def test_no_banner_for_https_loopback_or_no_key(url, key):
    assert _plain_http_banners(_run_page_with(url, key)) == []


def test_the_banner_is_silenced_by_the_same_variable_as_the_cli(monkeypatch):
    monkeypatch.setenv("RAGDASH_ALLOW_PLAIN_HTTP", "1")
    assert _plain_http_banners(_run_page_with("http://10.1.2.3:8000/v1", "sk-x")) == []


def test_a_rerank_key_over_plain_http_gets_the_banner_too():
    at = _run_page_with("https://api.example.com/v1", "sk-x")
    assert _plain_http_banners(at) == []
    at.toggle(key="w:rd_pipe_rerank").set_value(True).run()
    at.text_input(key="w:rd_pipe_rerank_url").set_value("http://rerank.lan:8080")
    at.text_input(key="w:rd_pipe_rerank_model").set_value("bge")
    at.text_input(key="w:rd_pipe_rerank_key").set_value("rk-secret").run()
    assert not at.exception, [e.value for e in at.exception]
    (banner,) = _plain_http_banners(at)
    assert "rerank.lan:8080" in banner


# -- 9: a damaged run store on the app's pages -----------------------------------------------
PAGE_FILES = {"data": "pages/1_Data.py", "run": "pages/2_Run.py", "results": "pages/3_Results.py",
              "compare": "pages/4_Compare.py", "cost": "pages/5_Cost.py"}


def _damage_headline(home, run_id: str) -> None:
    import sqlite3

    with sqlite3.connect(home / "runs.sqlite") as conn:
        conn.execute("UPDATE runs SET headline=? WHERE id=?", ("{not json", run_id))


@pytest.mark.parametrize("page", ["home", "run", "results", "compare", "cost"])
def test_a_bad_row_is_skipped_and_the_other_runs_still_list(sample, home, page):
    from app_support import save_bm25_run

    good = save_bm25_run(sample, name="good run")
    bad = save_bm25_run(sample, name="bad run", k1=0.5)
    _damage_headline(home, bad)
    at = new_app(run=good)
    at.run()
    if page != "home":
        open_page(at, page)
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    assert "Traceback" not in shown
    if page in ("home", "results"):
        assert "good run" in shown


@pytest.mark.parametrize("page", ["home", "data", "run", "results", "compare", "cost"])
def test_a_truncated_store_is_one_sentence_with_its_path_on_every_page(sample, home, page,
                                                                        monkeypatch):
    from app_support import save_bm25_run

    import ragdash.runs.store as store_module

    save_bm25_run(sample, name="some run")
    monkeypatch.setattr(store_module, "_stores", {})  # a fresh process opens the damaged file
    for name in ("runs.sqlite-wal", "runs.sqlite-shm"):
        (home / name).unlink(missing_ok=True)
    raw = (home / "runs.sqlite").read_bytes()
    (home / "runs.sqlite").write_bytes(b"garbage!" * 8 + raw[64:600])
    at = new_app()
    at.run()
    if page != "home":
        at.switch_page(PAGE_FILES[page]).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [plain(e.value) for e in at.error]
    assert any(str(home / "runs.sqlite") in e and "move it aside" in e for e in errors), errors
    assert "Traceback" not in texts(at)


def test_the_frontier_latency_probe_warns_before_sending_a_key_over_plain_http(sample):
    """The probe sends this session's key to the base URL a saved run names."""
    import copy

    from app_support import save_bm25_run

    from ragdash.runs import get_store

    run_id = save_bm25_run(sample, name="dense over http")
    store = get_store()
    run = copy.copy(store.load(run_id))  # the store caches what it loads: do not touch it
    run.config = {**run.config, "retriever": "openai", "model": "emb-1",
                  "base_url": "http://10.1.2.3:8000/v1"}
    run.id, run.name = None, "dense copy"
    dense_id = store.save(run)
    at = new_app(run=dense_id)
    at.run()
    at.session_state[keys.API_KEY] = "sk-probe"
    at.switch_page("pages/6_Frontier.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.selectbox(key="fr_probe_run").set_value(dense_id).run()
    (banner,) = _plain_http_banners(at)
    assert "10.1.2.3:8000" in banner
