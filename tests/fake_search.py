"""A search service on 127.0.0.1 for the tests of the ``http`` retriever kind: a real
ThreadingHTTPServer answering with ragdash's own BM25 over a dataset (so results mean
something and metrics can be checked), in three shapes:

- ``POST /<index>/_search`` — Elasticsearch / OpenSearch: a query DSL body
  (``{"query": {"match": {"text": "..."}}, "size": k}``), ``hits.hits[*]._id`` /
  ``._score`` / ``._source.text`` in the reply;
- ``POST /api/v2/search`` — a custom nested shape: ``{"input": {"text": q}, "options":
  {"top_k": k}}`` in, ``data.results[*].document.meta.doc_id`` / ``.relevance.value`` /
  ``.document.content`` out;
- ``GET /search/?query=...&hits=k`` — Vespa's: ``root.children[*].fields.doc_id`` /
  ``.relevance`` (ids that are all digits are sent as JSON numbers).

What it answered is recorded per query text (:attr:`FakeSearch.answered`), so a test scores
exactly the ranking the service returned. Faults (``fault(kind, ...)``, consumed in order by
the requests whose query text contains ``match``): ``status`` (any status, body and headers),
``html``, ``huge`` (``size`` bytes of valid JSON), ``body`` (this JSON as the reply),
``endless`` (a 200 that never ends), ``slow`` (``seconds`` before the answer). ``latency``
delays every answer; ``key`` / ``key_header`` make it refuse requests without the key.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import numpy as np

from ragdash.dataset import Dataset
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.retrieval.tokenize import tokenize
from tests.fake_server import FakeServer, fast_backoff  # noqa: F401  (autouse fixture)


class SearchIndex:
    """ragdash's BM25 over ``dataset``, one query at a time (scores above 0, ties by doc id
    descending, as trec_eval orders)."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.index = BM25Retriever().index(dataset)
        self.ids = np.asarray(dataset.doc_ids, dtype=object)
        self.texts = dict(zip(dataset.doc_ids, dataset.doc_texts()))
        self._lock = threading.Lock()

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        with self._lock:
            scores = self.index.scores(tokenize([query]))[0]
        hit = np.flatnonzero(scores > 0)
        order = sorted(hit, key=lambda i: (-float(scores[i]), _desc(self.ids[i])))
        return [(str(self.ids[i]), float(scores[i])) for i in order[:k]]


