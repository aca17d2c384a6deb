"""EmbeddingClient against a real HTTP server on 127.0.0.1 with scripted faults."""

import logging
import threading
import time
from itertools import pairwise

import numpy as np
import pytest
from fake_openai import FakeOpenAI, fake_server_fixture  # noqa: F401
from fake_server import fast_backoff  # noqa: F401
from hypothesis import given, settings
from hypothesis import strategies as st

from ragdash.embeddings import EmbeddingClient
from ragdash.embeddings.batching import estimate_tokens, estimate_tokens_many, plan_batches
from ragdash.embeddings.client import l2_normalize, token_limit
from ragdash.errors import (
    AuthenticationError,
    Cancelled,
    EmbeddingError,
    InputTooLongError,
    NotFoundError,
    QuotaExceededError,
    RetrievalError,
    ServerUnreachableError,
)
from ragdash.services.failures import is_too_long
from ragdash.services.http import ErrorInfo, error_code, parse_error_body

KEY = "sk-test-DISTINCTIVE-7d1f93c2aa"
TEXTS = [f"text number {i}" for i in range(10)]


def client(server, **kw):
    kw.setdefault("api_key", KEY)
    kw.setdefault("concurrency", 1)
    kw.setdefault("timeout", 5.0)
    kw.setdefault("seed", 0)
    return EmbeddingClient(kw.pop("base_url", server.url), kw.pop("model", "emb-1"), **kw)


def expected(server, texts, dim=None):
    vecs = np.stack([FakeOpenAI.vector(t, dim or server.dim) for t in texts]).astype(np.float64)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def assert_vectors(server, got, texts, dim=None):
    assert got.dtype == np.float32 and got.shape == (len(texts), dim or server.dim)
    np.testing.assert_allclose(got, expected(server, texts, dim), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


# -- the happy path and the request format ------------------------------------------------
def test_vectors_are_normalized_in_input_order_and_batched(fake_server):
    c = client(fake_server, batch_size=4)
    got = c.embed(TEXTS)
    assert_vectors(fake_server, got, TEXTS)
    assert [len(r.inputs) for r in fake_server.requests] == [4, 4, 2]
    assert [t for r in fake_server.requests for t in r.inputs] == TEXTS
    assert c.usage["requests"] == 3
    assert c.usage["embedded_texts"] == 10
    assert c.usage["prompt_tokens"] == sum(len(t) for t in TEXTS)


def test_request_body_and_bearer_header(fake_server):
    client(fake_server).embed(["a"])
    req = fake_server.requests[0]
    assert req.path == "/v1/embeddings"
    assert req.body == {"input": ["a"], "model": "emb-1", "encoding_format": "float"}
    assert "dimensions" not in req.body                 # only when the user sets it
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.headers["content-type"] == "application/json"
    assert "api-key" not in req.headers


def test_dimensions_sent_when_set(fake_server):
    got = client(fake_server, dimensions=5).embed(["a", "b"])
    assert fake_server.requests[0].body["dimensions"] == 5
    assert got.shape == (2, 5)


def test_no_key_sends_no_auth_header(fake_server):
    client(fake_server, api_key=None).embed(["a"])
    assert "authorization" not in fake_server.requests[0].headers


def test_base64_is_decoded_as_little_endian_float32(fake_server):
    got = client(fake_server, encoding_format="base64").embed(TEXTS)
    assert fake_server.requests[0].body["encoding_format"] == "base64"
    assert_vectors(fake_server, got, TEXTS)


def test_azure_deployment_url_uses_api_key_header_and_api_version(fake_server):
    fake_server.api_key, fake_server.auth_header = KEY, "api-key"
    c = client(fake_server, base_url=fake_server.root + "/openai/deployments/my-emb",
               api_version="2024-10-21")
    assert_vectors(fake_server, c.embed(["a", "b"]), ["a", "b"])
    req = fake_server.requests[0]
    assert req.path == "/openai/deployments/my-emb/embeddings"
    assert req.query == {"api-version": "2024-10-21"}
    assert req.headers["api-key"] == KEY and "authorization" not in req.headers


def test_token_budget_splits_batches(fake_server):
    texts = ["x" * 30] * 3 + ["y" * 30] * 3  # about 11 estimated tokens each
    client(fake_server, batch_size=100, max_batch_tokens=25).embed(texts)
    assert [len(r.inputs) for r in fake_server.requests] == [2, 2, 2]


def test_requests_run_in_parallel_over_reused_connections(fake_server):
    fake_server.latency = 0.2
    c = client(fake_server, batch_size=1, concurrency=4)
    start = time.monotonic()
    c.embed([f"t{i}" for i in range(8)])
    wall = time.monotonic() - start
    assert wall < 0.2 * 8 / 2          # sequential would take 1.6 s; ideal is 0.4 s
    starts = sorted(r.started for r in fake_server.requests)
    assert starts[3] - starts[0] < 0.15  # four in flight at once
    assert fake_server.connections() <= 4


def test_empty_text_gets_a_zero_vector_without_a_request(fake_server):
    c = client(fake_server)
    got = c.embed(["a", "", "b"])
    assert fake_server.requests[0].inputs == ["a", "b"]
    assert not got[1].any()
    assert_vectors(fake_server, got[[0, 2]], ["a", "b"])
    assert any("zero vector" in n for n in c.notes)


def test_l2_normalize_keeps_zero_rows():
    vecs, zeros = l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(vecs, [[0.6, 0.8], [0.0, 0.0]])
    assert zeros == 1


# -- jobs: texts in parts, order, requests in flight ------------------------------------------
#: characters at the edges of every class the token estimate tells apart
EDGES = "".join(map(chr, [0x20, 0x7F, 0x80, 0xFF, 0x3041, 0x33FF, 0x3400, 0x4DBF, 0x4DC0,
                          0x4DFF, 0x4E00, 0x9FFF, 0xA000, 0xF8FF, 0xF900, 0xFAFF, 0xFB00,
                          0xFFFF, 0x10000, 0x1F600, 0x10FFFF]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(EDGES) | st.characters(
    blacklist_categories=("Cs",)), max_size=40), max_size=30))
