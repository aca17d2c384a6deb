"""The HTTP transport (ragdash/services/http.py) under faults, through the embeddings client
and alone.

Real servers on 127.0.0.1: FakeOpenAI (tests/fake_openai.py) for protocol-level faults, and a
raw-socket server (tests/raw_http.py) for trickled, endless and gzip-bomb replies. Caps are set
low here so that the memory cases stay small and fast.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from fake_server import fast_backoff  # noqa: F401
from raw_http import RawServer, endless, gzip_bomb, gzip_reply, trickle

from ragdash.embeddings import EmbeddingClient
from ragdash.errors import AuthenticationError, EmbeddingError, ServerUnreachableError
from ragdash.services import http

KEY = "sk-test-DISTINCTIVE-7d1f93c2aa"
CLASS_NAMES = ("Error", "Exception", "RemoteDisconnected", "ProtocolError", "urllib3",
               "requests.", "Traceback")


def client(url, **kw):
    kw.setdefault("api_key", KEY)
    kw.setdefault("concurrency", 1)
    kw.setdefault("timeout", 5.0)
    kw.setdefault("seed", 0)
    return EmbeddingClient(url, kw.pop("model", "emb-1"), **kw)


def one_sentence(text: str) -> None:
    assert "\n" not in text and KEY not in text
    assert not any(name in text for name in CLASS_NAMES), text


def vectors_reply(texts, dim=4):
    return {"data": [{"index": i, "embedding": [float(j + 1) for j in range(dim)]}
                     for i in range(len(texts))],
            "usage": {"prompt_tokens": 3}}


# -- 1. credentials never follow a redirect to another host ---------------------------------
@pytest.mark.parametrize("header", ["Authorization", "X-Api-Key", "api-key"])
def test_cross_host_redirect_is_refused_for_every_header_kind(header):
    with FakeOpenAI(auth_header=header.lower(), api_key=KEY) as base, \
            FakeOpenAI(auth_header=header.lower()) as other:
        # localhost is another host name than 127.0.0.1 (and another port): a different origin
        target = f"http://localhost:{other.port}/v1/embeddings"
        base.fault("status", status=307, body="", headers={"Location": target})
        c = client(base.url, api_key_header=header)
        with pytest.raises(EmbeddingError) as err:
            c.embed(["a text"])
        ports = base.port, other.port
    msg = str(err.value)
    assert f"127.0.0.1:{ports[0]}" in msg and f"localhost:{ports[1]}" in msg
    assert "HTTP 307" in msg and "does not follow" in msg
    one_sentence(msg)
    assert other.requests == []  # not the key, not the texts: nothing reached the other host
    assert len(base.requests) == 1  # and a refused redirect is not retried


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_same_host_redirect_is_followed_with_the_key_and_body(status):
    with FakeOpenAI(api_key=KEY, auth_header="x-api-key") as server:
        server.fault("status", status=status, body="",
                     headers={"Location": "/moved/v1/embeddings"})
        got = client(server.url, api_key_header="X-Api-Key").embed(["a", "b"])
    assert got.shape == (2, server.dim)
    moved = server.requests[1]
    assert moved.path == "/moved/v1/embeddings" and moved.headers["x-api-key"] == KEY
    assert moved.inputs == ["a", "b"]  # the POST and its body, not a GET


def test_transport_allows_only_the_configured_origin():
    t = http.Transport("http://api.example.com/v1")
    assert t._allowed("http://api.example.com/other")
    assert t._allowed("https://api.example.com/v1")  # an upgrade to TLS on default ports
    assert not t._allowed("http://api.example.com:8080/v1")
    assert not t._allowed("http://evil.example.com/v1")
    s = http.Transport("https://api.example.com/v1")
    assert not s._allowed("http://api.example.com/v1")  # never a downgrade to clear text


def test_redirect_loop_on_the_same_host_ends_in_a_sentence():
    with FakeOpenAI() as server:
        server.fault("status", status=307, body="", headers={"Location": "/v1/embeddings"},
                     times=20)
        with pytest.raises(EmbeddingError, match="more than 5 times"):
            client(server.url).embed(["a"])


# -- 5. a total deadline, whatever the server trickles --------------------------------------
@pytest.mark.parametrize("headers_too", [False, True])
def test_a_trickled_reply_ends_at_the_total_deadline(headers_too):
    body = json.dumps(vectors_reply(["a"])).encode()
    with RawServer(trickle(body, 0.2, headers_too=headers_too)) as server:
        c = client(server.url, timeout=1.0, max_retries=0)
        t0 = time.monotonic()
        with pytest.raises(ServerUnreachableError) as err:
            c.embed(["a"])
        took = time.monotonic() - t0
    assert took < 2.0, took  # before: a per-read timeout, kept alive for as long as it trickles
    assert "within 1 s (the timeout covers connecting and the whole reply)" in str(err.value)
    one_sentence(str(err.value))


def test_a_slow_but_timely_reply_is_read():
    body = json.dumps(vectors_reply(["a"], dim=2)).encode()
    with RawServer(trickle(body, 0.001)) as server:
        got = client(server.url, timeout=5.0, max_retries=0).embed(["a"])
    np.testing.assert_allclose(got, [[1 / 5**0.5, 2 / 5**0.5]], rtol=1e-6)


# -- 4. a bounded reply ------------------------------------------------------------------------
@pytest.fixture
def small_cap(monkeypatch):
    """Caps of 64 KB for a reply (the floor) and 16 numbers per unknown vector."""
    monkeypatch.setattr(http, "REPLY_FLOOR", 64 * 1024)
    monkeypatch.setattr(http, "UNKNOWN_NUMBERS_PER_ITEM", 16)


def test_an_endless_reply_stops_at_the_cap(small_cap):
    with RawServer(endless()) as server:
        t0 = time.monotonic()
        with pytest.raises(EmbeddingError) as err:
            client(server.url, timeout=10.0).embed(["a", "b"])
        took = time.monotonic() - t0
        assert len(server.requests) == 1  # not retried: it would be the same again
    msg = str(err.value)
    assert "larger than 64 KB decoded" in msg and "stopped reading" in msg
    assert took < 3.0
    one_sentence(msg)


def test_a_gzip_bomb_stops_at_the_cap_without_expanding(small_cap):
    import resource

    bomb = gzip_bomb(64 * 1024 * 1024)  # 64 MB of spaces in ~64 KB of gzip
    assert bomb.compressed < 200_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with RawServer(bomb) as server, pytest.raises(EmbeddingError,
                                                  match="larger than 64 KB decoded"):
        client(server.url).embed(["a"])
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 32, grown_mb  # the 64 MB were never held


def test_the_cap_grows_with_the_batch_and_the_dimension():
    assert http.reply_limit(1, 8) == http.REPLY_FLOOR
    big = http.reply_limit(256, 3072)
    assert big == 256 * 3072 * http.BYTES_PER_NUMBER + 256 * 1024
    assert http.reply_limit(256, None) == 256 * 8192 * 32 + 256 * 1024


def test_a_real_gzip_reply_is_decoded():
    with RawServer(gzip_reply(vectors_reply(["a", "b"], dim=3))) as server:
        got = client(server.url).embed(["a", "b"])
    assert got.shape == (2, 3)


def test_an_error_reply_is_read_only_up_to_its_cap(monkeypatch):
    monkeypatch.setattr(http, "ERROR_REPLY_BYTES", 1024)
    with FakeOpenAI() as server:
        server.fault("status", status=400, body={"error": {"message": "bad " * 10_000}})
        with pytest.raises(EmbeddingError, match=r"HTTP 400: bad bad") as err:
            client(server.url).embed(["a"])
    assert len(str(err.value)) < 500


# -- 8. replies that would otherwise end in a traceback --------------------------------------
DEEP = "[" * 100_000 + "]" * 100_000


def test_deeply_nested_json_in_a_200_is_one_sentence_and_not_retried():
    with FakeOpenAI() as server:
        server.fault("status", status=200, body=DEEP)
        with pytest.raises(EmbeddingError) as err:
            client(server.url).embed(["a"])
        assert len(server.requests) == 1
        assert server.url in str(err.value)
    assert "nested too deeply" in str(err.value)
    one_sentence(str(err.value))


@pytest.mark.parametrize("status,words", [(400, "refused the request (HTTP 400"),
                                          (500, "kept failing with HTTP 500")])
def test_deeply_nested_json_in_an_error_reply_is_one_sentence(status, words):
    with FakeOpenAI() as server:
        server.fault("status", status=status, body=DEEP, times=10)
        with pytest.raises(EmbeddingError) as err:
            client(server.url, max_retries=1).embed(["a"])
    assert words in str(err.value)
    one_sentence(str(err.value))


def test_a_json_number_too_long_is_one_sentence():
    with FakeOpenAI() as server:
        server.fault("status", status=200, body='{"data": [], "usage": {"prompt_tokens": '
                     + "9" * 5000 + "}}")
        with pytest.raises(EmbeddingError, match="a number too long to read"):
            client(server.url).embed(["a"])


@pytest.mark.parametrize("tokens", ["1e999", "-1e999", "-5", "true", '"12"'])
def test_unusable_prompt_tokens_are_estimated_not_a_traceback(tokens):
    body = json.dumps(vectors_reply(["a"])).replace('"prompt_tokens": 3',
                                                     f'"prompt_tokens": {tokens}')
    with FakeOpenAI() as server:
        server.fault("status", status=200, body=body)
        c = client(server.url)
        got = c.embed(["a"])
    assert got.shape == (1, 4)
    assert c.usage["prompt_tokens"] >= 1  # the estimate, not infinity
    assert any("did not report token usage" in n for n in c.notes)


@pytest.mark.parametrize("key,kind", [("sk-abc\ndef", "a line break"),
                                      ("sk-abc\u201cdef", "outside Latin-1"),
                                      ("sk-ｆｕｌｌ", "outside Latin-1"),
                                      ("sk-abc\x00def", "a control character")])
def test_a_key_no_header_can_carry_is_refused_before_any_request(key, kind):
    with FakeOpenAI() as server:
        t0 = time.monotonic()
        with pytest.raises(AuthenticationError) as err:
            client(server.url, api_key=key).embed(["a"])
        assert time.monotonic() - t0 < 0.5  # before: 22 s of retries for the line break
        assert server.requests == []
    msg = str(err.value)
    assert "has a character no HTTP header can carry" in msg and kind in msg
    assert key not in msg and "def" not in msg
    one_sentence(msg)


def test_a_header_name_that_is_not_a_token_is_refused():
    with pytest.raises(AuthenticationError, match="cannot be an HTTP header name"):
        client("http://127.0.0.1:9/v1", api_key_header="X Api Key")


# -- 3. a key over plain http to another machine ---------------------------------------------
def test_plain_http_to_another_host_with_a_key_warns(monkeypatch):
    monkeypatch.delenv(http.ALLOW_PLAIN_HTTP_ENV, raising=False)
    c = client("http://gpu-box.lan:8080/v1")
    assert len(c.warnings) == 1
    w = c.warnings[0]
    assert "gpu-box.lan:8080" in w and "plain http" in w and http.ALLOW_PLAIN_HTTP_ENV in w
    assert KEY not in w
    for quiet in ("http://127.0.0.1:8080/v1", "http://localhost:8080/v1",
                  "http://[::1]:8080/v1", "https://gpu-box.lan/v1"):
        assert client(quiet).warnings == [], quiet
    assert client("http://gpu-box.lan:8080/v1", api_key=None).warnings == []
    monkeypatch.setenv(http.ALLOW_PLAIN_HTTP_ENV, "1")
    assert client("http://gpu-box.lan:8080/v1").warnings == []


# -- 14. replies without index ------------------------------------------------------------------
def test_a_reply_with_no_index_at_all_is_taken_in_order_with_a_note():
    texts = ["one", "two", "three"]
    with FakeOpenAI() as server:
        server.fault("noindex")
        c = client(server.url)
        got = c.embed(texts)
    # the order is the only evidence: taken as sent (this server reversed it) and said so
    expect = np.stack([FakeOpenAI.vector(t, server.dim) for t in reversed(texts)])
    expect /= np.linalg.norm(expect, axis=1, keepdims=True)
    np.testing.assert_allclose(got, expect, atol=1e-6)
    assert any("without an 'index' field" in n for n in c.notes)


def test_a_reply_with_some_indexes_missing_is_refused():
    with FakeOpenAI() as server:
        server.fault("partial_index")
        with pytest.raises(EmbeddingError, match="1 of 3 vectors without an 'index' field"):
            client(server.url).embed(["a", "b", "c"])


# -- 15. wording ------------------------------------------------------------------------------
@pytest.mark.parametrize("message,advice", [
    ("too many inputs: 256 > 100", "--batch-size 100 or less"),
    ("'input' array must have at most 96 items", "--batch-size 96 or less"),
    ("Too many inputs in the request", "a smaller --batch-size"),
])
def test_too_many_inputs_advises_the_batch_size(message, advice):
    with FakeOpenAI() as server:
        server.fault("status", status=400, body={"error": {"message": message}})
        with pytest.raises(EmbeddingError) as err:
            client(server.url).embed(["a", "b"])
    assert advice in str(err.value)
    one_sentence(str(err.value))


def test_repeated_connection_resets_are_said_in_words():
    with FakeOpenAI() as server:
        server.fault("drop", times=10)
        with pytest.raises(ServerUnreachableError) as err:
            client(server.url, max_retries=2).embed(["a"])
    assert "the server closed the connection" in str(err.value)
    one_sentence(str(err.value))


# -- the transport alone, as another client (rerank) uses it ---------------------------------
def test_transport_post_and_parse_as_another_client_would():
    with FakeOpenAI() as server:
        t = http.Transport(server.url, concurrency=2, timeout=5)
        body = json.dumps({"input": ["x"], "model": "m"}).encode()
        reply = t.post(server.url + "/embeddings", data=body,
                       headers={"Content-Type": "application/json"},
                       max_bytes=http.reply_limit(1, 8))
        obj = http.parse_json(reply.body)
        again = t.post(server.url + "/embeddings", data=body, headers={}, max_bytes=10**6)
        t.close()
    assert reply.status == 200 and len(obj["data"]) == 1 and again.status == 200
    assert server.connections() == 1  # one kept-alive connection for both


def test_parse_json_phrases():
    with pytest.raises(http.ReplyError) as e:
        http.parse_json(b'{"a": [1,')
    assert e.value.retry and e.value.detail == "the reply is not JSON"
    with pytest.raises(http.ReplyError) as e:
        http.parse_json(DEEP)
    assert not e.value.retry
    assert http.parse_error_body(DEEP).message.startswith("[[[")


def test_the_cli_warns_on_stderr_about_a_key_over_plain_http(monkeypatch, capsys, tmp_path):
    from ragdash.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv(http.ALLOW_PLAIN_HTTP_ENV, raising=False)
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"corpus": ["a b"], "queries": [
        {"query": "a", "relevant_docs": [0]}]}))
    # a host that does not resolve: the run fails after its quick retries, the warning came first
    code = main(["evaluate", str(data), "--retriever", "openai", "--model", "m",
                 "--base-url", "http://gpu-box.invalid:8080/v1"])
    err = capsys.readouterr().err
    assert code != 0
    assert "warning: The API key goes to gpu-box.invalid:8080 over plain http://" in err
    assert KEY not in err