def _desc(doc_id: str):
    return (*(-b for b in doc_id.encode("utf-8")), 1)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSearch
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as search servers do (else +40 ms: delayed ACKs)

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json",
              headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, obj, status: int = 200) -> None:
        self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"))

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path.rstrip("/") != "/search":
            return self._json({"error": "no such path"}, 404)
        args = parse_qs(parts.query)
        if "q" in args:  # a flat custom API: ?q=...&n=...
            return self._answer("flat", args["q"][0], int((args.get("n") or ["10"])[0]), None)
        query = (args.get("query") or [""])[0]
        k = int((args.get("hits") or ["10"])[0])
        self._answer("vespa", query, k, None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            return self._json({"error": {"type": "parsing_exception",
                                         "reason": "request body is not JSON"}}, 400)
        path = urlsplit(self.path).path
        if path.endswith("/_search"):
            match = ((body.get("query") or {}).get("match") or {}).get("text")
            query = match.get("query") if isinstance(match, dict) else match
            if not isinstance(query, str):
                return self._json({"error": {"type": "parsing_exception",
                                             "reason": "[match] query malformed"}}, 400)
            return self._answer("es", query, int(body.get("size", 10)), body)
        if path.rstrip("/") == "/search":  # Vespa's query API as a JSON body
            if not isinstance(body.get("query"), str):
                return self._json({"root": {"errors": [{"message": "no query"}]}}, 400)
            return self._answer("vespa", body["query"], int(body.get("hits", 10)), body)
        if path == "/api/v2/search":
            query = (body.get("input") or {}).get("text")
            k = (body.get("options") or {}).get("top_k", 10)
            if not isinstance(query, str) or not isinstance(k, int):
                return self._json({"status": "error", "message": "input.text and "
                                   "options.top_k are required"}, 422)
            return self._answer("custom", query, k, body)
        return self._json({"error": "no such path"}, 404)

    def _answer(self, shape: str, query: str, k: int, body) -> None:
        fake = self.fake
        fake.record(self.command, self.path, dict(self.headers), body, query)
        if fake.key is not None:
            got = self.headers.get(fake.key_header, "")
            bearer = fake.key_header.lower() == "authorization" and " " not in fake.key
            want = f"Bearer {fake.key}" if bearer else fake.key  # "ApiKey ..." as it is
            if got != want:
                return self._json({"error": {"type": "security_exception",
                                             "reason": "missing or wrong credentials"}}, 401)
        if fake.latency:
            time.sleep(fake.latency)
        fault = fake._take_fault([query])
        if fault is not None and self._fault(fault):
            return
        results = fake.index.search(query, k)
        fake.answered[query] = results
        self._json(fake.shape(shape, results))

    def _fault(self, fault) -> bool:
        """Send the fault's reply; False when it only delays the normal answer."""
        if fault.kind == "slow":
            time.sleep(fault.seconds)
            return False
        if fault.kind == "status":
            body = fault.body if fault.body is not None else {"error": "fault"}
            self._send(fault.status, json.dumps(body).encode(), headers=fault.headers)
        elif fault.kind == "html":
            self._send(200, b"<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>",
                       "text/html")
        elif fault.kind == "body":
            self._send(200, json.dumps(fault.body, allow_nan=True).encode())
        elif fault.kind == "huge":
            pad = max(0, fault.size - 40)
            self._send(200, b'{"hits": {"hits": []}, "pad": "' + b"x" * pad + b'"}')
        elif fault.kind == "endless":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                self.wfile.write(b'{"hits": {"hits": [')
                while not self.fake.stopping.is_set():
                    self.wfile.write(b" " * 64)
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:
                pass
        else:
            raise ValueError(fault.kind)
        return True


class FakeSearch(FakeServer):
    """See the module docstring. ``url(shape)``: the endpoint of ``"es"``, ``"custom"`` or
    ``"vespa"`` (GET, with its placeholders)."""

    handler = _Handler

    def __init__(self, dataset: Dataset, *, latency: float = 0.0, key: str | None = None,
                 key_header: str = "Authorization", index_name: str = "docs") -> None:
        super().__init__()
        self.index = SearchIndex(dataset)
        self.latency = latency
        self.key = key
        self.key_header = key_header
        self.index_name = index_name
        #: query text -> [(doc id, score)] as last answered
        self.answered: dict[str, list[tuple[str, float]]] = {}
        self.stopping = threading.Event()

    def stop(self) -> None:
        self.stopping.set()
        super().stop()

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def record(self, method, path, headers, body, query) -> None:
        with self._lock:
            self.requests.append({"method": method, "path": path, "headers": headers,
                                  "body": body, "query": query})

    def url(self, shape: str = "es") -> str:
        if shape == "es":
            return f"{self.root}/{self.index_name}/_search"
        if shape == "custom":
            return f"{self.root}/api/v2/search"
        return f"{self.root}/search/?query={{query}}&hits={{k}}"

    def shape(self, shape: str, results: list[tuple[str, float]]) -> dict:
        texts = self.index.texts
        if shape == "es":
            return {"took": 2, "timed_out": False,
                    "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                    "hits": {"total": {"value": len(results), "relation": "eq"},
                             "max_score": results[0][1] if results else None,
                             "hits": [{"_index": self.index_name, "_id": d, "_score": s,
                                       "_source": {"text": texts[d], "doc_id": d}}
                                      for d, s in results]}}
        if shape == "custom":
            return {"status": "ok", "data": {"results": [
                {"document": {"meta": {"doc_id": d, "source": "wiki"}, "content": texts[d]},
                 "relevance": {"value": s, "model": "bm25"}} for d, s in results]}}
        if shape == "flat":
            return {"items": [{"id": int(d) if d.isdigit() else d, "score": s}
                              for d, s in results]}
        return {"root": {"id": "toplevel", "relevance": 1.0,
                         "fields": {"totalCount": len(results)},
                         "children": [{"id": f"id:docs:doc::{d}", "relevance": s,
                                       "source": "docs",
                                       "fields": {"doc_id": int(d) if d.isdigit() else d}}
                                      for d, s in results]}}


ES_REQUEST = '{"query": {"match": {"text": "{query}"}}, "size": {k}, "_source": ["text"]}'
ES_PATHS = {"ids": "hits.hits[*]._id", "scores": "hits.hits[*]._score",
            "texts": "hits.hits[*]._source.text"}
CUSTOM_REQUEST = '{"input": {"text": "{query}"}, "options": {"top_k": {k}}}'
CUSTOM_PATHS = {"ids": "data.results[*].document.meta.doc_id",
                "scores": "data.results[*].relevance.value",
                "texts": "data.results[*].document.content"}
VESPA_PATHS = {"ids": "root.children[*].fields.doc_id",
               "scores": "root.children[*].relevance"}
