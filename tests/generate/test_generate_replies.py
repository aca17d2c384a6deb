"""``python -m ragdash generate`` against a real chat server on 127.0.0.1 (tests/generate/world.py)
whose replies are hard to use: CRLF line endings, HTTP 500 on every request, replies that are
never one query, queries with control characters — and corpora whose ids no TSV can hold.

What must hold: a CRLF grade is read; a failure is never cached, so the rerun against a fixed
server asks again; a job that keeps no query is one sentence and exit 2, with nothing written
or stored; a query with a control character is dropped and counted; an id with a control
character is refused by name before anything is sent; what generate writes, the loader reads
back as it was written.
"""

from __future__ import annotations

import json
import sqlite3

from fake_chat import FakeChat
from world import Writer

from ragdash.cli import main
from ragdash.loaders import load_dataset

WORDS = ["apple", "river", "castle", "engine", "violin", "glacier", "harbor", "comet"]


def doc_text(word: str) -> str:
    return (f"{word} guide: it explains where the {word} is kept. Records of the {word} go "
            f"back many years and list every change made to it.")


def write_corpus(folder, ids=None, words=WORDS):
    """A corpus.jsonl of one document per word; ``ids`` the documents' ids (default d0, d1…)."""
    ids = ids or [f"d{i}" for i in range(len(words))]
    path = folder / "corpus.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i, w in zip(ids, words):
            f.write(json.dumps({"_id": i, "text": doc_text(w)}, ensure_ascii=False) + "\n")
    return path


def generate(corpus, server, out, *extra):
    return main(["generate", str(corpus), "--n", str(len(WORDS)), "--base-url", server.url,
                 "--model", "gpt-4o-mini", "--out", str(out), *extra])


def last_line(err: str) -> str:
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def stored_sets(home) -> int:
    store = home / "runs.sqlite"
    if not store.exists():
        return 0
    with sqlite3.connect(store) as conn:
        return conn.execute("SELECT COUNT(*) FROM datasets").fetchone()[0]


def test_crlf_replies_are_read(home, tmp_path, capsys):
    corpus = write_corpus(tmp_path)
    out = tmp_path / "set"
    with FakeChat(answer=Writer({}, eol="\r\n")) as server:
        rc = generate(corpus, server, out, "--format", "json", "--no-store")
        captured = capsys.readouterr()
    assert rc == 0, captured.err
    report = json.loads(captured.out)
    assert report["kept"] == len(WORDS) and report["dropped"] == {}, report["dropped"]
    assert len(load_dataset(out).queries) == len(WORDS)


def test_every_request_failing_writes_nothing_and_a_fixed_server_is_asked_again(home, tmp_path,
                                                                               capsys):
    corpus = write_corpus(tmp_path)
    out = tmp_path / "set"
    with FakeChat(answer=Writer({})) as server:
        server.fault("status", status=500, headers={"Retry-After": "0"}, times=10**6)
        rc = generate(corpus, server, out)
        err = last_line(capsys.readouterr().err)
        assert rc == 2 and err.startswith("error: None of the 8 requests"), err
        assert "HTTP 500" in err, err
        assert not out.exists() and stored_sets(home) == 0
        server.clear_faults()  # the server is fixed: the rerun asks again
        before = len(server.requests)
        rc = generate(corpus, server, out, "--format", "json")
        captured = capsys.readouterr()
        assert rc == 0, captured.err
        report = json.loads(captured.out)
        writing = [r for r in server.requests[before:]
                   if "##final score" not in r.body["messages"][-1]["content"]]
    assert len(writing) == report["usage"]["writing"]["requests"] == len(WORDS)
    assert report["kept"] == len(WORDS) and stored_sets(home) == 1
    assert len(load_dataset(out).queries) == len(WORDS)


