"""The message catalog: complete in both languages, placeholders agree, no unknown keys used."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from paths import ROOT

from ragdash import i18n
from ragdash.i18n import CATALOG, LANGUAGES, check_catalog, normalize_lang, placeholders, t

# t("key" ...) or t('key' ...), also as i18n.t(...) — a literal first argument.
CALL = re.compile(r"""(?<![\w.])(?:i18n\.)?t\(\s*["']([A-Za-z0-9_.\-]+)["']""")


def _sources() -> list[Path]:
    files = list((ROOT / "ragdash").rglob("*.py"))
    files += [p for p in [ROOT / "app.py"] if p.exists()]
    files += list((ROOT / "pages").glob("*.py")) if (ROOT / "pages").exists() else []
    return files


def test_every_key_has_both_languages_and_matching_placeholders():
    assert check_catalog() == []
    for key, entry in CATALOG.items():
        for lang in LANGUAGES:
            assert all(text.strip() for text in i18n.forms(entry[lang]).values()), (key, lang)
        assert placeholders(entry["en"]) == placeholders(entry["ja"]), key


def test_check_catalog_finds_the_problems_it_claims_to():
    bad = {
        "a": {"en": "Hello {name}", "ja": "こんにちは"},
        "b": {"en": "Only English"},
        "c": {"en": "Fine {x}", "ja": "よい {x}"},
        "d": {"en": "Brace {", "ja": "括弧 {"},
    }
    problems = check_catalog(bad)
    assert any(p.startswith("a:") and "placeholders" in p for p in problems)
    assert any(p.startswith("b:") and "ja" in p for p in problems)
    assert not any(p.startswith("c:") for p in problems)
    assert any(p.startswith("d:") for p in problems)


def test_every_literal_key_used_in_the_source_exists():
    used: dict[str, str] = {}
    for path in _sources():
        for key in CALL.findall(path.read_text(encoding="utf-8")):
            used.setdefault(key, str(path.relative_to(ROOT)))
    assert used, "the scan found no t(...) calls at all; is the pattern still right?"
    missing = {k: f for k, f in used.items() if k not in CATALOG}
    assert not missing, f"keys used but not in the catalog: {missing}"


def test_the_scanner_pattern_sees_the_usual_call_shapes():
    src = 't("a.b", lang)  i18n.t(\'c.d\', "ja", n=1)  st.t("no")  format("x")  get("y")'
    assert CALL.findall(src) == ["a.b", "c.d"]


def test_lookup_formats_and_falls_back():
    assert t("chart.band", "ja", name="A", level=95) == "A：95% 信頼区間"
    assert t("chart.band", "en", name="A", level=95) == "A: 95% confidence band"
    assert t("chart.k_axis", lang="ja") == CATALOG["chart.k_axis"]["ja"]
    assert t("chart.k_axis", "fr") == CATALOG["chart.k_axis"]["en"]
    assert t("chart.k_axis") == CATALOG["chart.k_axis"]["en"]
    with pytest.raises(KeyError):
        t("no.such.key", "en")


@pytest.mark.parametrize("raw, want", [("ja", "ja"), ("ja-JP", "ja"), ("JA_jp", "ja"),
                                       ("en-US", "en"), ("fr", "en"), (None, "en"), ("", "en")])
def test_normalize_lang(raw, want):
    assert normalize_lang(raw) == want


def test_duplicate_keys_across_area_files_are_an_error():
    a = {"x": {"en": "1", "ja": "1"}}
    b = {"x": {"en": "2", "ja": "2"}}
    with pytest.raises(ValueError, match=r"area_a.*area_b"):
        i18n._merge({"area_a": a, "area_b": b})
    assert i18n._merge({"area_a": a})["x"]["en"] == "1"


def test_shared_and_app_catalogs_are_both_merged():
    from ragdash.i18n import AREAS

    assert {"shared", "app", "engines", "pipeline", "frontier", "core"} <= set(AREAS)
    assert set().union(*AREAS.values()) == set(CATALOG)
    assert sum(len(keys) for keys in AREAS.values()) == len(CATALOG)  # no key in two areas
    assert not AREAS["shared"] & AREAS["app"]


def _ja(key: str) -> str:
    """The Japanese of ``key``, all its forms."""
    return "\n".join(i18n.forms(CATALOG[key]["ja"]).values())


def test_japanese_wording_is_consistent():
    """One word for one thing: プロバイダー (never プロバイダ); "not retrieved" is not 未検索."""
    import re

    from ragdash.i18n import CATALOG

    ja = "\n".join(text for entry in CATALOG.values() for text in i18n.forms(entry["ja"]).values())
    assert not re.search(r"プロバイダ(?!ー)", ja)
    assert "未検索" not in ja
    assert CATALOG["views.not_retrieved"]["ja"] == "検索結果になし"
    from ragdash.i18n import AREAS

    for area in ("app", "core", "shared"):  # the app's own words: フォルダー, as プロバイダー
        assert not [k for k in AREAS[area] if re.search(r"フォルダ(?!ー)", _ja(k))]


# -- core messages with ids ---------------------------------------------------------------
MSG_CALL = re.compile(r"""\b(?:error\(\s*\w+,\s*|dataset_error\(\s*|catalog_error\(\s*|text\(\s*"""
                      r"""|with_id\(\s*)"""
                      r"""["']([a-z0-9_.]+)["']""")
#: the services' message ids, one literal per failure and service (ragdash.services.failures)
MSG_FAMILY = re.compile(r"^MESSAGE_IDS\b.*?^\}", re.DOTALL | re.MULTILINE)
FAMILY_ID = re.compile(r"""["']([a-z0-9_]+\.[a-z0-9_.]+)["']""")


def test_every_message_id_raised_in_the_source_exists_in_both_languages():
    used: dict[str, str] = {}
    for path in _sources():
        source = path.read_text(encoding="utf-8")
        family = [i for block in MSG_FAMILY.findall(source) for i in FAMILY_ID.findall(block)]
        for msg_id in MSG_CALL.findall(source) + family:
            used.setdefault(msg_id, str(path.relative_to(ROOT)))
    assert len(used) >= 20, f"the scan found only {sorted(used)}"
    missing = {m: f for m, f in used.items() if f"msg.{m}" not in CATALOG}
    assert not missing, f"message ids used but not in the catalog: {missing}"
    unused = sorted(k for k in CATALOG if k.startswith("msg.") and k.count(".") == 2
                    and k[4:] not in used
                    and not k.startswith(("msg.where.", "msg.load.lone_", "msg.role.")))
    assert not unused, f"catalog messages nothing raises: {unused}"


def test_a_message_is_english_as_before_and_japanese_or_app_words_on_request():
    from ragdash.errors import AuthenticationError
    from ragdash.i18n import error, message, text

    tried = text("embed.tried", n=3)
    exc = error(AuthenticationError, "embed.no_key", url="http://h/v1/embeddings",
                status=401, said="")
    assert str(exc) == ("http://h/v1/embeddings asks for an API key (HTTP 401): set "
                        "OPENAI_API_KEY, or name the variable that holds it with "
                        "--api-key-env, and run again.")
    assert message(exc, "en") == str(exc)
    assert "--api-key-env" not in message(exc, "en", app=True)
    assert "API key field" in message(exc, "en", app=True)
    ja = message(exc, "ja", app=True)
    assert "API キー" in ja and "--api-key-env" not in ja
    assert "--api-key-env" in message(exc, "ja")  # the command line keeps its flag
    assert str(tried) == "after 3 attempts" and message(tried, "ja") == "3 回試行して"
    exc = error(AuthenticationError, "embed.unreachable", url="u", detail="refused",
                tried=tried)
    assert "3 回試行して" in message(exc, "ja") and "after 3 attempts" in str(exc)
    assert message(ValueError("plain"), "ja") == "plain"  # no id: as it is


def test_a_dataset_error_with_an_id_places_file_and_line_in_each_language():
    from ragdash.errors import DatasetError
    from ragdash.i18n import dataset_error, message

    exc = dataset_error("load.no_file")
    assert isinstance(exc, DatasetError)
    assert message(exc, "ja") != str(exc) and message(exc, "ja").endswith("。")
    exc = dataset_error("load.unknown_type", file="x.bin", ext=".bin")
    assert str(exc).startswith("x.bin: cannot tell what this file is")
    assert message(exc, "ja").startswith("x.bin: ")



# -- ids set below ragdash.i18n: the file formats (ragdash.errors.with_id) -------------------
def _formats_errors():
    import os
    import tempfile

    from ragdash.errors import DatasetError
    from ragdash.formats.files import regular_file_error
    from ragdash.formats.trec_run import parse_columns, unsafe_id_error

    for data in (b"q1 Q0 d1 1\n", b"q1 Q0 d1 1 x t\n", b"q1 Q0 d\0 1 2 t\n", b"",
                 b"q1 Q0 d1 1 2 t\n\xff\n"):
        with pytest.raises(DatasetError) as got:
            parse_columns(data, "run.trec")
        yield got.value
    yield unsafe_id_error("query", "a b", file="out.trec")
    yield unsafe_id_error("document", "")
    with tempfile.TemporaryDirectory() as d:
        yield regular_file_error(d)
        fifo = os.path.join(d, "pipe")
        os.mkfifo(fifo)
        yield regular_file_error(fifo)


def test_the_formats_errors_carry_ids_whose_english_is_their_text():
    from ragdash.i18n import message

    errors = list(_formats_errors())
    assert {e.msg_id for e in errors} == {
        "trec.columns", "trec.bad_score", "trec.nul", "trec.empty", "trec.not_unicode",
        "trec.id_whitespace", "trec.id_empty", "file.not_regular"}
    for exc in errors:
        assert message(exc, "en") == str(exc)  # the catalog's English is the text, unchanged
        ja = message(exc, "ja")
        assert ja != str(exc) and ja.endswith("。"), ja
        assert not re.search(r"\b(the|is|not|which)\b", ja), ja
    assert str(errors[0]) == ("run.trec, line 1: expected 6 columns (qid Q0 docno rank score "
                              "tag), found 4. Write one result per line as: qid Q0 docno rank "
                              "score tag.")
    assert message(errors[0], "ja").startswith("run.trec、1 行目: 6 列(qid Q0 docno rank "
                                               "score tag)のはずが 4 列です。")
    assert "クエリ ID 'a b' に空白" in message(errors[5], "ja")
    assert "名前付きパイプ(FIFO)" in message(errors[-1], "ja")
    assert "フォルダー" in message(errors[-2], "ja")


def test_a_callers_own_fix_keeps_the_id_error_english():
    from ragdash.formats.trec_run import unsafe_id_error

    exc = unsafe_id_error("query", "a b", fix="drop --save-run")
    assert exc.msg_id is None and str(exc).endswith("Drop --save-run.")


def test_a_loader_note_keeps_its_id_through_pickling_and_says_it_in_japanese():
    import pickle

    from ragdash.i18n import message, text
    from ragdash.loaders.notes import LoadNote

    note = LoadNote(text("load.qrels_binary", file="q.csv"), code="qrels_binary")
    again = pickle.loads(pickle.dumps(note))
    assert str(again) == ("q.csv: no grade column, so every listed (query, document) pair has "
                          "grade 1")
    assert again.msg_id == "load.qrels_binary" and again.code == "qrels_binary"
    assert message(again, "ja").startswith("q.csv: 関連度の列がないため")
    assert LoadNote("plain", code="x").msg_id is None


def test_the_layout_note_of_a_folder_says_what_was_chosen_in_japanese():
    from ragdash.i18n import message
    from ragdash.loaders import load_dataset

    (note,) = [n for n in load_dataset(ROOT / "ragdash/data/samples/jsquad-mini").notes
               if getattr(n, "code", "") == "layout"]
    assert str(note).endswith(": BEIR layout; corpus corpus.jsonl, queries queries.jsonl, "
                              "qrels qrels/test.tsv (split 'test')")
    assert message(note, "ja").endswith(": BEIR 形式。コーパス corpus.jsonl、クエリ "
                                        "queries.jsonl、qrels qrels/test.tsv(分割 'test')")
    assert note.data["layout"] == "BEIR layout"


def test_the_column_mapping_notes_are_the_same_english_and_say_it_in_japanese():
    from ragdash.i18n import message
    from ragdash.loaders.tables import TableMapping

    for header in (True, False):
        m = TableMapping(kind="corpus", file="c.csv", format="csv", columns=["a", "b", "c"],
                         chosen={"id": "a", "text": "b", "title": None}, overridden=["text"],
                         header=header)
        note = m.note()
        assert str(note) == m.describe()  # the English as before
        ja = message(note, "ja")
        assert "id ← 'a'、text ← 'b'(指定)、title ← (なし)" in ja, ja
        assert ("見出しなし" in ja) is (not header) and "set by you" not in ja
    import pickle

    again = pickle.loads(pickle.dumps(note))
    assert str(again) == str(note) and message(again, "ja") == ja


# -- every user-facing error has an id -----------------------------------------------------
def _literal(node) -> str | None:
    """The text of a literal message (a string, an f-string, or ``+`` of them); ``{}`` for
    each formatted value; None when the message is not written out here."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        if left is not None or right is not None:
            return (left or "{}") + (right or "{}")
    return None


def _error_classes(trees) -> set[str]:
    """The names of RagdashError and its subclasses (ragdash.errors and any module's own),
    and catalog_error, which builds a CostError from its text."""
    import ast
    import inspect

    from ragdash import errors

    names = {n for n, c in vars(errors).items()
             if inspect.isclass(c) and issubclass(c, errors.RagdashError)}
    grew = True
    while grew:
        grew = False
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name not in names and any(
                        getattr(b, "id", getattr(b, "attr", None)) in names for b in node.bases):
                    names.add(node.name)
                    grew = True
    return names | {"catalog_error"}


#: exceptions that carry a phrase for a user into a client's final error: where the phrase is
#: (argument position or keyword)
CARRIERS = {"TransportError": 1, "ReplyError": 0, "BadReply": 0, "_Failure": "detail"}


def literal_error_sites(sources: dict[str, str]) -> list[tuple[str, int, str]]:
    """(path, line, text) of every ragdash error made from a literal English text: an error
    with a message id is made with error()/dataset_error()/with_id() instead."""
    import ast

    trees = {path: ast.parse(src) for path, src in sources.items()}
    classes = _error_classes(trees.values())
    sites = []
    for path, tree in trees.items():
        given_ids = set()  # made in a function that gives them an id (errors.with_id)
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and any(
                    isinstance(c, ast.Call) and getattr(c.func, "id", None) == "with_id"
                    for c in ast.walk(fn)):
                given_ids.update(id(c) for c in ast.walk(fn))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args or id(node) in given_ids:
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
            said = _literal(node.args[0]) if name in classes else None
            if name in CARRIERS:  # the phrase a client's final error says inside its own
                where = CARRIERS[name]
                arg = (next((k.value for k in node.keywords if k.arg == where), None)
                       if isinstance(where, str) else
                       node.args[where] if len(node.args) > where else None)
                said = _literal(arg) if arg is not None else None
            if said is not None and not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)+", said):
                sites.append((path, node.lineno, said))  # (a message id is no text)
    return sorted(sites)


#: Files whose errors are not converted here, with why (none left).
NOT_CONVERTED_FILES: dict[str, str] = {}
#: Errors that stay English, (file, start of the text) -> why. Programmer errors: a state
#: the code cannot reach from a user's input, or a wrong value passed by code.
ENGLISH_ONLY: dict[tuple[str, str], str] = {
    ("ragdash/loaders/detect.py", "an upload must be bytes"):
        "programmer: load_uploads called with something other than bytes (the app passes bytes)",
    ("ragdash/loaders/detect.py", "the {} argument must be a path or (name, bytes)"):
        "programmer: load_table_files called with a wrong type",
    ("ragdash/embeddings/cache.py", "vector files hold {}, not {}"):
        "programmer: the dtype comes from DenseRetriever, which checks --vector-dtype first",
    ("ragdash/embeddings/cache.py", "vectors of {} dimensions for a vector file of {}"):
        "programmer: the writer is given the vectors of the file it was opened for",
    ("ragdash/embeddings/cache.py", "the vector file got {} of {} rows"):
        "programmer: a writer closed before every row was appended",
    ("ragdash/embeddings/probe.py", "a latency probe needs at least one request"):
        "programmer: the probe's callers plan at least one request (else 'no texts' first)",
    ("ragdash/runs/store.py", "RunStore.save takes a ragdash.run.Run"):
        "programmer: a wrong type passed to the Python API",
    ("ragdash/retrieval/cosine.py", "doc_ids has {} entries for {} document vectors"):
        "programmer: the dense retriever passes one id per vector it embedded",
    ("ragdash/retrieval/cosine.py", "k must be at least 0, got {}"):
        "programmer: kmax is checked (>= 1) by the pipeline and the command line first",
    ("ragdash/retrieval/cosine.py", "{} must be a 2-D array (rows x dimensions)"):
        "programmer: a wrong array passed to the Python API",
    ("ragdash/retrieval/cosine.py", "{} must be numbers, got dtype {}"):
        "programmer: a wrong array passed to the Python API",
    ("ragdash/retrieval/chunking.py", "document {} has {} chunks of {} tokens, not a chunk {}"):
        "programmer: a chunk id the chunker itself made",
    ("ragdash/retrieval/chunking.py", "the chunk ranking names chunks that are not in the"):
        "programmer: the chunk ranking comes from the chunk set it is mapped back with",
    ("ragdash/retrieval/dense.py", "vector_dtype must be {}, not {}"):
        "programmer: --vector-dtype has argparse choices; the app offers the two",
    ("ragdash/retrieval/dense.py", "Unknown option(s) for a dense retriever"):
        "programmer: an unknown keyword passed to the Python API",
    ("ragdash/retrieval/dense.py", "Unknown dense retriever {}"):
        "programmer: make_retriever only passes openai or local",
    # the Python API's own input checks: the loaders hand metrics and stats str ids, finite
    # grades and aligned arrays, and say what is wrong with a file where they read it
    ("ragdash/metrics/judging.py", "qrels"): "programmer: qrels of a wrong shape or type passed "
                                             "to the Python API (loaders check files)",
    ("ragdash/metrics/judging.py", "quer"): "programmer: a wrong queries list passed to the "
                                            "Python API",
    ("ragdash/metrics/table.py", "query {} is not in this table"):
        "programmer: a query id the caller did not evaluate",
    ("ragdash/metrics/table.py", "to_frame shape must be"): "programmer: a wrong argument",
    ("ragdash/stats/bootstrap.py", "expected per-query values"): "programmer: array shape",
    ("ragdash/stats/bootstrap.py", "bootstrap_ci takes one value per query"):
        "programmer: array shape",
    ("ragdash/stats/bootstrap.py", "paired values must be two 1-D arrays"):
        "programmer: array shape",
    ("ragdash/stats/bootstrap.py", "curve_bands takes a (queries, K) matrix"):
        "programmer: array shape",
    ("ragdash/stats/significance.py", "paired values must be two 1-D arrays"):
        "programmer: array shape",
    ("ragdash/stats/compare.py", "no pair {} / {} in this comparison"):
        "programmer: a pair the caller did not compare",
    ("ragdash/stats/gate.py", "baseline and candidate need the same metrics"):
        "the gate's callers build both sides from one list of metrics",
    ("ragdash/stats/gate.py", "every metric needs one value per query"):
        "the gate's callers score both sides on the same aligned queries",
    ("ragdash/stats/compare.py", "every run needs one value per query"):
        "programmer: array shape (compare_runs aligns the runs itself)",
    ("ragdash/stats/compare.py", "{} query ids for {} values per run"):
        "programmer: array shape (compare_runs aligns the runs itself)",
    ("ragdash/stats/correction.py", "p-values must be numbers between 0 and 1"):
        "programmer: p-values come from the tests themselves",
}


def _ragdash_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
            for p in sorted((ROOT / "ragdash").rglob("*.py"))}


def test_every_user_facing_error_has_a_message_id():
    sites = literal_error_sites(_ragdash_sources())
    assert len(sites) > len(ENGLISH_ONLY) > 0 or not ENGLISH_ONLY
    left, allowed = [], set()
    for path, line, said in sites:
        if path in NOT_CONVERTED_FILES:
            continue
        key = next((k for k in ENGLISH_ONLY if k[0] == path and said.startswith(k[1])), None)
        if key is None:
            left.append(f"{path}:{line}: {said[:70]!r}")
        else:
            allowed.add(key)
    assert not left, (f"{len(left)} errors made from English text without a message id (use "
                      "ragdash.i18n.error / dataset_error, or list a programmer error in "
                      "ENGLISH_ONLY with why):\n" + "\n".join(left))
    stale = sorted(set(ENGLISH_ONLY) - allowed)
    assert not stale, f"ENGLISH_ONLY names errors that are no longer there: {stale}"


def test_the_literal_error_scan_sees_what_it_claims_to():
    src = {"m.py": (
        "from ragdash.errors import DatasetError, RetrievalError\n"
        "class MyError(RetrievalError):\n    pass\n"
        "def f(x):\n"
        "    raise RetrievalError(f'bad {x}')\n"
        "    raise MyError('plain ' + 'joined')\n"
        "    e = DatasetError('problem', file='a', fix='do')\n"
        "    raise error(RetrievalError, 'retrieval.bad', x=x)\n"
        "    raise ValueError(f'programmer {x}')\n"
        "    raise RetrievalError(str(x))\n"
        "    return catalog_error(f'{x} is empty', file=x)\n"
        "    return catalog_error('cost.cat_empty', file=x)\n"
        "    raise TransportError('timeout', 'no reply')\n"
        "    raise _Failure('invalid', status=200, detail=f'bad {x}')\n"
        "    raise _Failure('invalid', status=200, detail=text('embed.x'))\n"
        "def g(x):\n"
        "    exc = DatasetError(f'{x} has an id below')\n"
        "    return with_id('formats.x', exc, x=x)\n")}
    assert [(line, said) for _, line, said in literal_error_sites(src)] == [
        (5, "bad {}"), (6, "plain joined"), (7, "problem"), (11, "{} is empty"),
        (13, "no reply"), (14, "bad {}")]


def test_what_the_transport_said_and_a_bad_reply_are_japanese_too():
    """A refused connection and a reply that is not embeddings, against real servers on
    127.0.0.1: the English is the text as before; Japanese holds no English phrase."""
    from fake_openai import FakeOpenAI

    from ragdash.embeddings import EmbeddingClient
    from ragdash.errors import EmbeddingError, ServerUnreachableError
    from ragdash.i18n import message

    with FakeOpenAI() as closed:
        url = closed.url  # nothing listens there any more
    with pytest.raises(ServerUnreachableError) as got:
        EmbeddingClient(url, "emb-1", api_key="sk-test", max_retries=0).embed(["a"])
    assert "(connection refused)" in str(got.value) and message(got.value, "en") == str(got.value)
    ja = message(got.value, "ja")
    assert "接続を拒否されました" in ja and "connection refused" not in ja, ja
    with FakeOpenAI() as server:
        server.fault("count")
        with pytest.raises(EmbeddingError) as got:
            EmbeddingClient(server.url, "emb-1", api_key="sk-test", max_retries=0).embed(
                ["a", "b"])
    assert "returned" in str(got.value) and message(got.value, "en") == str(got.value)
    ja = message(got.value, "ja")
    assert "2 件のテキストに" in ja and "OpenAI 互換" in ja and "returned" not in ja, ja


def test_a_rerank_reply_that_cannot_be_right_is_japanese_and_app_worded():
    from fake_rerank import FakeRerank

    from ragdash.errors import RerankError
    from ragdash.i18n import message
    from ragdash.retrieval.rerank import RerankClient

    with FakeRerank("cohere") as server:
        server.fault("fewer")
        with pytest.raises(RerankError) as got:
            RerankClient(server.url, "m", max_retries=0, seed=0).score_groups(
                [("q", ["a", "b", "c"])])
    exc = got.value
    assert str(exc).endswith("returned 2 scores for 3 documents sent: the server dropped or "
                             "invented results; check the model and the server; what was "
                             "already scored is cached.")
    assert message(exc, "en") == str(exc)
    ja = message(exc, "ja", app=True)
    assert "送った 3 件の文書に 2 件のスコアを返しました" in ja and "スコア済みの分" in ja, ja
    assert "returned" not in ja


def test_the_japanese_of_the_core_messages_has_no_english_sentence_left():
    """A message copied into "ja" untranslated (or half of it) is caught: outside values,
    code, quotes and flags no common English word remains."""
    common = re.compile(r"\b(the|is|are|not|which|with|cannot|must|give|check|and|of|to|"
                        r"run)\b")  # a run is 実行 (実行結果 for a run file), as in the app
    left = {}
    for key in CATALOG:
        if key.startswith(("msg.", "cli.cmp.")):
            said = re.sub(r"\{[^}]*\}|`[^`]*`|'[^']*'|\"[^\"]*\"|「[^」]*」|--[\w-]+|https?://\S+"
                          r"|\?run=", "", _ja(key))
            if common.search(said):
                left[key] = _ja(key)
    assert not left, left
    assert common.search("check the path")  # the pattern sees English


def test_the_apps_words_name_no_command_line_flag():
    """``msg.<id>.app`` is the app's copy: fields and pickers, never ``--a-flag`` (a command
    to type in a terminal, in backticks, is allowed)."""
    apps = {k: e for k, e in CATALOG.items() if k.startswith("msg.") and k.endswith(".app")}
    assert len(apps) >= 30
    flagged = {k: e[lang] for k, e in apps.items() for lang in LANGUAGES
               if re.search(r"--[a-z]", re.sub(r"`[^`]*`", "", e[lang]))}
    assert not flagged, flagged
    for key in apps:  # an app copy belongs to a message the command line has
        assert key[:-len(".app")] in CATALOG, key


def test_japanese_names_pages_columns_and_kmax_in_japanese():
    """Japanese names pages and columns in Japanese ("Compare と…", "truncatable 列" and a
    bare "Kmax" are English left in)."""
    pages = [CATALOG[k]["en"] for k in CATALOG if k.startswith("nav.")]
    pages = [p for p in pages if len(p) > 3]  # "Run" is also a word of `ragdash run`
    left = []
    for key, entry in CATALOG.items():
        for text in i18n.forms(entry["ja"]).values():
            plain = re.sub(r"`[^`]*`|\S*/\S*", "", text)  # code and paths stay as they are
            left += [(key, p) for p in pages
                     if re.search(rf"(?<![A-Za-z]){re.escape(p)}(?![A-Za-z])", plain)]
            if re.search(r"truncatable 列|^Kmax$", text):
                left.append((key, text))
    assert left == []
    assert "「比較」ページと同じ対応のある検定" in t("fr.intro", "ja", name="x")


def test_counts_given_as_page_text_pick_the_same_plural_form():
    """The pages pass counts as "1,234" (with separators): "1 runs have" was said."""
    assert t("fr.no_x", "en", n="1", names="a").startswith("1 run has no value")
    assert t("fr.no_x", "en", n=2, names="a, b").startswith("2 runs have no value")
    assert t("res.drop_empty", "en", n="0") == t("res.drop_empty", "en", n=0) == (
        "No query lacks a relevant doc")
    assert t("res.drop_empty", "en", n="1,234") == "Skip 1,234 queries with no relevant doc"
