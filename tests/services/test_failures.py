"""One failure table for every service: the same failure ends the same way from embeddings,
rerank and chat — the same exception kind, the same message-id pattern, the same exit code —
checked against real servers on 127.0.0.1."""

import pytest
from fake_chat import FakeChat
from fake_openai import FakeOpenAI
from fake_rerank import FakeRerank
from fake_server import fast_backoff  # noqa: F401
from paths import ROOT

from ragdash.cli import main
from ragdash.embeddings import EmbeddingClient
from ragdash.errors import (
    KIND_ERRORS,
    AuthenticationError,
    ChatError,
    EmbeddingError,
    NotFoundError,
    QuotaExceededError,
    RerankError,
    ServiceError,
)
from ragdash.rerank import RerankClient
from ragdash.services import failures as fk
from ragdash.services.chat import ChatClient
from ragdash.services.failures import Failure, kind_of
from ragdash.services.http import ErrorInfo

KEY = "sk-right-key-0123456789"
WRONG = "sk-wrong-key-9876543210"
SAMPLE = str(ROOT / "ragdash" / "data" / "samples" / "jsquad-mini")
QUOTA = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                   "code": "insufficient_quota"}}


@pytest.mark.parametrize("failure, kind", [
    (Failure("http", status=401), fk.AUTH),
    (Failure("http", status=403), fk.AUTH),
    (Failure("http", status=404), fk.NOT_FOUND),
    (Failure("http", status=429, info=ErrorInfo("x", code="insufficient_quota")), fk.QUOTA),
    (Failure("http", status=402, info=ErrorInfo("out of credits")), fk.QUOTA),
    (Failure("http", status=429, info=ErrorInfo("slow down")), fk.RATE_LIMITED),
    (Failure("http", status=413), fk.TOO_LONG),
    (Failure("http", status=400, info=ErrorInfo("maximum context length is 8192 tokens")),
     fk.TOO_LONG),
    (Failure("http", status=500), fk.SERVER),
    (Failure("http", status=503), fk.SERVER),
    (Failure("http", status=408), fk.SERVER),
    (Failure("http", status=422, info=ErrorInfo("bad field")), fk.REFUSED),
    (Failure("http", status=200, info=ErrorInfo("overloaded")), fk.REFUSED),
    (Failure("timeout"), fk.UNREACHABLE),
    (Failure("unreachable"), fk.UNREACHABLE),
    (Failure("tls"), fk.UNREACHABLE),
    (Failure("redirect"), fk.REFUSED),
    (Failure("too_large"), fk.BAD_REPLY),
    (Failure("malformed", status=200), fk.BAD_REPLY),
    (Failure("invalid", status=200), fk.BAD_REPLY),
], ids=lambda v: getattr(v, "attempt", v) + str(getattr(v, "status", "")) if isinstance(
    v, Failure) else v)
def test_the_table(failure, kind):
    assert kind_of(failure) == kind
    assert issubclass(KIND_ERRORS[kind], ServiceError)


def _embed(server, key, model="emb-1"):
    EmbeddingClient(server.url, model, api_key=key, concurrency=1, timeout=5).embed(["a"])


def _rerank(server, key, model="rr-1"):
    RerankClient(server.url, model, api_key=key, concurrency=1, timeout=5).score_groups(
        [("q", ["a", "b"])])


def _chat(server, key, model="chat-1"):
    ChatClient(server.url, model, api_key=key, timeout=5).complete(
        [{"role": "user", "content": "hi"}])


SERVICES = [  # (name, server, call, the service's own class)
    ("embed", lambda **kw: FakeOpenAI(**kw), _embed, EmbeddingError),
    ("rerank", lambda **kw: FakeRerank("cohere", **kw), _rerank, RerankError),
    ("chat", lambda **kw: FakeChat(**kw), _chat, ChatError),
]


@pytest.mark.parametrize("name, make, call, own", SERVICES, ids=[s[0] for s in SERVICES])
def test_a_wrong_key_a_missing_key_and_an_unknown_model_end_the_same_way(name, make, call,
                                                                         own):
    with make(api_key=KEY, models={"m-1"}) as server:
        with pytest.raises(AuthenticationError) as wrong:
            call(server, WRONG, "m-1")
        with pytest.raises(AuthenticationError) as missing:
            call(server, None, "m-1")
        with pytest.raises(NotFoundError) as unknown:
            call(server, KEY, "m-2")
    for caught in (wrong, missing, unknown):
        assert isinstance(caught.value, own)  # and still the service's own class
    assert wrong.value.msg_id == f"{name}.bad_key"
    assert missing.value.msg_id == f"{name}.no_key"
    assert unknown.value.msg_id == f"{name}.no_model"
    assert WRONG not in str(wrong.value)  # the servers echo the key they got
    assert len(server.requests) == 3  # none of them retried


@pytest.mark.parametrize("name, make, call, own", SERVICES, ids=[s[0] for s in SERVICES])
def test_an_exhausted_quota_ends_the_same_way_without_a_retry(name, make, call, own):
    with make() as server:
        server.fault("status", status=429, body=QUOTA)
        with pytest.raises(QuotaExceededError) as caught:
            call(server, KEY)
    assert isinstance(caught.value, own) and caught.value.msg_id == f"{name}.quota"
    assert len(server.requests) == 1


def test_a_wrong_key_exits_2_with_one_line_from_evaluate_and_from_rerank(tmp_path, capsys,
                                                                         monkeypatch):
    monkeypatch.setenv("RD_TEST_KEY", WRONG)
    with FakeOpenAI(api_key=KEY) as server:
        embed_code = main(["evaluate", SAMPLE, "--retriever", "openai", "--model", "m",
                           "--base-url", server.url, "--api-key-env", "RD_TEST_KEY",
                           "--limit-queries", "2"])
    embed_err = capsys.readouterr().err.strip()
    run = tmp_path / "bm25.run"
    assert main(["evaluate", SAMPLE, "--limit-queries", "2", "--save-run", str(run),
                 "--format", "json"]) == 0
    capsys.readouterr()
    with FakeRerank("cohere", api_key=KEY) as server:
        rerank_code = main(["rerank", SAMPLE, str(run), "--model", "m", "--base-url",
                            server.url, "--api-key-env", "RD_TEST_KEY", "--limit-queries", "2"])
    rerank_err = capsys.readouterr().err.strip()
    assert embed_code == rerank_code == 2
    for err in (embed_err, rerank_err):
        assert len(err.splitlines()) == 1 and "rejected the API key (HTTP 401" in err
        assert WRONG not in err
