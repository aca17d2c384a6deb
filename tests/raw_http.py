"""A raw-socket HTTP server on 127.0.0.1 for replies ``http.server`` cannot send: a body that
trickles one byte at a time, headers that trickle, an endless body, a gzip bomb.

``RawServer(behaviour)`` reads each request (headers and a Content-Length body), records it in
:attr:`RawServer.requests` (lower-cased headers, body bytes), then hands the socket to
``behaviour(sock, request, stopped)``, which writes whatever it likes. Helpers below build the usual
behaviours. Every connection runs in its own daemon thread; a behaviour stops writing as soon
as the client has gone (a write fails) or the server is stopped.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from collections.abc import Callable


class RawServer:
    def __init__(self, behaviour: Callable[[socket.socket, dict], None]) -> None:
        self.behaviour = behaviour
        self.requests: list[dict] = []
        self.stopped = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.1)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self._thread.join(2)
        self._sock.close()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in lines[1:])}
            length = int(headers.get("content-length", 0))
            while len(body) < length:
                body += conn.recv(65536)
            request = {"line": lines[0], "headers": headers, "body": body}
            self.requests.append(request)
            self.behaviour(conn, request, self.stopped)


def _head(status: int = 200, headers: dict | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status} X"] + [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def trickle(body: bytes, every: float = 0.2, *, headers_too: bool = False):
    """A valid reply, one byte every ``every`` seconds (the body, or headers and body)."""
    def behaviour(conn, request, stopped):
        head = _head(200, {"Content-Type": "application/json",
                           "Content-Length": len(body)})
        if not headers_too:
            conn.sendall(head)
        for b in (head + body if headers_too else body):
            if stopped.is_set():
                return
            conn.sendall(bytes([b]))
            time.sleep(every)
    return behaviour


def endless(piece: bytes = b" " * 65536):
    """A 200 with no length that never ends (until the client hangs up)."""
    def behaviour(conn, request, stopped):
        conn.sendall(_head(200, {"Content-Type": "application/json", "Connection": "close"}))
        conn.sendall(b'{"data": [')
        while not stopped.is_set():
            conn.sendall(piece)
    return behaviour


def gzip_bomb(decoded_bytes: int):
    """A 200 whose small gzip body expands to ``decoded_bytes`` of spaces (valid JSON
    whitespace after an opening bracket)."""
    blob = gzip.compress(b"[" + b" " * decoded_bytes + b"]", compresslevel=9)

    def behaviour(conn, request, stopped):
        conn.sendall(_head(200, {"Content-Type": "application/json",
                                 "Content-Encoding": "gzip", "Content-Length": len(blob)}))
        conn.sendall(blob)
    behaviour.compressed = len(blob)
    return behaviour


def gzip_reply(obj, status: int = 200):
    """A well-formed gzip-encoded JSON reply (what many real servers send)."""
    blob = gzip.compress(json.dumps(obj).encode())

    def behaviour(conn, request, stopped):
        conn.sendall(_head(status, {"Content-Type": "application/json",
                                    "Content-Encoding": "gzip", "Content-Length": len(blob)}))
        conn.sendall(blob)
    return behaviour
