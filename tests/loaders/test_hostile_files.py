"""The loaders' reading layer: inputs that would otherwise end in a traceback or a hang end
in one DatasetError naming the file and line (real files on disk, a real FIFO)."""

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


# -- 6: a .zip (or .gz) cannot exhaust memory ---------------------------------------------
def zip_with_line(path: Path, line_mb: int, *, members: int = 1) -> Path:
    """A BEIR .zip whose corpus.jsonl has one line of ``line_mb`` MB (written in a stream, so
    the test never holds it), and ``members - 1`` more such corpus files as extra members."""
    import zipfile

    block = b"a" * (1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(members):
            name = "corpus.jsonl" if i == 0 else f"extra/corpus{i}.jsonl"
            with zf.open(name, "w", force_zip64=True) as f:
                f.write(b'{"_id": "d1", "text": "')
                for _ in range(line_mb):
                    f.write(block)
                f.write(b'"}\n')
        zf.writestr("queries.jsonl", QUERIES)
        zf.writestr("qrels/test.tsv", QRELS)
    return path


def test_a_zip_with_one_huge_line_stops_at_the_line_limit(tmp_path):
    path = zip_with_line(tmp_path / "bomb.zip", 40)   # default limit 16 MB
    assert path.stat().st_size < 200_000              # 40 MB unzipped, 0.04 MB zipped
    with pytest.raises(DatasetError) as exc:
        load_dataset(path)
    assert exc.value.file == f"{path}:corpus.jsonl" and exc.value.line == 1
    assert "longer than 16 MB" in message(exc) and "RAGDASH_MAX_LINE_MB=64" in message(exc)


def test_the_line_limit_is_adjustable_and_applies_to_uploads(tmp_path, monkeypatch):
    data = zip_with_line(tmp_path / "up.zip", 3).read_bytes()
    assert load_uploads([("up.zip", data)]).documents[0].text.startswith("aaa")  # 3 < 16 MB
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "2")
    with pytest.raises(DatasetError) as exc:
        load_uploads([("up.zip", data)])
    assert exc.value.file == "up.zip:corpus.jsonl" and "longer than 2.0 MB" in message(exc)


def test_a_plain_file_line_over_the_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "1")
    folder = beir(tmp_path / "ds", '{"_id": "d1", "text": "ok"}\n'
                                  '{"_id": "d2", "text": "' + "b" * (1 << 21) + '"}\n')
    with pytest.raises(DatasetError) as exc:
        load_dataset(folder)
    assert exc.value.file.endswith("corpus.jsonl") and exc.value.line == 2


def test_what_a_zip_unzips_to_is_limited_before_it_is_read(tmp_path, monkeypatch):
    path = zip_with_line(tmp_path / "big.zip", 3)
    monkeypatch.setenv("RAGDASH_MAX_UNZIPPED_MB", "2")
    with pytest.raises(DatasetError) as exc:
        load_dataset(path)
    assert exc.value.file == f"{path}:corpus.jsonl"
    assert "unzips to 3.0 MB, over the limit of 2.0 MB unzipped" in message(exc)
    assert "RAGDASH_MAX_UNZIPPED_MB=" in message(exc)
    monkeypatch.setenv("RAGDASH_MAX_UNZIPPED_MB", "10")
    assert len(load_dataset(path).documents) == 1


def test_a_gzip_member_is_cut_off_at_the_unzipped_limit(tmp_path, monkeypatch):
    import gzip

    folder = beir(tmp_path / "ds", "")
    (folder / "corpus.jsonl").unlink()
    with gzip.open(folder / "corpus.jsonl.gz", "wb") as f:
        for i in range(3000):
            f.write(json.dumps({"_id": f"d{i}", "text": "x" * 1000}).encode() + b"\n")
    monkeypatch.setenv("RAGDASH_MAX_UNZIPPED_MB", "1")
    with pytest.raises(DatasetError) as exc:
        load_dataset(folder)
    assert exc.value.file.endswith("corpus.jsonl.gz") and "more than 1.0 MB" in message(exc)


@pytest.mark.parametrize("value", ["lots", "0", "-3", "nan", "inf"])
def test_a_limit_that_is_not_a_number_is_one_sentence(tmp_path, monkeypatch, value):
    from ragdash.loaders import read_limits

    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", value)
    with pytest.raises(DatasetError, match=r"RAGDASH_MAX_LINE_MB.*not a number of megabytes"):
        read_limits()


def test_the_cli_refuses_a_zip_bomb_in_one_sentence_and_little_memory(tmp_path):
    """The issue's case at 1/8 scale: a zip holding one 256 MB line (2 GB passed 4 GB RSS)."""
    path = zip_with_line(tmp_path / "bomb.zip", 256)
    # RUSAGE_CHILDREN of this process would be the largest child of the whole test session
    # (a torch-loading CLI run, say): a fresh parent measures only the one command
    measure = ("import resource, subprocess, sys; "
               "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
               "sys.stderr.write(p.stderr); sys.exit(p.returncode)")
    proc = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "ragdash",
                           "evaluate", str(path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path.cwd())})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "corpus.jsonl, line 1: this line is longer than 16 MB" in proc.stderr
    peak_kb = int(proc.stdout)
    assert peak_kb < 400_000, f"peak RSS of a child {peak_kb} KB"


def test_a_json_gz_bomb_is_read_only_up_to_the_json_limit(tmp_path, monkeypatch):
    """A whole-file JSON is parsed in memory: a small .json.gz that expands far stops at
    RAGDASH_MAX_JSON_MB, having read only that much."""
    import gzip

    monkeypatch.setenv("RAGDASH_MAX_JSON_MB", "2")
    path = tmp_path / "a.json.gz"
    with gzip.open(path, "wb") as f:
        f.write(b'{"corpus": ["' + b"a" * (8 << 20) + b'"], "queries": []}')
    assert path.stat().st_size < 100_000
    with pytest.raises(DatasetError) as exc:
        load_dataset(path)
    assert exc.value.file == str(path) and "larger than 2.0 MB" in message(exc)
    assert "RAGDASH_MAX_JSON_MB=4" in message(exc) and "JSONL" in message(exc)
    monkeypatch.setenv("RAGDASH_MAX_JSON_MB", "16")
    with pytest.raises(DatasetError, match="queries"):  # read in full now: the next check
        load_dataset(path)


def test_an_article_json_in_a_zip_and_in_an_upload_obeys_the_json_limit(tmp_path, monkeypatch):
    import zipfile

    monkeypatch.setenv("RAGDASH_MAX_JSON_MB", "1")
    big = article_text('"' + "b" * (2 << 20) + '"').encode()
    with pytest.raises(DatasetError, match=r"larger than 1\.0 MB"):
        load_uploads([("big.json", big)])
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.json", big)
    with pytest.raises(DatasetError) as exc:
        load_dataset(path)
    assert exc.value.file == f"{path}:a.json"