def test_estimate_tokens_many_equals_the_one_text_estimate(texts):
    assert estimate_tokens_many(texts).tolist() == [estimate_tokens(t) for t in texts]


def test_estimate_tokens_many_on_japanese_and_a_lone_surrogate():
    texts = ["梅雨の時期", "カタカナ", "plain ascii text", "", "😀 emoji", "ｈａｌｆ"]
    assert estimate_tokens_many(texts).tolist() == [estimate_tokens(t) for t in texts]
    with pytest.raises(UnicodeEncodeError):  # as the one-text estimate does
        estimate_tokens_many(["ok", "\ud800"])


@pytest.mark.parametrize("parts", [[10], [1, 9], [3, 3, 4], [4, 4, 2], [1] * 10, [0, 5, 0, 5]])
def test_texts_added_in_parts_make_the_batches_of_one_call(fake_server, parts):
    texts = [f"text {i} " + "x" * (i * 7 % 23) for i in range(10)]
    handed = []
    c = client(fake_server, batch_size=3, max_batch_tokens=20, concurrency=2)
    with c.job(on_batch=lambda idx, v: handed.append(list(idx))) as job:
        lo = 0
        for size in parts:
            job.add(texts[lo:lo + size])
            lo += size
        got = job.join()
    expected = [[texts[i] for i in r] for r in plan_batches(
        [estimate_tokens(t) for t in texts], 3, 20)]
    assert sorted(r.inputs for r in fake_server.requests) == sorted(expected)
    assert sorted(map(tuple, handed)) == sorted(
        tuple(texts.index(t) for t in batch) for batch in expected)
    assert_vectors(fake_server, got, texts)


def test_a_job_sends_its_first_batch_before_the_last_texts_are_added(fake_server):
    c = client(fake_server, batch_size=2, concurrency=2)
    with c.job() as job:
        job.add(["a", "b", "c"])  # [a, b] is complete: c may still share a batch
        deadline = time.monotonic() + 5
        while not fake_server.requests:
            assert time.monotonic() < deadline, "nothing was sent before close()"
            time.sleep(0.005)
        assert fake_server.requests[0].inputs == ["a", "b"]
        job.add(["d", "e"])
        got = job.join()
    assert sorted(r.inputs for r in fake_server.requests) == [["a", "b"], ["c", "d"], ["e"]]
    assert_vectors(fake_server, got, ["a", "b", "c", "d", "e"])


