"""Hostile servers and keys for the rerank client, which sends through ragdash/services/http.py's
Transport like the embeddings client: a cross-host 307 takes no key along (whatever header
carries it), a trickled reply cannot keep --timeout 1 going, replies are read as a capped
stream, and a key with a line break or a curly quote is refused before any request.
Real servers on 127.0.0.1: tests/fake_rerank.py and the raw-socket tests/raw_http.py."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from fake_rerank import FakeRerank
from fake_server import fast_backoff  # noqa: F401
from raw_http import RawServer, _head, endless, gzip_bomb, trickle

from ragdash.errors import RagdashError, RerankError
from ragdash.retrieval.rerank import RerankClient
from ragdash.services import http

KEY = "rk-test-DISTINCTIVE-5e0a9c"
GROUPS = [("a query", ["doc one", "doc two"])]
CLASS_NAMES = ("Error", "Exception", "urllib3", "requests.", "Traceback", "InvalidHeader")


def client(url, **kw):
    kw.setdefault("api_key", KEY)
    kw.setdefault("protocol", "tei")
    kw.setdefault("concurrency", 1)
    kw.setdefault("timeout", 5.0)
    kw.setdefault("seed", 0)
    return RerankClient(url, kw.pop("model", "bge"), **kw)


def one_sentence(text: str) -> None:
    assert "\n" not in text and KEY not in text
    assert not any(name in text for name in CLASS_NAMES), text


@pytest.mark.parametrize("header", ["Authorization", "X-Api-Key", "api-key"])
def test_a_cross_host_redirect_takes_no_key_anywhere(header):
    with FakeRerank("tei") as base, FakeRerank("tei") as other:
        target = f"http://localhost:{other.root.rsplit(':', 1)[1]}/rerank"
        base.fault("status", status=307, body="", headers={"Location": target})
        with pytest.raises(RerankError) as err:
            client(base.url, api_key_header=header).score_groups(GROUPS)
        assert other.requests == []  # neither the key nor the texts reached it
        assert len(base.requests) == 1
    msg = str(err.value)
    assert "HTTP 307" in msg and "localhost:" in msg and "does not follow" in msg
    one_sentence(msg)


def test_a_trickled_reply_ends_at_the_total_deadline():
    body = json.dumps([{"index": 0, "score": 0.5}, {"index": 1, "score": 0.1}]).encode()
    with RawServer(trickle(body, 0.2)) as server:
        c = client(server.url, timeout=1.0, max_retries=0)
        t0 = time.monotonic()
        with pytest.raises(RerankError) as err:
            c.score_groups(GROUPS)
        took = time.monotonic() - t0
    assert took < 3.0, took  # was: the whole trickle (0.2 s per byte, per-read timeout)
    assert "within 1 s" in str(err.value)
    one_sentence(str(err.value))


@pytest.mark.parametrize("behaviour", [endless(), gzip_bomb(64 * 1024 * 1024)],
                         ids=["endless", "gzip-bomb"])
def test_an_endless_or_bombed_reply_stops_at_the_cap(behaviour):
    with RawServer(behaviour) as server, pytest.raises(RerankError) as err:
        client(server.url, max_retries=0).score_groups(GROUPS)
    assert "stopped reading it" in str(err.value)
    one_sentence(str(err.value))


def test_deeply_nested_json_is_one_sentence():
    deep = b"[" * 100_000 + b"]" * 100_000

    def behaviour(conn, request, stopped):
        conn.sendall(_head(200, {"Content-Type": "application/json",
                                 "Content-Length": len(deep)}) + deep)

    with RawServer(behaviour) as server:
        with pytest.raises(RerankError) as err:
            client(server.url).score_groups(GROUPS)
        assert len(server.requests) == 1  # not retried: it would be the same answer
    assert "cannot be read" in str(err.value)
    one_sentence(str(err.value))


@pytest.mark.parametrize("key", ["rk-abc\ndef", "rk-“quoted”", "rk-ｆｕｌｌ"])
def test_a_key_no_header_can_carry_is_refused_before_any_request(key):
    with FakeRerank("tei") as server:
        t0 = time.monotonic()
        with pytest.raises(RagdashError) as err:
            client(server.url, api_key=key).score_groups(GROUPS)
        assert time.monotonic() - t0 < 1.0 and server.requests == []
    assert "no HTTP header can carry" in str(err.value) and key not in str(err.value)


def test_plain_http_to_another_machine_with_a_key_warns():
    assert client("http://10.1.2.3:8080").service._api_key == KEY
    (warning,) = client("http://10.1.2.3:8080").warnings
    assert "10.1.2.3:8080" in warning and http.ALLOW_PLAIN_HTTP_ENV in warning
    assert client("http://127.0.0.1:8080").warnings == []
    assert client("https://api.cohere.com", protocol="cohere").warnings == []


def test_ordinary_replies_still_score():
    with FakeRerank("tei") as server:
        (scores,) = client(server.url).score_groups(GROUPS)
    assert scores.shape == (2,) and all(s == s for s in scores)


def test_the_rerank_cli_warns_about_a_key_over_plain_http(tmp_path, capsys, monkeypatch):
    """The warning is printed before anything is read or sent (the URL is never reached)."""
    from ragdash.cli import main

    monkeypatch.setenv("COHERE_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 x\n")
    code = main(["rerank", str(tmp_path / "missing-dataset"), str(run), "--model", "m",
                 "--base-url", "http://10.1.2.3:8080", "--protocol", "tei",
                 "--api-key-env", "COHERE_API_KEY"])
    err = capsys.readouterr().err
    assert code == 2 and "warning: The API key goes to 10.1.2.3:8080 over plain http://" in err


# -- replies that parse but cannot be right: one sentence, no retry -------------------------
def _reply(index: str, score: str = "0.5") -> str:
    """A TEI-shaped reply for GROUPS whose first item has ``index`` and ``score`` as typed."""
    return f'[{{"index": {index}, "score": {score}}}, {{"index": 0, "score": 0.1}}]'


@pytest.mark.parametrize("body, said", [
    (_reply("1e20"), "index 1.00e+20 for 2 documents"),
    (_reply(str(10**30)), "index 1.00e+30 for 2 documents"),
    (_reply("NaN"), "index"),
    (_reply("Infinity"), "index"),
    (_reply("-Infinity"), "index"),
    (_reply("1.5"), "index"),
    (_reply("1", str(10**400)), "NaN or infinite"),
    (_reply("1", "1e400"), "NaN or infinite"),
], ids=["1e20", "10**30", "NaN", "Infinity", "-Infinity", "1.5", "score 10**400",
        "score 1e400"])
def test_an_impossible_index_or_score_is_one_sentence_and_not_retried(body, said):
    with FakeRerank("tei") as server:
        server.fault("status", status=200, body=body)
        with pytest.raises(RerankError) as err:
            client(server.url).score_groups(GROUPS)
        assert len(server.requests) == 1
    assert said in str(err.value)
    one_sentence(str(err.value))


@pytest.mark.parametrize("body", ["<html><body><h1>502 Bad Gateway</h1></body></html>", ""],
                         ids=["HTML", "empty"])
def test_an_html_or_empty_200_is_asked_again_once_at_most(body):
    with FakeRerank("tei") as server:
        server.fault("status", status=200, body=body, times=9)
        with pytest.raises(RerankError) as err:
            client(server.url, max_retries=6).score_groups(GROUPS)
        assert len(server.requests) == 2  # each retry of a billed request may be billed
    one_sentence(str(err.value))


def test_an_html_200_that_passes_is_answered_on_the_second_request():
    with FakeRerank("tei") as server:
        server.fault("status", status=200, body="<html>proxy warming up</html>")
        scores = client(server.url).score_groups(GROUPS)
        assert len(server.requests) == 2 and np.isfinite(scores[0]).all()


@pytest.mark.parametrize("body", [
    {"error": {"message": "model bge is overloaded, try again later", "type": "server_error"}},
    {"error": "model bge is overloaded, try again later", "error_type": "Overloaded"},
], ids=["openai-shaped", "tei-shaped"])
def test_a_200_carrying_an_error_keeps_the_servers_own_words(body):
    with FakeRerank("tei") as server:
        server.fault("status", status=200, body=body)
        with pytest.raises(RerankError) as err:
            client(server.url).score_groups(GROUPS)
        assert len(server.requests) == 1
    assert "model bge is overloaded, try again later" in str(err.value)
    one_sentence(str(err.value))
