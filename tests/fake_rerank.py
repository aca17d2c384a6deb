"""A real HTTP server on 127.0.0.1 that speaks the rerank protocols, with scripted faults.

``FakeRerank(protocol)`` serves, on any free port, the shape of one provider:

- ``cohere``: ``POST .../v2/rerank`` ``{model, query, documents, top_n}`` →
  ``{"id", "results": [{"index", "relevance_score"}] (best first), "meta": {"billed_units":
  {"search_units"}}}`` (one unit per started 100 documents);
- ``jina`` / ``vllm``: ``POST .../rerank`` ``{model, query, documents, top_n}`` →
  ``{"model", "results": [...], "usage": {"total_tokens"}}``;
- ``voyage``: ``{model, query, documents, top_k}`` → ``{"object": "list", "data": [{"index",
  "relevance_score"}], "usage": {"total_tokens"}}``;
- ``tei``: ``{query, texts, truncate}`` → ``[{"index", "score"}]``; errors as TEI sends them,
  ``{"error", "error_type"}``.

Scores are deterministic: :meth:`FakeRerank.score` draws them from sha256(query + document), so a
test can compute the order the server must produce. ``fake_tokens`` is one token per character.

Standing rules: ``max_documents`` (a longer list is refused with the provider's sentence: TEI's
"batch size 50 > maximum allowed batch size 32" as 413, others 400 "at most N documents"),
``api_key`` (401 unless Bearer KEY; the message echoes the key, so tests see the client scrub
it), ``models`` (404 for others), ``report_usage``, ``latency``.

Faults (queued with :meth:`fault`, consumed in order): ``status`` (reply ``status`` with
``body`` and ``headers``, e.g. 429 with Retry-After, 500), ``fewer`` (one result dropped),
``extra`` (one result too many), ``shuffle`` (results in random order: valid), ``range`` (an
index equal to the count), ``duplicate`` (the first index twice), ``nan`` (a NaN score, JSON's
bare ``NaN``), ``malformed`` (truncated JSON).

Every request is recorded (path, headers, body, status, fault) in :attr:`requests`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

import pytest
from fake_server import FakeServer


def fake_tokens(text: str) -> int:
    return max(1, len(text))


@dataclass
class Recorded:
    path: str
    headers: dict
    body: object
    status: int = 0
    fault: str | None = None

    @property
    def documents(self) -> list[str]:
        if not isinstance(self.body, dict):
            return []
        return list(self.body.get("texts", self.body.get("documents", [])))

    @property
    def query(self) -> str:
        return self.body.get("query", "") if isinstance(self.body, dict) else ""


class FakeRerank(FakeServer):
    def __init__(self, protocol: str = "cohere", *, max_documents: int | None = None,
                 api_key: str | None = None, models: set[str] | None = None,
                 report_usage: bool = True, latency: float = 0.0) -> None:
        self.protocol = protocol
        self.max_documents = max_documents
        self.api_key = api_key
        self.models = models
        self.report_usage = report_usage
        self.latency = latency
        super().__init__()

    @property
    def url(self) -> str:
        """The base URL a user would type for this protocol."""
        return {"cohere": self.root + "/v2", "jina": self.root + "/v1",
                "voyage": self.root + "/v1", "vllm": self.root + "/v1",
                "tei": self.root}[self.protocol]

    @staticmethod
    def score(query: str, document: str) -> float:
        digest = hashlib.sha256((query + "\x00" + document).encode("utf-8")).digest()
        return int.from_bytes(digest[:6], "big") / 2.0**48

    @property
    def scored(self) -> list[Recorded]:
        """Requests answered with scores."""
        return [r for r in self.requests if r.status == 200 and r.fault in (None, "shuffle")]

    @property
    def pairs_scored(self) -> int:
        return sum(len(r.documents) for r in self.scored)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    fake: FakeRerank

    def log_message(self, format, *args) -> None:
        pass

    def _send(self, status: int, payload, headers: dict | None = None) -> None:
        if isinstance(payload, (dict, list)):
            data = json.dumps(payload).encode()  # allow_nan: a NaN goes out as bare NaN
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = payload or b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str) -> None:
        self.record.status = status
        if self.fake.protocol == "tei":
            kind = "Validation" if status in (400, 413, 422) else "Backend"
            return self._send(status, {"error": message, "error_type": kind})
        if self.fake.protocol == "cohere":
            return self._send(status, {"message": message})
        return self._send(status, {"detail": message})

    def do_POST(self) -> None:
        fake = self.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        rec = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        self.record = rec
        with fake._lock:
            fake.requests.append(rec)
        if fake.latency:
            time.sleep(fake.latency)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(rec)

    def _answer(self, rec: Recorded) -> None:  # noqa: C901
        fake = self.fake
        want = {"cohere": "/v2/rerank", "tei": "/rerank"}.get(fake.protocol, "/v1/rerank")
        if rec.path.split("?")[0] != want:
            return self._error(404, f"Not Found: {rec.path}")
        if fake.api_key is not None:
            got = rec.headers.get("authorization", "").removeprefix("Bearer ")
            if got != fake.api_key:
                return self._error(401, f"invalid api token: {got}")
        body = rec.body
        docs_key = "texts" if fake.protocol == "tei" else "documents"
        if not isinstance(body, dict) or not isinstance(body.get(docs_key), list) \
                or not isinstance(body.get("query"), str):
            return self._error(422, f"missing field `{docs_key}` or `query`")
        if fake.protocol != "tei" and fake.models is not None \
                and body.get("model") not in fake.models:
            return self._error(404, f"model '{body.get('model')}' not found")
        docs = [str(d) for d in body[docs_key]]
        if fake.max_documents is not None and len(docs) > fake.max_documents:
            if fake.protocol == "tei":
                return self._error(413, f"batch size {len(docs)} > maximum allowed batch "
                                   f"size {fake.max_documents}")
            return self._error(400, f"invalid request: you can rerank at most "
                               f"{fake.max_documents} documents per request")
        fault = fake._take_fault()
        if fault is not None:
            rec.fault = fault.kind
            if fault.kind == "status":
                rec.status = fault.status
                return self._send(fault.status, fault.body if fault.body is not None
                                  else {"message": "injected failure"}, fault.headers)
            if fault.kind == "malformed":
                rec.status = 200
                return self._send(200, b'{"results": [{"index": 0, "relevance_')
        query = body["query"]
        items = [{"index": i, "score": fake.score(query, d)} for i, d in enumerate(docs)]
        items.sort(key=lambda x: -x["score"])  # every provider answers best first
        kind = fault.kind if fault is not None else None
        if kind == "shuffle":
            random.Random(len(fake.requests)).shuffle(items)
        elif kind == "fewer":
            items = items[:-1]
        elif kind == "extra":
            items = [*items, dict(items[0])]
        elif kind == "range":
            items[0]["index"] = len(docs)
        elif kind == "duplicate" and len(items) > 1:
            items[1]["index"] = items[0]["index"]
        elif kind == "nan":
            items[0]["score"] = float("nan")
        tokens = sum(fake_tokens(query) + fake_tokens(d) for d in docs)
        rec.status = 200
        if fake.protocol == "tei":
            return self._send(200, items)
        results = [{"index": x["index"], "relevance_score": x["score"]} for x in items]
        if fake.protocol == "cohere":
            reply = {"id": "fake", "results": results}
            if fake.report_usage:
                reply["meta"] = {"api_version": {"version": "2"},
                                 "billed_units": {"search_units": -(-len(docs) // 100)}}
        elif fake.protocol == "voyage":
            reply = {"object": "list", "data": results, "model": body.get("model")}
            if fake.report_usage:
                reply["usage"] = {"total_tokens": tokens}
        else:
            reply = {"id": "fake", "model": body.get("model"), "results": results}
            if fake.report_usage:
                reply["usage"] = {"total_tokens": tokens}
        return self._send(200, reply)


FakeRerank.handler = _Handler


@pytest.fixture(name="fake_rerank")
def fake_rerank_fixture():
    """A started Cohere-shaped FakeRerank; set its attributes and faults in the test."""
    with FakeRerank("cohere") as server:
        yield server
