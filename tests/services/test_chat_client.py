"""ChatClient against a real chat-completions server on 127.0.0.1 (tests/fake_chat.py)."""

import threading
import time

import pytest
from fake_chat import FakeChat, fake_chat_fixture  # noqa: F401
from fake_server import fast_backoff  # noqa: F401

from ragdash.errors import (
    AuthenticationError,
    Cancelled,
    ChatError,
    NotFoundError,
    QuotaExceededError,
    RateLimitedError,
    RetrievalError,
    ServerUnreachableError,
)
from ragdash.i18n import message
from ragdash.services.chat import ChatClient, ChatRequest

KEY = "sk-test-CHAT-DISTINCTIVE-0042"
ASK = [{"role": "system", "content": "Grade relevance 0-3."},
       {"role": "user", "content": "質問: 東京の人口は? 文書: …"}]


def client(server, **kw):
    kw.setdefault("api_key", KEY)
    kw.setdefault("timeout", 5.0)
    kw.setdefault("seed", 0)
    return ChatClient(kw.pop("base_url", server.url), kw.pop("model", "judge-1"), **kw)


def test_a_reply_carries_text_finish_reason_usage_and_the_request_is_openai_shaped(fake_chat):
    fake_chat.answer = lambda body: {"text": "2", "prompt_tokens": 31, "completion_tokens": 1}
    reply = client(fake_chat).complete(ASK, temperature=0.3, max_tokens=5)
    assert reply.ok and reply.text == "2" and reply.finish_reason == "stop"
    assert reply.usage == {"prompt_tokens": 31, "completion_tokens": 1}
    sent = fake_chat.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body == {"model": "judge-1", "messages": ASK, "temperature": 0.3,
                         "max_tokens": 5}


def test_azure_key_header_and_api_version():
    with FakeChat(api_key=KEY, auth_header="api-key") as server:
        c = ChatClient(server.root + "/openai/deployments/gpt4o", "gpt4o", api_key=KEY,
                       api_key_header="api-key")
        assert c.complete(ASK).ok
        assert server.requests[0].path == "/openai/deployments/gpt4o/chat/completions"
        assert server.requests[0].query == {"api-version": "2024-10-21"}
        assert "authorization" not in server.requests[0].headers


def test_many_run_concurrently_and_each_answer_reaches_the_callback_as_it_arrives():
    with FakeChat(answer=lambda body: body["messages"][-1]["content"].upper(),
                  latency=0.2) as server:
        c = client(server, concurrency=4)
        seen = []
        started = time.monotonic()
        out = c.complete_many([ChatRequest([{"role": "user", "content": f"q{i}"}])
                               for i in range(8)],
                              on_result=lambda i, r: seen.append((i, r.text)))
        elapsed = time.monotonic() - started
    assert [r.text for r in out] == [f"Q{i}" for i in range(8)]
    assert sorted(seen) == [(i, f"Q{i}") for i in range(8)]
    assert elapsed < 1.2  # 8 x 0.2 s one at a time would be 1.6 s
    assert c.usage["answers"] == 8 and c.usage["requests"] == 8


def test_429_with_retry_after_is_waited_for_then_answered(fake_chat):
    fake_chat.fault("status", status=429, headers={"Retry-After": "0.3"},
                    body={"error": {"message": "Rate limit reached", "code": "rate_limit"}})
    started = time.monotonic()
    reply = client(fake_chat).complete(ASK)
    assert reply.ok and time.monotonic() - started >= 0.3
    assert len(fake_chat.requests) == 2


def test_rate_limited_after_every_retry_stops_with_one_sentence(fake_chat):
    fake_chat.fault("status", status=429, times=10, headers={"Retry-After": "0"})
    with pytest.raises(RateLimitedError) as caught:
        client(fake_chat, max_retries=2).complete(ASK)
    assert isinstance(caught.value, ChatError)
    assert caught.value.msg_id == "chat.rate_limited" and "\n" not in str(caught.value)
    assert len(fake_chat.requests) == 3


