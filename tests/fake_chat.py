"""A real HTTP server that speaks OpenAI chat completions, with a pluggable answer and faults.

Runs ``http.server.ThreadingHTTPServer`` on 127.0.0.1 (port 0: any free port) in a thread::

    with FakeChat(answer=lambda body: "relevant: 2") as server:
        client = ChatClient(server.url, "judge-model")          # server.url ends in /v1
        server.fault("status", status=429, headers={"Retry-After": "0"})
        ...
        server.requests[0].body["messages"]                      # what the client sent

``POST /v1/chat/completions`` (any path ending in ``/chat/completions``; ``only_path`` to
serve one path only) calls ``answer(body)`` with the request's JSON: it returns the reply
text (``str``), or a dict with any of ``text``, ``finish_reason``, ``refusal``,
``prompt_tokens``, ``completion_tokens`` to shape the reply. The default answer echoes the
last message's content. ``usage`` counts one token per character.

Standing rules: ``api_key`` (401 unless the key comes in ``auth_header``; the 401 message
echoes the key it got, as some servers do, so tests see that clients scrub it), ``models``
(404 for others), ``latency`` (seconds before every reply).

Faults are queued with :meth:`FakeChat.fault` and consumed in order by the requests they
match (all, or those whose messages contain ``match``); ``times`` repeats one;
:meth:`FakeChat.clear_faults` drops those left. Kinds:

- ``status``: reply ``status`` with ``body`` (dict → JSON, str/bytes as is) and ``headers``
  — a 429 with ``Retry-After``, a 401, a 500;
- ``quota``: 429 ``insufficient_quota`` (OpenAI's wording);
- ``slow``: sleep ``seconds``, then answer normally (past the client's timeout);
- ``huge``: 200 with a valid reply ``size`` bytes long;
- ``malformed``: 200 with a cut JSON body;  ``html``: 200 with an HTML page;
  ``empty_body``: 200 with no body;  ``error200``: 200 with ``{"error": {...}}``;
- ``length``: finish_reason ``length`` (the answer cut);  ``refusal``: OpenAI's
  ``message.refusal``;  ``empty``: an empty content;
- ``drop``: close the connection without a reply.

Every request is recorded (path, query, lower-cased headers, JSON body, status, fault) in
:attr:`FakeChat.requests`.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlsplit

import pytest
from fake_server import FakeServer

AnswerFn = Callable[[dict], "str | dict"]


def echo(body: dict) -> str:
    """The default answer: the last message's content."""
    messages = body.get("messages") or [{}]
    return str(messages[-1].get("content", ""))


@dataclass
class Recorded:
    path: str
    query: dict
    headers: dict
    body: object
    status: int = 0
    fault: str | None = None


class FakeChat(FakeServer):
    def __init__(self, *, answer: AnswerFn = echo, api_key: str | None = None,
                 auth_header: str = "authorization", models: set[str] | None = None,
                 latency: float = 0.0, only_path: str | None = None) -> None:
        self.answer = answer
        self.api_key = api_key
        self.auth_header = auth_header.lower()
        self.models = models
        self.latency = latency
        self.only_path = only_path
        super().__init__()

    @property
    def url(self) -> str:
        """The base URL a user would type: ``http://127.0.0.1:PORT/v1``."""
        return self.root + "/v1"

    def clear_faults(self) -> None:
        """Drop every queued fault: the server is fixed."""
        with self._lock:
            self._faults.clear()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    fake: FakeChat

    def log_message(self, format, *args) -> None:  # quiet
        pass

    def _send(self, status: int, payload, headers: dict | None = None,
              content_type: str = "application/json") -> None:
        if isinstance(payload, (dict, list)):
            data = json.dumps(payload, ensure_ascii=False).encode()
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = payload or b""
        self.record.status = status
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, type_: str, code: str | None) -> None:
        self._send(status, {"error": {"message": message, "type": type_, "param": None,
                                      "code": code}})

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        self.record = Recorded(parts.path, dict(parse_qsl(parts.query)),
                               {k.lower(): v for k, v in self.headers.items()}, body)
        with self.fake._lock:
            self.fake.requests.append(self.record)
        if self.fake.latency:
            time.sleep(self.fake.latency)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(self.record)

    def _refuse(self, rec: Recorded) -> bool:
        """Answer a request the standing rules refuse; True when it was refused."""
        fake = self.fake
        if not rec.path.endswith("/chat/completions") or fake.only_path not in (None, rec.path):
            self._error(404, f"Invalid URL (POST {rec.path})", "invalid_request_error", None)
            return True
        if fake.api_key is not None:
            got = rec.headers.get(fake.auth_header, "")
            if fake.auth_header == "authorization":
                got = got.removeprefix("Bearer ")
            if got != fake.api_key:
                self._error(401, f"Incorrect API key provided: {got}.",
                            "invalid_request_error", "invalid_api_key")
                return True
        body = rec.body
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._error(400, "'messages' is a required property", "invalid_request_error", None)
            return True
        if fake.models is not None and body.get("model") not in fake.models:
            self._error(404, f"The model `{body.get('model')}` does not exist or you do not "
                        "have access to it.", "invalid_request_error", "model_not_found")
            return True
        return False

    def _answer(self, rec: Recorded) -> None:
        if self._refuse(rec):
            return None
        body = rec.body
        fault = self.fake._take_fault([json.dumps(body["messages"], ensure_ascii=False)])
        kind = fault.kind if fault else None
        rec.fault = kind
        if kind == "status":
            payload = fault.body if fault.body is not None else {
                "error": {"message": "injected", "type": "server_error", "code": None}}
            return self._send(fault.status, payload, fault.headers)
        if kind == "quota":
            return self._error(429, "You exceeded your current quota, please check your plan "
                               "and billing details.", "insufficient_quota",
                               "insufficient_quota")
        if kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return None
        if kind == "slow":
            time.sleep(fault.seconds)
        if kind == "malformed":
            return self._send(200, b'{"id": "chatcmpl-1", "choices": [{"message": {"cont')
        if kind == "html":
            return self._send(200, "<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>",
                              content_type="text/html")
        if kind == "empty_body":
            return self._send(200, b"")
        if kind == "error200":
            return self._send(200, {"error": {"message": "the model is overloaded, try later",
                                              "type": "server_error", "code": None}})
        shaped = self.fake.answer(body)
        shaped = shaped if isinstance(shaped, dict) else {"text": shaped}
        text = str(shaped.get("text", ""))
        message: dict = {"role": "assistant", "content": text}
        finish = shaped.get("finish_reason", "stop")
        if kind == "length":
            finish, message["content"] = "length", text[: max(1, len(text) // 2)]
        if kind == "refusal" or shaped.get("refusal"):
            message = {"role": "assistant", "content": None,
                       "refusal": shaped.get("refusal") or "I can't help with that."}
        if kind == "empty":
            message["content"] = ""
        prompt = sum(len(str(m.get("content", ""))) for m in body["messages"]
                     if isinstance(m, dict))
        reply = {"id": "chatcmpl-fake", "object": "chat.completion", "model": body.get("model"),
                 "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                 "usage": {"prompt_tokens": shaped.get("prompt_tokens", prompt),
                           "completion_tokens": shaped.get("completion_tokens",
                                                           len(message["content"] or "")),
                           "total_tokens": 0}}
        if kind == "huge":
            reply["padding"] = "x" * fault.size
        return self._send(200, reply)


FakeChat.handler = _Handler


@pytest.fixture(name="fake_chat")
def fake_chat_fixture():
    """A started FakeChat; set its ``answer`` and faults in the test."""
    with FakeChat() as server:
        yield server