@pytest.mark.parametrize("latency", [0.0, 0.01])
def test_one_at_a_time_goes_strictly_in_order(fake_server, latency):
    fake_server.latency = latency
    texts = [f"t{i}" for i in range(30)]
    assert_vectors(fake_server, client(fake_server, batch_size=1).embed(texts), texts)
    reqs = sorted(fake_server.requests, key=lambda r: r.started)
    assert [r.inputs for r in reqs] == [[t] for t in texts]
    assert all(b.started >= a.finished for a, b in pairwise(reqs))  # never two at once


def test_never_more_requests_in_flight_than_the_concurrency(fake_server):
    fake_server.latency = 0.03
    texts = [f"t{i}" for i in range(20)]
    assert_vectors(fake_server, client(fake_server, batch_size=1, concurrency=3).embed(texts),
                   texts)
    events = sorted([(r.started, 1) for r in fake_server.requests]
                    + [(r.finished, -1) for r in fake_server.requests])
    in_flight = np.cumsum([step for _, step in events])
    assert in_flight.max() == 3
    assert fake_server.connections() <= 3


def test_after_a_refused_request_no_new_batch_starts(fake_server):
    fake_server.fault("status", status=400, match="t3", body={"error": {
        "message": "bad request", "type": "invalid_request_error", "code": None}})
    handed = []
    with pytest.raises(EmbeddingError, match="refused the request"):
        client(fake_server, batch_size=1).embed(
            [f"t{i}" for i in range(8)], on_batch=lambda idx, v: handed.extend(idx))
    assert [r.inputs for r in fake_server.requests] == [["t0"], ["t1"], ["t2"], ["t3"]]
    assert sorted(handed) == [0, 1, 2]


def test_after_an_unreadable_reply_at_most_the_next_request_has_left(fake_server):
    # The slot is given up once a reply is in, before it is parsed, so the next batch may be
    # on its way when the reply turns out to be invalid; it finishes and reaches on_batch.
    fake_server.fault("nan", match="t3")
    handed = []
    with pytest.raises(EmbeddingError, match="NaN or infinite"):
        client(fake_server, batch_size=1).embed(
            [f"t{i}" for i in range(8)], on_batch=lambda idx, v: handed.extend(idx))
    sent = [r.inputs[0] for r in sorted(fake_server.requests, key=lambda r: r.started)]
    assert sent in (["t0", "t1", "t2", "t3"], ["t0", "t1", "t2", "t3", "t4"])
    assert sorted(handed) == [i for i in range(len(sent)) if i != 3]


def test_retry_after_a_malformed_reply_keeps_every_batch(fake_server):
    fake_server.fault("malformed", match="t2")
    texts = [f"t{i}" for i in range(6)]
    c = client(fake_server, batch_size=1, concurrency=2)
    assert_vectors(fake_server, c.embed(texts), texts)
    assert c.usage["retries"] == 1 and len(fake_server.requests) == 7


def test_proxies_from_the_environment_are_used(fake_server, monkeypatch):
    with FakeOpenAI() as closed:
        proxy = closed.root  # nothing listens there any more
    monkeypatch.setenv("HTTP_PROXY", proxy)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with pytest.raises(ServerUnreachableError):
        client(fake_server, max_retries=0).embed(["a"])
    assert fake_server.requests == []
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert_vectors(fake_server, client(fake_server).embed(["a"]), ["a"])


# -- retried faults -------------------------------------------------------------------------
def test_429_retry_after_ms_is_waited(fake_server):
    fake_server.fault("status", status=429, headers={"retry-after-ms": "300"},
                      body={"error": {"message": "Rate limit", "type": "requests",
                                      "code": "rate_limit_exceeded"}})
    c = client(fake_server)
    assert_vectors(fake_server, c.embed(["a"]), ["a"])
    first, second = fake_server.requests
    assert second.started - first.started >= 0.3
    assert c.usage["retries"] == 1 and c.usage["requests"] == 2


def test_429_retry_after_seconds_is_waited(fake_server):
    fake_server.fault("status", status=429, headers={"retry-after": "1"})
    assert_vectors(fake_server, client(fake_server).embed(["a"]), ["a"])
    first, second = fake_server.requests
    assert second.started - first.started >= 1.0


@pytest.mark.parametrize("status", [500, 502, 503, 408, 409])
def test_transient_statuses_are_retried(fake_server, status):
    fake_server.fault("status", status=status, times=2)
    c = client(fake_server)
    assert_vectors(fake_server, c.embed(TEXTS), TEXTS)
    assert len(fake_server.requests) == 3 and c.usage["retries"] == 2


