"""What every fake service in the tests shares: a real ThreadingHTTPServer on 127.0.0.1 (port
0: any free port) in a thread, its lifecycle, and faults queued by the test and consumed in
order by the requests they match (tests/fake_openai.py, fake_rerank.py, fake_chat.py)."""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ragdash.services import retry


@dataclass
class Fault:
    """One scripted misbehaviour; which fields matter depends on ``kind`` (see each fake)."""

    kind: str
    status: int = 500
    body: object = None
    headers: dict = field(default_factory=dict)
    seconds: float = 0.0
    size: int = 0
    dim: int = 0
    match: str | None = None  #: only requests with a text containing this
    times: int = 1


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """Quiet about a client that hung up (a timeout, a reply cut at its cap)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeServer:
    """Base of a fake service: ``handler`` is its request handler class (it reaches the fake
    as ``self.fake``); ``requests`` records what came in."""

    handler: type[BaseHTTPRequestHandler]

    def __init__(self) -> None:
        self.requests: list = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def start(self, port: int = 0):
        handler = type("Handler", (self.handler,), {"fake": self})
        self._httpd = _QuietServer(("127.0.0.1", port), handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True,
                         kwargs={"poll_interval": 0.05}).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def fault(self, kind: str, **kw):
        with self._lock:
            self._faults.append(Fault(kind, **kw))
        return self

    @property
    def pending_faults(self) -> int:
        return len(self._faults)

    def _take_fault(self, texts: Sequence[str] = ()) -> Fault | None:
        """The first queued fault that matches a request with ``texts``, used once."""
        with self._lock:
            for f in self._faults:
                if f.match is None or any(f.match in t for t in texts):
                    f.times -= 1
                    if f.times <= 0:
                        self._faults.remove(f)
                    return f
        return None


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch):
    """Backoff without a retry-after header: 10 ms, not 0.5 s (the policy is tested in
    tests/test_retry.py). Autouse in every module that imports it."""
    monkeypatch.setattr(retry, "INITIAL_DELAY", 0.01)
    monkeypatch.setattr(retry, "MAX_DELAY", 0.02)