def test_quota_exhaustion_stops_every_request_with_one_sentence_and_keeps_what_arrived():
    with FakeChat(latency=0.05) as server:
        server.fault("quota", match="q3")
        c = client(server, concurrency=2)
        got = {}
        with pytest.raises(QuotaExceededError) as caught:
            c.complete_many([ChatRequest([{"role": "user", "content": f"q{i}"}])
                             for i in range(40)], on_result=lambda i, r: got.__setitem__(i, r))
    assert caught.value.msg_id == "chat.quota" and "quota" in str(caught.value)
    assert len(server.requests) < 10  # the rest never started
    assert all(r.ok for r in got.values()) and len(got) == len(server.requests) - 1
    assert len([r for r in server.requests if r.fault == "quota"]) == 1  # not retried


def test_wrong_key_is_an_authentication_error_and_the_echoed_key_is_scrubbed():
    with FakeChat(api_key="the-right-key") as server, \
            pytest.raises(AuthenticationError) as caught:
        client(server).complete(ASK)
    assert caught.value.msg_id == "chat.bad_key" and KEY not in str(caught.value)
    assert len(server.requests) == 1


def test_unknown_model_is_not_found():
    with FakeChat(models={"judge-1"}) as server, \
            pytest.raises(NotFoundError, match="no chat model 'other'"):
        client(server, model="other").complete(ASK)


def test_slow_server_is_unreachable_after_the_deadline(fake_chat):
    fake_chat.fault("slow", seconds=2.0, times=5)
    with pytest.raises(ServerUnreachableError, match=r"within 0\.4 s"):
        client(fake_chat, timeout=0.4, max_retries=1).complete(ASK)


@pytest.mark.parametrize("fault, kind, requests", [
    ("length", "length", 1),
    ("refusal", "refusal", 1),
    ("empty", "empty", 1),
    ("html", "html", 2),           # asked again once: a proxy's hiccup may pass
    ("empty_body", "empty", 2),
    ("malformed", "bad_reply", 2),
    ("error200", "refused", 1),    # the server's own words are kept
])
def test_an_unusable_answer_is_a_typed_failure_not_a_crash(fake_chat, fault, kind, requests):
    fake_chat.fault(fault, times=3)
    c = client(fake_chat)
    result = c.complete(ASK)
    assert not result.ok and result.kind == kind
    assert len(fake_chat.requests) == requests
    assert c.usage["failures"] == 1
    assert message(result.message, "ja") != str(result.message)  # said in Japanese too
    if fault == "length":
        assert result.text and result.finish_reason == "length"
    if fault == "error200":
        assert "the model is overloaded" in str(result.message)


def test_a_huge_reply_is_cut_off_at_the_cap_and_counted(fake_chat):
    fake_chat.fault("huge", size=3_000_000)
    result = client(fake_chat, max_reply_bytes=200_000).complete(ASK)
    assert result.kind == "bad_reply" and "larger than a chat answer" in str(result.message)
    assert len(fake_chat.requests) == 1


def test_failures_are_counted_among_many_while_the_rest_are_answered(fake_chat):
    fake_chat.fault("length", match="q1").fault("html", match="q2", times=2)
    out = client(fake_chat, concurrency=3).complete_many(
        [ChatRequest([{"role": "user", "content": f"q{i}"}]) for i in range(5)])
    assert [r.ok for r in out] == [True, False, False, True, True]
    assert [r.kind for r in out if not r.ok] == ["length", "html"]


def test_cancel_stops_new_requests_and_says_how_many_were_answered():
    with FakeChat(latency=0.1) as server:
        cancel = threading.Event()
        got = []

        def on_result(i, r):
            got.append(i)
            if len(got) == 2:
                cancel.set()

        with pytest.raises(Cancelled, match=r"after \d+ of 30 answers"):
            client(server, concurrency=2).complete_many(
                [ChatRequest([{"role": "user", "content": f"q{i}"}]) for i in range(30)],
                on_result=on_result, cancel=cancel)
    assert len(server.requests) <= 6 and len(got) == len(server.requests)


@pytest.mark.parametrize("messages, temperature", [
    ([], 0.0), ("hello", 0.0), ([{"role": "wizard", "content": "x"}], 0.0),
    ([{"role": "user", "content": None}], 0.0), (ASK, 3.0), (ASK, float("nan")),
])
def test_bad_requests_are_refused_before_sending(fake_chat, messages, temperature):
    with pytest.raises(RetrievalError):
        client(fake_chat).complete(messages, temperature=temperature)
    assert fake_chat.requests == []