def test_server_errors_give_up_after_max_retries(fake_server):
    fake_server.fault("status", status=503, times=99,
                      body={"error": {"message": "overloaded", "type": "server_error"}})
    with pytest.raises(EmbeddingError, match=r"HTTP 503: overloaded after 3 attempts") as err:
        client(fake_server, max_retries=2).embed(["a"])
    assert "try again later" in str(err.value)
    assert len(fake_server.requests) == 3


def test_rate_limit_that_never_ends_says_what_to_do(fake_server):
    fake_server.fault("status", status=429, times=99, headers={"retry-after-ms": "1"})
    with pytest.raises(EmbeddingError, match="lower the concurrency"):
        client(fake_server, max_retries=1).embed(["a"])


def test_read_timeout_is_retried(fake_server):
    fake_server.fault("timeout", seconds=1.0)
    c = client(fake_server, timeout=0.3)
    start = time.monotonic()
    assert_vectors(fake_server, c.embed(["a", "b"]), ["a", "b"])
    assert time.monotonic() - start < 0.9
    assert c.usage["retries"] == 1


def test_timeouts_give_up_as_unreachable(fake_server):
    fake_server.fault("timeout", seconds=0.6, times=2)
    with pytest.raises(ServerUnreachableError, match=r"No whole reply .* within 0.2 s \(the "
                       r"timeout covers connecting and the whole reply\), after 2 attempts"):
        client(fake_server, timeout=0.2, max_retries=1).embed(["a"])


def test_dropped_connection_is_retried(fake_server):
    fake_server.fault("drop")
    c = client(fake_server)
    assert_vectors(fake_server, c.embed(["a"]), ["a"])
    assert c.usage["retries"] == 1


def test_dropped_connections_give_up_as_unreachable(fake_server):
    fake_server.fault("drop", times=9)
    with pytest.raises(ServerUnreachableError, match="closed the connection"):
        client(fake_server, max_retries=2).embed(["a"])
    assert len(fake_server.requests) == 3


def test_connection_refused():
    with FakeOpenAI() as server:
        url = server.url
    with pytest.raises(ServerUnreachableError, match=r"\(connection refused\), after 3 attempts"):
        EmbeddingClient(url, "m", max_retries=2, timeout=2).embed(["a"])


def test_connection_refused_fails_fast_even_with_many_retries_allowed():
    """A server that is not running: two quick retries, then the sentence (it took ~21 s of
    full backoff before)."""
    with FakeOpenAI() as server:
        url = server.url
    started = time.monotonic()
    with pytest.raises(ServerUnreachableError, match=r"connection refused.*after 3 attempts"):
        EmbeddingClient(url, "m", max_retries=6, timeout=2).embed(["a"])
    assert time.monotonic() - started < 4.0


def test_malformed_json_is_retried_then_reported(fake_server):
    fake_server.fault("malformed")
    assert_vectors(fake_server, client(fake_server).embed(["a"]), ["a"])
    fake_server.fault("malformed", times=9)
    with pytest.raises(EmbeddingError, match="did not answer with embeddings JSON"):
        client(fake_server, max_retries=1).embed(["b"])


def test_reversed_index_order_is_reordered(fake_server):
    fake_server.fault("reverse")
    assert_vectors(fake_server, client(fake_server).embed(TEXTS), TEXTS)
    assert fake_server.requests[0].fault is None  # the server really answered reversed


# -- never retried ------------------------------------------------------------------------
def test_wrong_number_of_vectors(fake_server):
    fake_server.fault("count")
    with pytest.raises(EmbeddingError, match="returned 2 vectors for 3 texts"):
        client(fake_server).embed(["a", "b", "c"])
    assert len(fake_server.requests) == 1


def test_nan_values_are_rejected(fake_server):
    fake_server.fault("nan")
    with pytest.raises(EmbeddingError, match="NaN or infinite"):
        client(fake_server).embed(["a", "b"])
    assert len(fake_server.requests) == 1


def test_dimension_change_mid_run_stops_the_run_after_caching_earlier_batches(fake_server):
    fake_server.fault("dim", dim=9, match="text number 4")
    cached = []
    with pytest.raises(EmbeddingError, match="9-dimensional vectors after 8-dimensional"):
        client(fake_server, batch_size=2).embed(
            TEXTS, on_batch=lambda idx, vecs: cached.append((list(idx), vecs.shape)))
    assert cached == [([0, 1], (2, 8)), ([2, 3], (2, 8))]


