"""A real HTTP server that speaks the OpenAI embeddings protocol, with scripted faults.

Runs ``http.server.ThreadingHTTPServer`` on 127.0.0.1 (port 0: any free port) in a thread, or
as a process: ``python tests/fake_openai.py --latency 0.05`` prints its base URL and serves
until killed (the benchmark uses this, so client and server do not share one GIL).

``POST /v1/embeddings`` (any path ending in ``/embeddings``) answers deterministic,
un-normalized vectors: :meth:`FakeOpenAI.vector` draws them from shake_256(text) and scales
the row by 1..6, so a client that forgets to normalize ranks differently. The reply
reports ``usage.prompt_tokens`` = :func:`fake_tokens` summed over the inputs.

Faults are queued with :meth:`FakeOpenAI.fault` and consumed in order by the requests they
match (all requests, or those with an input containing ``match``). Kinds:

- ``status``: reply ``status`` with ``body`` (dict → JSON, str/bytes as is) and ``headers``;
- ``timeout``: sleep ``seconds`` before answering normally (the client has given up by then);
- ``drop``: close the connection without any reply;
- ``malformed``: 200 with a truncated JSON body;
- ``count``: one vector fewer than inputs;  ``reverse``: items in reversed ``index`` order
  (valid: a client must reorder);  ``nan``: a NaN in the first vector (JSON's bare ``NaN``);
- ``noindex``: items without ``index``, in reversed order (the client can only trust the
  order: it takes it, with a note);  ``partial_index``: ``index`` missing from the first item;
- ``dim``: from this request on, vectors have ``dim`` dimensions (a model swapped mid-run).

Standing rules: ``api_key`` (401 unless the key comes in ``auth_header``; the 401 message
echoes the key it got, as some servers do, so tests see that clients scrub it), ``models``
(404 for others), ``max_input_tokens`` (400 "maximum context length" for a longer input),
``latency`` (each reply leaves this many seconds after its request arrived),
``report_usage``, ``flat_errors`` (vLLM's ``{"message", "type", "code"}`` instead of
``{"error": {...}}``), ``ignore_dimensions`` (as servers whose models have one size do),
``only_path`` (404 for any other path), ``seconds_per_text`` (a model on a CPU: one request
is computed at a time, for this many seconds per input, in the order they came — and a
request whose client has given up is computed all the same, as infinity-emb and
text-embeddings-inference do; :attr:`FakeOpenAI.computed` lists the batch sizes computed).

Every request is recorded (path, query, lower-cased headers, JSON body, client port, start
time, status) in :attr:`FakeOpenAI.requests`; :attr:`FakeOpenAI.served` lists the texts that
got vectors, in order.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from fake_server import FakeServer


def fake_tokens(text: str) -> int:
    """The fake server's token count: one per character, at least one."""
    return max(1, len(text))


@dataclass
class Recorded:
    path: str
    query: dict
    headers: dict
    body: object
    port: int
    started: float
    status: int = 0
    fault: str | None = None
    finished: float = 0.0  #: time.monotonic() when the reply was written

    @property
    def inputs(self) -> list[str]:
        return list(self.body.get("input", [])) if isinstance(self.body, dict) else []