def test_no_reply_that_is_one_query_is_one_sentence_and_writes_nothing(home, tmp_path, capsys):
    corpus = write_corpus(tmp_path)
    out = tmp_path / "set"
    writer = Writer({doc_text(w): "two" for w in WORDS})
    with FakeChat(answer=writer) as server:
        rc = generate(corpus, server, out)
    err = last_line(capsys.readouterr().err)
    assert rc == 2 and "None of the 8 queries written was kept (8 were not one query)" in err
    assert not out.exists() and stored_sets(home) == 0


def test_a_judge_that_never_grades_is_its_sentence(home, tmp_path, capsys):
    corpus = write_corpus(tmp_path)
    out = tmp_path / "set"
    writer = Writer({doc_text(w): "nograde" for w in WORDS})
    with FakeChat(answer=writer) as server:
        rc = generate(corpus, server, out, "--no-store")
    err = last_line(capsys.readouterr().err)
    assert rc == 2 and "None of the 8 pairs sent to gpt-4o-mini got a grade" in err, err
    assert "with no grade stated" in err and not out.exists()


def test_a_query_with_control_characters_is_dropped_and_counted(home, tmp_path, capsys):
    corpus = write_corpus(tmp_path)
    out = tmp_path / "set"
    writer = Writer({doc_text("apple"): "ansi", doc_text("river"): "nul"})
    with FakeChat(answer=writer) as server:
        rc = generate(corpus, server, out, "--format", "json", "--no-store")
        captured = capsys.readouterr()
    assert rc == 0, captured.err
    report = json.loads(captured.out)
    assert report["dropped"] == {"control": 2} and report["kept"] == len(WORDS) - 2
    assert report["examples"]["control"] in (
        "\\x1b[1mWhere would I read about apple?\\x1b[0m",
        "Where would I read\\x00 about river?")
    loaded = load_dataset(out)
    assert len(loaded.queries) == len(WORDS) - 2
    assert not any(c < " " or "\x7f" <= c <= "\x9f" for q in loaded.queries for c in q.text)
    # the report says so
    with FakeChat(answer=writer) as server:
        assert generate(corpus, server, tmp_path / "again", "--no-store") == 0
    assert "2 with control characters (NUL, ESC, ...)" in capsys.readouterr().out


def test_an_id_with_a_control_character_is_refused_by_name(home, tmp_path, capsys):
    for bad in ("d1\nx", "d1\tx", "d1\x1b[2J"):
        corpus = write_corpus(tmp_path, ids=["d0", bad, *(f"d{i}" for i in range(2, 8))])
        out = tmp_path / "set"
        with FakeChat(answer=Writer({})) as server:
            rc = generate(corpus, server, out)
            assert server.requests == []  # refused before anything is sent
        err = capsys.readouterr().err.strip()
        assert rc == 2 and "\n" not in err and "Traceback" not in err, err
        assert f"the document id {bad!r} has a control character" in err, err
        assert not out.exists()


def test_what_generate_writes_the_loader_reads_back(home, tmp_path, capsys):
    ids = ["doc 1", "文書#2", "a/b:c", "x\u2028y", "q=1&r=2", "'quoted'", "d\u00a0nbsp",
           "last-one"]
    corpus = write_corpus(tmp_path, ids=ids)
    out = tmp_path / "set"
    with FakeChat(answer=Writer({})) as server:
        rc = generate(corpus, server, out, "--format", "json", "--no-store")
        captured = capsys.readouterr()
    assert rc == 0, captured.err
    loaded = load_dataset(out)
    assert [d.id for d in loaded.documents] == ids
    records = [json.loads(line) for line in (out / "queries.jsonl").read_text(
        encoding="utf-8").split("\n") if line]  # JSON lines end in \n only (U+2028 is text)
    assert len(records) == len(loaded.queries) == json.loads(captured.out)["kept"] > 0
    for row in records:  # each query's source passage, grade 3, as written
        assert loaded.qrels[row["_id"]][row["source_doc"]] == 3.0
        assert loaded.query(row["_id"]).text == row["text"]