def test_dimensions_ignored_by_the_server(fake_server):
    fake_server.ignore_dimensions = True
    with pytest.raises(EmbeddingError, match=r"Asked .* for 4 dimensions but it returned 8.*"
                                             r"does not support --dimensions"):
        client(fake_server, dimensions=4).embed(["a"])


def test_401_is_not_retried_and_never_shows_the_key(fake_server, caplog):
    caplog.set_level(logging.DEBUG)
    fake_server.api_key = "the-right-key"
    with pytest.raises(AuthenticationError) as err:
        client(fake_server).embed(["a"])
    message = str(err.value)
    assert "rejected the API key (HTTP 401: Incorrect API key provided: ***." in message
    assert KEY not in message and KEY not in caplog.text
    assert len(fake_server.requests) == 1


def test_401_without_a_key_says_where_to_put_one(fake_server):
    fake_server.api_key = "the-right-key"
    with pytest.raises(AuthenticationError, match="set OPENAI_API_KEY"):
        client(fake_server, api_key=None).embed(["a"])


def test_404_unknown_model(fake_server):
    fake_server.models = {"emb-1"}
    with pytest.raises(NotFoundError, match=r"no embeddings model 'nope'.*check the base URL"):
        client(fake_server, model="nope").embed(["a"])
    assert len(fake_server.requests) == 1


def test_404_wrong_base_url(fake_server):
    fake_server.only_path = "/v1/embeddings"
    with pytest.raises(NotFoundError, match=r"/api/embeddings has no embeddings model 'emb-1' "
                                            r"\(HTTP 404: Invalid URL"):
        client(fake_server, base_url=fake_server.root + "/api").embed(["a"])


@pytest.mark.parametrize("body", [
    {"error": {"message": "You exceeded your current quota, please check your plan.",
               "type": "insufficient_quota", "code": "insufficient_quota"}},
    {"error": {"message": "quota", "type": "requests", "code": "insufficient_quota"}},
    {"error": {"message": "no money", "type": "insufficient_quota", "code": None}},
    {"message": "no money", "type": "error", "code": "billing_hard_limit_reached"},  # flat
    {"error": "You exceeded your current quota"},                                     # text only
], ids=["openai", "code", "type", "flat", "message"])
def test_429_quota_exhausted_is_not_retried(fake_server, body):
    fake_server.fault("status", status=429, body=body, headers={"retry-after": "0"})
    with pytest.raises(QuotaExceededError, match=r"no quota or credit left.*add credit"):
        client(fake_server).embed(["a"])
    assert len(fake_server.requests) == 1


def test_other_400_is_not_retried(fake_server):
    fake_server.fault("status", status=400, body={"message": "bad encoding_format",
                                                  "type": "BadRequestError", "code": 400})
    with pytest.raises(EmbeddingError, match=r"refused the request .*bad encoding_format"):
        client(fake_server).embed(["a"])
    assert len(fake_server.requests) == 1


# -- too long -------------------------------------------------------------------------------
LONG_JA = "長い文書" * 60  # 240 characters = 240 fake tokens


def test_too_long_text_is_isolated_by_splitting_and_cut_by_token_estimate(fake_server):
    fake_server.max_input_tokens = 100
    texts = ["short a", "short b", LONG_JA, "short c"]
    c = client(fake_server, batch_size=4)
    got = c.embed(texts)
    assert c.usage["truncated_texts"] == 1
    assert any("cut to fit" in n for n in c.notes)
    cut = next(t for t in fake_server.served if t.startswith("長い"))
    assert LONG_JA.startswith(cut) and 50 <= len(cut) <= 100
    assert_vectors(fake_server, got, ["short a", "short b", cut, "short c"])
    assert sorted(fake_server.served) == sorted(["short a", "short b", cut, "short c"])


def test_too_long_without_a_number_halves_the_text(fake_server):
    fake_server.fault("status", status=413, body="Payload Too Large", match="長い", times=2)
    c = client(fake_server)
    c.embed([LONG_JA])
    assert c.usage["truncated_texts"] == 1
    (cut,) = fake_server.served  # halved twice (by estimate): about a quarter is left
    assert LONG_JA.startswith(cut) and 50 <= len(cut) <= 70
    assert len(fake_server.requests) == 3