class FakeOpenAI(FakeServer):
    def __init__(self, *, dim: int = 8, latency: float = 0.0, api_key: str | None = None,
                 auth_header: str = "authorization", models: set[str] | None = None,
                 max_input_tokens: int | None = None, report_usage: bool = True,
                 flat_errors: bool = False, ignore_dimensions: bool = False,
                 only_path: str | None = None, seconds_per_text: float = 0.0) -> None:
        self.dim = dim
        self.latency = latency
        self.api_key = api_key
        self.auth_header = auth_header.lower()
        self.models = models
        self.max_input_tokens = max_input_tokens
        self.report_usage = report_usage
        self.flat_errors = flat_errors
        self.ignore_dimensions = ignore_dimensions
        self.only_path = only_path
        self.seconds_per_text = seconds_per_text
        self.computed: list[int] = []
        self._model = threading.Lock()  # one batch computed at a time
        self._stopping = threading.Event()
        self.served: list[str] = []
        super().__init__()

    def stop(self) -> None:
        self._stopping.set()  # batches still queued are not computed for nobody
        super().stop()

    @property
    def url(self) -> str:
        """The base URL a user would type: ``http://127.0.0.1:PORT/v1``."""
        return self.root + "/v1"

    # -- the model -----------------------------------------------------------------------
    @staticmethod
    def vector(text: str, dim: int) -> np.ndarray:
        """The un-normalized vector served for ``text`` (float32): uniform values from
        shake_256(text), centred on 0, scaled by 1..6."""
        digest = hashlib.shake_256(text.encode("utf-8")).digest(4 * dim)
        values = np.frombuffer(digest, dtype="<u4") / 2.0**32 - 0.5
        return (values * (1 + digest[0] % 6)).astype(np.float32)

    @property
    def embedding_requests(self) -> list[Recorded]:
        """Requests that were answered with vectors."""
        return [r for r in self.requests if r.status == 200 and r.fault is None]

    @property
    def served_tokens(self) -> int:
        return sum(fake_tokens(t) for t in self.served)

    def wait_idle(self, timeout: float = 10.0) -> None:
        """Wait until every request received so far has been answered (or dropped)."""
        deadline = time.monotonic() + timeout
        while any(r.status == 0 for r in self.requests):
            if time.monotonic() > deadline:
                raise TimeoutError("the fake server is still answering")
            time.sleep(0.01)

    def connections(self) -> int:
        """Distinct client connections seen (client ports)."""
        return len({r.port for r in self.requests})


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm holds the
    # body until the client's delayed ACK (~40 ms), as no real server would.
    disable_nagle_algorithm = True
    fake: FakeOpenAI

    def log_message(self, format, *args) -> None:  # quiet
        pass

    def _send(self, status: int, payload, headers: dict | None = None) -> None:
        if isinstance(payload, (dict, list)):
            data = json.dumps(payload).encode()
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = payload or b""
        wait = self.deadline - time.monotonic()  # ``latency`` is the whole time to answer
        if wait > 0:
            time.sleep(wait)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)
        self.record.finished = time.monotonic()

    def _error(self, status: int, message: str, type_: str, code: str | None) -> None:
        err = {"message": message, "type": type_, "param": None, "code": code}
        self._send(status, err if self.fake.flat_errors else {"error": err})

    def do_POST(self) -> None:
        fake = self.fake
        started = time.monotonic()
        self.deadline = started + fake.latency
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        rec = Recorded(parts.path, dict(parse_qsl(parts.query)),
                       {k.lower(): v for k, v in self.headers.items()}, body,
                       self.client_address[1], started)
        self.record = rec
        with fake._lock:
            fake.requests.append(rec)
        # BrokenPipe / ConnectionReset: the client gave up (a read timeout); nothing to answer
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(rec)

    def _answer(self, rec: Recorded) -> None:  # noqa: C901
        fake = self.fake
        if not rec.path.endswith("/embeddings") or fake.only_path not in (None, rec.path):
            rec.status = 404
            return self._error(404, f"Invalid URL (POST {rec.path})", "invalid_request_error",
                               None)
        if fake.api_key is not None:
            got = rec.headers.get(fake.auth_header, "")
            if fake.auth_header == "authorization":
                got = got.removeprefix("Bearer ")
            if got != fake.api_key:
                rec.status = 401
                return self._error(401, f"Incorrect API key provided: {got}. You can find "
                                   "your API key in your account settings.",
                                   "invalid_request_error", "invalid_api_key")
        body = rec.body
        if isinstance(body, dict) and isinstance(body.get("input"), str):
            body = {**body, "input": [body["input"]]}  # a single string is allowed too
        if not isinstance(body, dict) or not isinstance(body.get("input"), list):
            rec.status = 400
            return self._error(400, "'input' must be a string or a list of strings",
                               "invalid_request_error", None)
        inputs = [str(t) for t in body["input"]]
        if fake.models is not None and body.get("model") not in fake.models:
            rec.status = 404
            return self._error(404, f"The model `{body.get('model')}` does not exist or you "
                               "do not have access to it.", "invalid_request_error",
                               "model_not_found")
        fault = fake._take_fault(inputs)
        if fault is not None:
            rec.fault = fault.kind
            if fault.kind == "status":
                rec.status = fault.status
                payload = fault.body if fault.body is not None else {
                    "error": {"message": "injected", "type": "server_error", "code": None}}
                return self._send(fault.status, payload, fault.headers)
            if fault.kind == "drop":
                rec.status = -1
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return None
            if fault.kind == "timeout":
                time.sleep(fault.seconds)
            if fault.kind == "malformed":
                rec.status = 200
                return self._send(200, b'{"object": "list", "data": [{"embedding": [0.1,')
            if fault.kind == "dim":
                fake.dim = fault.dim
        if fake.seconds_per_text:
            with fake._model:  # computed even when the client has gone
                fake._stopping.wait(fake.seconds_per_text * len(inputs))
                fake.computed.append(len(inputs))
        if fake.max_input_tokens is not None:
            longest = max(inputs, key=fake_tokens, default="")
            if fake_tokens(longest) > fake.max_input_tokens:
                rec.status = 400
                return self._error(
                    400, f"This model's maximum context length is {fake.max_input_tokens} "
                    f"tokens, however you requested {fake_tokens(longest)} tokens "
                    "(in your prompt). Please reduce your prompt.",
                    "invalid_request_error", None)
        dim = fake.dim if fake.ignore_dimensions else int(body.get("dimensions") or fake.dim)
        b64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vec = fake.vector(text, dim)
            if fault is not None and fault.kind == "nan" and i == 0:
                vec[0] = np.nan
            emb = (base64.b64encode(vec.astype("<f4").tobytes()).decode() if b64
                   else [float(x) for x in vec])
            data.append({"object": "embedding", "index": i, "embedding": emb})
        if fault is not None and fault.kind == "count":
            data = data[:-1]
        if fault is not None and fault.kind in ("reverse", "noindex"):
            data = data[::-1]
        if fault is not None and fault.kind == "noindex":
            data = [{k: v for k, v in item.items() if k != "index"} for item in data]
        if fault is not None and fault.kind == "partial_index":
            del data[0]["index"]
        reply = {"object": "list", "data": data, "model": body.get("model")}
        if fake.report_usage:
            tokens = sum(fake_tokens(t) for t in inputs)
            reply["usage"] = {"prompt_tokens": tokens, "total_tokens": tokens}
        rec.status = 200
        with fake._lock:
            if fault is None or fault.kind in ("reverse", "dim"):
                fake.served.extend(inputs)
        if fault is not None and fault.kind in ("reverse", "dim"):
            rec.fault = None  # a valid reply
        return self._send(200, reply)


FakeOpenAI.handler = _Handler


@pytest.fixture(name="fake_server")
def fake_server_fixture():
    """A started FakeOpenAI; configure its attributes and faults in the test."""
    with FakeOpenAI() as server:
        yield server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve fake OpenAI embeddings on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--dim", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.0,
                        help="seconds from a request to its reply")
    args = parser.parse_args(argv)
    server = FakeOpenAI(dim=args.dim, latency=args.latency).start(args.port)
    print(server.url, flush=True)
    try:
        for line in sys.stdin:  # "stats" prints counts and request times; EOF stops
            if line.strip() == "stats":
                print(json.dumps({"requests": len(server.requests),
                                  "connections": server.connections(),
                                  "served": len(server.served),
                                  "timeline": [[r.started, r.finished, len(r.inputs)]
                                               for r in server.requests]}), flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
