"""Issue #13, the loaders' reading layer: inputs that used to end in a traceback or a hang
end in one DatasetError naming the file and line (real files on disk, a real FIFO)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ragdash.errors import DatasetError
from ragdash.loaders import load_dataset, load_qrels, load_uploads
from ragdash.ranking import Ranking

QUERIES = '{"_id": "q1", "text": "first"}\n'
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"
LONG = "1" * 5000


def beir(folder: Path, corpus: str, queries: str = QUERIES) -> Path:
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(corpus, encoding="utf-8")
    (folder / "queries.jsonl").write_text(queries, encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text(QRELS, encoding="utf-8")
    return folder


def article_text(doc: str) -> str:
    """An article JSON over several lines, ``doc`` (raw JSON) the third document, line 5."""
    return ('{\n  "corpus": [\n    "a",\n    "b",\n    ' + doc + '\n  ],\n'
            '  "queries": [{"query": "x", "relevant_docs": [0]}]\n}\n')


def message(exc: pytest.ExceptionInfo) -> str:
    return str(exc.value)


# -- 8: a JSON integer longer than Python reads -------------------------------------------
def test_a_long_integer_in_the_article_json_names_the_file_and_line(tmp_path):
    path = tmp_path / "a.json"
    path.write_text(article_text(LONG), encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        load_dataset(path)
    assert exc.value.file == str(path) and exc.value.line == 5
    assert "5,000 digits" in message(exc) and "as strings" in message(exc)


def test_a_long_integer_in_a_jsonl_line_names_the_file_and_line(tmp_path):
    folder = beir(tmp_path / "ds", '{"_id": "d1", "text": "one"}\n'
                                  '{"_id": ' + LONG + ', "text": "two"}\n')
    with pytest.raises(DatasetError) as exc:
        load_dataset(folder)
    assert exc.value.file.endswith("corpus.jsonl") and exc.value.line == 2
    assert "5,000 digits" in message(exc)


def test_a_long_integer_in_an_uploaded_article_is_one_sentence():
    with pytest.raises(DatasetError) as exc:
        load_uploads([("up.json", article_text("-" + LONG).encode())])
    assert exc.value.file == "up.json" and exc.value.line == 5


def test_an_integer_at_the_limit_still_loads(tmp_path):
    path = tmp_path / "a.json"
    path.write_text(article_text('"c"').replace('"relevant_docs": [0]',
                                                '"relevant_docs": [0], "n": ' + "7" * 4300))
    assert len(load_dataset(path).documents) == 3


# -- 8: a lone surrogate escape ------------------------------------------------------------
@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\ud83d x"])
def test_a_lone_surrogate_in_the_article_json_is_refused_with_its_line(tmp_path, escape):
    path = tmp_path / "a.json"
    path.write_text(article_text(f'"text {escape}"'), encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        load_dataset(path)
    assert exc.value.line == 5 and "lone surrogate" in message(exc)
    assert escape.split()[0] in message(exc)


def test_a_lone_surrogate_in_a_jsonl_title_is_refused_with_its_line(tmp_path):
    folder = beir(tmp_path / "ds", '{"_id": "d1", "text": "one"}\n'
                                  '{"_id": "d2", "title": "t\\udc00", "text": "two"}\n')
    with pytest.raises(DatasetError) as exc:
        load_dataset(folder)
    assert exc.value.file.endswith("corpus.jsonl") and exc.value.line == 2
    assert "\\udc00" in message(exc)


def test_a_lone_surrogate_in_an_uploaded_query_is_refused():
    files = {"corpus.jsonl": '{"_id": "d1", "text": "one"}\n',
             "queries.jsonl": '{"_id": "q1", "text": "\\ud800"}\n', "qrels/test.tsv": QRELS}
    with pytest.raises(DatasetError) as exc:
        load_uploads([(n, t.encode()) for n, t in files.items()])
    assert exc.value.file == "queries.jsonl" and exc.value.line == 1


@pytest.mark.parametrize("raw, text", [("\\ud83d\\ude00", "\U0001f600"),     # a whole pair
                                       ("\\\\ud800", "\\ud800"),             # an escaped \
                                       ("\\u00e9", "é")])
def test_pairs_and_escaped_backslashes_load_and_fingerprint(tmp_path, raw, text):
    path = tmp_path / "a.json"
    path.write_text(article_text(f'"{raw}"'), encoding="utf-8")
    ds = load_dataset(path)
    assert ds.documents[2].text == text
    assert len(ds.fingerprint()) == 64


# -- 7: a FIFO or a device is not read -----------------------------------------------------
@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "data.json"
    os.mkfifo(path)
    yield path
    # unblock anything that did open it (so a failing test does not hang the session)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    os.close(fd)


def within(seconds: float, fn):
    """Run ``fn`` in a thread; fail (instead of hanging) when it takes longer."""
    out: dict = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed to the test
            out["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still reading after {seconds} s (a FIFO waits forever)"
    if "error" in out:
        raise out["error"]
    return out.get("value")


def test_a_fifo_named_as_the_dataset_is_refused(fifo):
    with pytest.raises(DatasetError) as exc:
        within(5, lambda: load_dataset(fifo))
    assert exc.value.file == str(fifo) and "named pipe (FIFO)" in message(exc)


def test_a_fifo_inside_a_dataset_folder_is_refused(tmp_path):
    folder = beir(tmp_path / "ds", '{"_id": "d1", "text": "one"}\n')
    (folder / "queries.jsonl").unlink()
    os.mkfifo(folder / "queries.jsonl")
    with pytest.raises(DatasetError) as exc:
        within(5, lambda: load_dataset(folder))
    assert exc.value.file.endswith("queries.jsonl") and "FIFO" in message(exc)


def test_a_fifo_as_qrels_or_run_is_refused(fifo):
    with pytest.raises(DatasetError, match="FIFO"):
        within(5, lambda: load_qrels(fifo))
    with pytest.raises(DatasetError, match="FIFO"):
        within(5, lambda: Ranking.read_trec(fifo))


def test_a_character_device_is_refused():
    with pytest.raises(DatasetError, match="character device"):
        within(5, lambda: load_dataset("/dev/zero"))


def test_score_on_a_fifo_is_one_sentence_not_a_hang(fifo, tmp_path):
    qrels = tmp_path / "q.tsv"
    qrels.write_text(QRELS)
    for args in ([str(fifo), str(qrels)], [str(qrels), str(fifo)]):
        proc = subprocess.run([sys.executable, "-m", "ragdash", "score", *args],
                              capture_output=True, text=True, timeout=30,
                              env={**os.environ, "PYTHONPATH": str(Path.cwd())})
        assert proc.returncode == 2, proc.stderr
        assert "named pipe (FIFO), not a regular file" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_json_helper_keeps_json_errors_for_the_callers_wording(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"corpus": [1 2]}')
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_dataset(path)
    assert json.loads('"ok"') == "ok"