def test_text_that_never_fits(fake_server):
    fake_server.max_input_tokens = 0
    with pytest.raises(InputTooLongError, match="longer than 'emb-1' accepts"):
        client(fake_server).embed(["abcdefgh" * 10])


# -- cancel ---------------------------------------------------------------------------------
def test_cancel_stops_soon_and_hands_over_finished_batches(fake_server):
    fake_server.latency = 0.1
    cancel = threading.Event()
    done, cancelled_at = [], []

    def on_batch(idx, vecs):
        done.extend(idx)
        if len(done) >= 3 and not cancel.is_set():
            cancelled_at.append(time.monotonic())
            cancel.set()

    with pytest.raises(Cancelled, match="Cancelled after embedding"):
        client(fake_server, batch_size=1, concurrency=2).embed(
            [f"t{i}" for i in range(20)], cancel=cancel, on_batch=on_batch)
    # No request starts after the cancel (give or take a thread switch); the ones in flight
    # finish and are handed over, so every request that went out reached on_batch.
    assert all(r.started < cancelled_at[0] + 0.05 for r in fake_server.requests)
    assert 3 <= len(done) <= 3 + 1 + 2   # + one arriving with it + two in flight
    assert len(fake_server.requests) == len(done)


# -- settings and parsing -------------------------------------------------------------------
@pytest.mark.parametrize("kw, match", [
    ({"batch_size": 0}, "batch size"), ({"batch_size": 2049}, "batch size"),
    ({"concurrency": 0}, "concurrency"), ({"dimensions": 0}, "dimensions"),
    ({"encoding_format": "int8"}, "encoding format"), ({"timeout": 0}, "timeout"),
    ({"model": " "}, "model"),
])
def test_bad_settings(kw, match):
    model = kw.pop("model", "m")
    with pytest.raises(RetrievalError, match=match):
        EmbeddingClient("http://127.0.0.1:9/v1", model, **kw)


def test_config_and_repr_hold_no_key():
    c = EmbeddingClient("https://api.openai.com", "m", api_key=KEY)
    assert KEY not in repr(c) and KEY not in str(c.config())
    assert c.config()["api_key_set"] is True


@pytest.mark.parametrize("body, info", [
    (b'{"error": {"message": "m", "type": "t", "code": "c"}}', ErrorInfo("m", "t", "c")),
    (b'{"message": "m", "type": "BadRequestError", "code": 400}',
     ErrorInfo("m", "BadRequestError", "400")),
    (b'{"error": "model not found"}', ErrorInfo("model not found")),
    (b'{"error": "Input validation error", "error_type": "Validation"}',
     ErrorInfo("Input validation error", "Validation")),
    (b'{"detail": [{"msg": "field required"}]}', ErrorInfo("field required")),
    (b"<html><body><h1>502 Bad Gateway</h1></body></html>", ErrorInfo("502 Bad Gateway")),
    (b"", ErrorInfo("")),
    (b"[1, 2]", ErrorInfo("[1, 2]")),
], ids=["nested", "flat", "string", "tei", "fastapi", "html", "empty", "list"])
def test_error_shapes(body, info):
    assert parse_error_body(body) == info


@pytest.mark.parametrize("status, message, too_long, limit", [
    (400, "This model's maximum context length is 8192 tokens, however you requested 9000 "
          "tokens", True, 8192),
    (413, "Input validation error: `inputs` must have less than 512 tokens. Given: 600",
     True, 512),
    (422, "Input validation error: `inputs` must have less than 512 tokens", True, 512),
    (400, "the input length exceeds the context length", True, None),
    (400, "Invalid 'input[3]': maximum input length is 8,192 tokens.", True, 8192),
    (400, "'$.input' is invalid", False, None),
    (404, "This model's maximum context length is 8192 tokens", False, 8192),
])
def test_too_long_detection(status, message, too_long, limit):
    info = ErrorInfo(message)
    assert is_too_long(status, info) is too_long
    assert token_limit(info) == limit


def test_error_code_finds_quota_anywhere():
    assert error_code(ErrorInfo("x", "insufficient_quota", None)) == "insufficient_quota"
    assert error_code(ErrorInfo("x", None, "rate_limit_exceeded")) == "rate_limit_exceeded"
    assert error_code(ErrorInfo("Insufficient balance on account")) == "insufficient_quota"
