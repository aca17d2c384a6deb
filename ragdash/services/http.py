"""The HTTP transport of every client of a remote service (embeddings, rerank, chat).

A low-layer module: it imports nothing of ragdash but :mod:`ragdash.errors` and
:mod:`ragdash.services.retry`. What it guarantees for each request, whatever the server does:

- **One pooled session** (``requests.Session``, ``concurrency`` keep-alive connections).
- **Credentials stay on the configured host.** Redirects are handled here
  (``allow_redirects=False``): a redirect to the same host (and port, or http → https on the
  default ports) is followed with the same method, body and headers, up to
  :data:`MAX_REDIRECTS`; a redirect to any other host — or from https down to http — is not
  followed at all: :class:`TransportError` ``"redirect"`` names both hosts. So no header of
  any name (``Authorization``, ``api-key``, ``X-Api-Key``, a custom one) and no request body
  ever reaches a host the user did not configure. (``requests`` itself strips only
  ``Authorization`` on a cross-host redirect.)
- **A total deadline**: ``timeout`` seconds cover connecting, sending and the whole reply,
  headers and body. A server that trickles one byte every 0.2 s is cut off at the deadline
  (a watchdog shuts the socket down), not kept alive by per-read timeouts.
- **A bounded reply**: the body is read as a stream and decoded here (gzip / deflate, with
  ``max_length``), so neither an endless body nor a gzip bomb grows past ``max_bytes``
  decoded bytes: :class:`TransportError` ``"too_large"``. Error replies are read up to
  :data:`ERROR_REPLY_BYTES` (enough for any message) and cut there.
- **Header values checked before sending**: :func:`check_header_value` refuses a value with a
  line break or a character outside Latin-1 at once (no retries, no library traceback).

API for a client (``ragdash/services/service.py`` is the one user; clients go through it)::

    from ragdash import http

    transport = http.Transport(base_url, concurrency=4, timeout=60.0)
    http.check_header_value("Authorization", f"Bearer {key}")      # HeaderValueError
    warning = http.plain_http_warning(base_url, key_set=True)      # str | None, show it
    try:
        reply = transport.post(url, data=body_bytes, headers=headers, params=params,
                               max_bytes=http.reply_limit(len(items), numbers_per_item))
    except http.TransportError as exc:   # exc.kind, exc.detail (a phrase for a sentence)
        ...                              # retry.should_retry(None, None, n, exc.kind)
    reply.status, reply.headers, reply.body      # body: decoded bytes
    obj = http.parse_json(reply.body)            # ReplyError (exc.detail, exc.retry)
    info = http.parse_error_body(reply.body)     # ErrorInfo(message, type, code), any shape
    code = http.error_code(info)                 # the code that decides retrying
    transport.new_job()      # read proxy settings from the environment again
    transport.close()

``TransportError.kind`` is one of ``"timeout"`` (the deadline passed), ``"connection"`` (a
dropped or reset connection), ``"unreachable"`` (refused, unknown host), ``"tls"`` (an
untrusted certificate), ``"redirect"`` (refused redirect), ``"too_large"`` (reply over the
cap), ``"encoding"`` (a Content-Encoding that cannot be decoded). The retry policy
(:mod:`ragdash.services.retry`) retries only the first three.
"""

from __future__ import annotations

import heapq
import ipaddress
import itertools
import json
import os
import re
import socket
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from ..errors import RagdashError
from ..i18n import error, text
from .retry import is_quota_code

#: same-host redirects followed before giving up
MAX_REDIRECTS = 5
#: connecting never waits longer than this, whatever the total deadline
CONNECT_TIMEOUT_CAP = 10.0
#: smallest reply cap, bytes (decoded): room for any small batch and its JSON around it
REPLY_FLOOR = 4 * 1024 * 1024
#: generous bytes per number in a JSON reply (``-0.012345678901234567,`` is 23)
BYTES_PER_NUMBER = 32
#: numbers per item assumed when the size of an item is not known yet (vector dimensions)
UNKNOWN_NUMBERS_PER_ITEM = 8192
#: an error reply is read up to this many bytes (decoded), then cut
ERROR_REPLY_BYTES = 64 * 1024
#: bytes read from the socket at a time
CHUNK = 64 * 1024
#: longest excerpt of a server's text quoted in a message
EXCERPT_CHARS = 200
#: set this environment variable to 1 to silence the plain-http warning
ALLOW_PLAIN_HTTP_ENV = "RAGDASH_ALLOW_PLAIN_HTTP"

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_QUOTA_TEXT = re.compile(r"exceeded your current quota|insufficient (quota|credit|balance)"
                         r"|out of credits?|credits? (are |is )?exhausted", re.IGNORECASE)
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # an HTTP header name (RFC 9110 token)


class TransportError(Exception):
    """A request that got no usable reply. ``kind``: see the module docstring; ``detail``: a
    phrase for the client's sentence (never a library class name, never a key)."""

    def __init__(self, kind: str, detail: str, *, status: int | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status
        self.headers = dict(headers or {})


class ReplyError(Exception):
    """A reply body that is not usable JSON. ``retry``: whether asking again may help (a cut
    reply) or not (JSON nested too deeply, a number too long to read)."""

    def __init__(self, detail: str, *, retry: bool) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry = retry


class HeaderValueError(RagdashError, ValueError):
    """A header value (an API key) that no HTTP header can carry; the message says so."""


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]  #: case-insensitive (requests' CaseInsensitiveDict)
    body: bytes                 #: decoded (gzip/deflate undone), at most the cap
    url: str                    #: the URL that answered (after same-host redirects)


@dataclass(frozen=True)
class ErrorInfo:
    """What a server said when it refused a request."""
    message: str = ""
    type: str | None = None
    code: str | None = None


# -- checks before sending ------------------------------------------------------------------
def check_header_value(name: str, value: str, *, what: str = "API key") -> None:
    """Refuse at once a header ``value`` that HTTP cannot carry: a line break, a control
    character or one outside Latin-1 (a curly quote, a full-width letter). The message names
    the position, never the value. Also refuses a header ``name`` that is not an HTTP token."""
    if not _TOKEN.match(name or ""):
        raise error(HeaderValueError, "http.bad_header_name", name=name)
    for i, ch in enumerate(value):
        o = ord(ch)
        if ch in "\r\n":
            kind = text("http.char_line_break")
        elif o == 127 or (o < 32 and ch != "\t"):
            kind = text("http.char_control")
        elif o > 255:
            kind = text("http.char_not_latin1")
        else:
            continue
        raise error(HeaderValueError, "http.bad_header_value", kind=kind, position=i + 1,
                    what=text("http.api_key") if what == "API key" else what)


def is_loopback(host: str) -> bool:
    host = (host or "").strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plain_http_host(base_url: str, *, key_set: bool) -> str | None:
    """The host (and port) a key would reach in clear text: an ``http://`` URL to a host that
    is not this machine. None when there is no key, the URL is https or loopback, or
    ``RAGDASH_ALLOW_PLAIN_HTTP=1`` is set. (The app words its banner from this.)"""
    raw = (base_url or "").strip()
    parts = urlsplit(raw)
    if not key_set or parts.scheme.lower() != "http" or is_loopback(parts.hostname or ""):
        return None
    if os.environ.get(ALLOW_PLAIN_HTTP_ENV, "").strip() in ("1", "true", "yes"):
        return None
    return parts.netloc.rsplit("@", 1)[-1]


def plain_http_warning(base_url: str, *, key_set: bool, what: str = "key") -> str | None:
    """The sentence for :func:`plain_http_host` (None when there is nothing to say), with a
    message id; ``what``: ``"key"`` (an API key) or ``"token"`` (a vector engine's token)."""
    where = plain_http_host(base_url, key_set=key_set)
    if where is None:
        return None
    if what == "token":
        return text("http.plain_token", where=where, env=ALLOW_PLAIN_HTTP_ENV)
    return text("http.plain_key", where=where, env=ALLOW_PLAIN_HTTP_ENV)


def reply_limit(items: int, numbers_per_item: int | None, *,
                bytes_per_number: int = BYTES_PER_NUMBER, floor: int | None = None) -> int:
    """The decoded-size cap for a reply of ``items`` items of ``numbers_per_item`` numbers
    (None: :data:`UNKNOWN_NUMBERS_PER_ITEM`): ``items × numbers × bytes_per_number``, at
    least :data:`REPLY_FLOOR`."""
    per = numbers_per_item or UNKNOWN_NUMBERS_PER_ITEM
    return max(REPLY_FLOOR if floor is None else floor,
               int(items) * int(per) * int(bytes_per_number) + 1024 * int(items))


# -- reading replies --------------------------------------------------------------------------
def parse_json(body: bytes | str):
    """``json.loads`` whose every failure is a :class:`ReplyError` with a phrase: not JSON
    (a cut reply: worth a retry), nested too deeply, or a number too long to read."""
    try:
        return json.loads(body)
    except RecursionError:
        raise ReplyError(text("http.reply_deep"), retry=False) from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int over 4,300 digits
        if "digits" in str(exc) and "limit" in str(exc).lower():
            raise ReplyError(text("http.reply_long_number"), retry=False) from None
        raise ReplyError(text("http.reply_not_json"), retry=True) from None


def parse_error_body(body: bytes | str) -> ErrorInfo:
    """Read an error reply in any of the shapes servers use.

    ``{"error": {"message", "type", "code"}}`` (OpenAI, Azure, LiteLLM), ``{"error": "text"}``
    (Ollama, TEI), flat ``{"message", "type", "code"}`` (vLLM), ``{"detail": ...}`` (FastAPI),
    and anything else (an HTML page from a proxy, JSON nested too deeply) as a short excerpt.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return ErrorInfo(message=excerpt(re.sub(r"<[^>]+>", " ", text)))
    if not isinstance(obj, dict):
        return ErrorInfo(message=excerpt(text))
    err = obj.get("error", obj)
    if isinstance(err, str):
        return ErrorInfo(message=excerpt(err), type=_str(obj.get("error_type", obj.get("type"))),
                         code=_str(obj.get("code")))
    if not isinstance(err, dict):
        return ErrorInfo(message=excerpt(text))
    message = err.get("message", err.get("detail", err.get("msg", "")))
    if isinstance(message, list):  # FastAPI validation details
        message = "; ".join(str(m.get("msg", m)) if isinstance(m, dict) else str(m)
                            for m in message)
    return ErrorInfo(message=excerpt(_text(message)), type=_str(err.get("type")),
                     code=_str(err.get("code")))


def error_code(info: ErrorInfo) -> str | None:
    """The code that decides retrying: a quota code wherever the server put it, else the code
    or the type."""
    for candidate in (info.code, info.type):
        if is_quota_code(candidate):
            return candidate
    if _QUOTA_TEXT.search(info.message):
        return "insufficient_quota"
    return info.code or info.type


def excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def _text(value) -> str:
    try:
        return str(value)
    except (ValueError, RecursionError):  # e.g. an int too long to print
        return "(unreadable)"


def _str(value) -> str | None:
    if value is None or value == "":
        return None
    return excerpt(_text(value))


#: a marker in a connection failure's text -> the message id of what went wrong
_REASON_IDS = (("Connection refused", "http.reason.refused"),
                       ("Name or service not known", "http.reason.unknown_host"),
                       ("nodename nor servname", "http.reason.unknown_host"),
                       ("Temporary failure in name resolution", "http.reason.unknown_host"),
                       ("No address associated", "http.reason.unknown_host"),
                       ("CERTIFICATE_VERIFY_FAILED", "http.reason.tls"),
                       ("RemoteDisconnected", "http.reason.closed"),
                       ("Connection aborted", "http.reason.closed"),
                       ("Connection reset", "http.reason.reset"),
                       ("Broken pipe", "http.reason.reset"),
                       ("IncompleteRead", "http.reason.closed_mid_reply"),
                       ("InvalidChunkLength", "http.reason.broken_reply"),
                       ("ProtocolError", "http.reason.closed"))


def connection_reason(exc: BaseException) -> str:
    """What went wrong with a connection, in words (never a library class name)."""
    said = str(exc)
    for marker, reason_id in _REASON_IDS:
        if marker in said:
            return text(reason_id)
    return text("http.reason.failed")


#: reasons that a quick retry rarely mends (retry.UNREACHABLE_RETRIES), and one that none does
REASON_KINDS = _REASON_KINDS = {"connection refused": "unreachable", "unknown host": "unreachable",
                 "TLS certificate not trusted": "tls"}


# -- the deadline watchdog ----------------------------------------------------------------------
class _Watch:
    """One request's deadline: at expiry, every socket it used is shut down, so a read
    blocked on a trickling server returns at once."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.expired = False
        self.done = False
        self._conns: list = []
        self._lock = threading.Lock()

    def add(self, conn) -> None:
        with self._lock:
            self._conns.append(conn)
            if self.expired:
                _shutdown(conn)

    def expire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.expired = True
            for conn in self._conns:
                _shutdown(conn)


def _shutdown(conn) -> None:
    sock = getattr(conn, "sock", None)
    if sock is not None:
        with suppress(OSError):  # socket.socket's own method: an SSLSocket's state is left be
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread for every deadline (a heap), started on first use."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _Watch]] = []
        self._cond = threading.Condition()
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, deadline: float) -> _Watch:
        w = _Watch(deadline)
        with self._cond:
            heapq.heappush(self._heap, (deadline, next(self._ids), w))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="ragdash-http-deadlines")
                self._thread.start()
            elif self._heap[0][2] is w:
                self._cond.notify()
        return w

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._heap and self._heap[0][2].done:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, _, w = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
            w.expire()


_WATCHDOG = _Watchdog()
_current = threading.local()


class _WatchedMixin:
    def connect(self) -> None:
        super().connect()
        w = getattr(_current, "watch", None)
        if w is not None and w.expired:
            _shutdown(self)

    def request(self, *args, **kwargs):
        w = getattr(_current, "watch", None)
        if w is not None:
            w.add(self)
        return super().request(*args, **kwargs)

    def getresponse(self, *args, **kwargs):
        # a reply that ends with the connection ("Connection: close", no length) makes
        # http.client close the connection and hand its socket to the reply alone: the
        # deadline keeps that socket too, or a slow endless reply would outlive it
        w = getattr(_current, "watch", None)
        if w is not None and self.sock is not None:
            w.add(_Held(self.sock))
        return super().getresponse(*args, **kwargs)


class _Held:
    """A socket the deadline shuts down (as :func:`_shutdown` reaches a connection's)."""

    def __init__(self, sock) -> None:
        self.sock = sock


class _WatchedHTTPConnection(_WatchedMixin, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_WatchedMixin, HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


class _Adapter(HTTPAdapter):
    """requests' adapter, with connections the deadline watchdog can reach."""

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy, **kwargs):
        manager = super().proxy_manager_for(proxy, **kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = dict(_POOLS)
        return manager


# -- the transport ----------------------------------------------------------------------------
def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower(), port


def _host_text(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc.rsplit("@", 1)[-1] or "(no host)"


class Transport:
    """POSTs to one configured host over one pooled session; see the module docstring.

    ``session``: a session of your own (its adapters are used as they are: the deadline is
    then checked between reads only, not during one).
    """

    def __init__(self, base_url: str, *, concurrency: int = 4, timeout: float = 60.0,
                 session: requests.Session | None = None) -> None:
        self.origin = _origin(base_url)
        self.host = _host_text(base_url)
        self.timeout = float(timeout)
        self._settings: dict[str, dict] = {}
        self._own_session = session is None
        if session is None:
            session = requests.Session()
            adapter = _Adapter(pool_connections=1, pool_maxsize=int(concurrency), max_retries=0)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
        self.session = session

    def new_job(self) -> None:
        """Read proxy and CA settings from the environment again (they are read once per URL
        and cached: two scans of ``os.environ`` were most of requests' own time per call)."""
        self._settings = {}

    def close(self) -> None:
        if self._own_session:
            self.session.close()

    def _allowed(self, url: str) -> bool:
        scheme, host, port = _origin(url)
        o_scheme, o_host, o_port = self.origin
        if host != o_host or scheme not in ("http", "https"):
            return False
        if scheme == o_scheme:
            return port == o_port
        # http -> https on the default ports is an upgrade; https -> http never
        return o_scheme == "http" and scheme == "https" and o_port == 80 and port == 443

    def post(self, url: str, *, data: bytes, headers: Mapping[str, str],
             params: Mapping[str, str] | None = None, max_bytes: int = REPLY_FLOOR,
             error_bytes: int = ERROR_REPLY_BYTES, timeout: float | None = None,
             on_send: Callable[[], None] | None = None, method: str = "POST") -> Reply:
        """POST ``data`` to ``url`` (on the configured host) and read the reply
        (``method="GET"``: a GET, without a body; a search service's query in its URL).

        2xx bodies over ``max_bytes`` (decoded) raise ``"too_large"``; other replies are cut
        at ``error_bytes``. ``on_send`` runs just before the first byte leaves."""
        limit = self.timeout if timeout is None else float(timeout)
        deadline = time.monotonic() + limit
        if not self._allowed(url):
            raise TransportError("redirect", text("http.other_host", host=_host_text(url),
                                                  configured=self.host))
        watch = _WATCHDOG.watch(deadline)
        _current.watch = watch
        try:
            for _hop in range(MAX_REDIRECTS + 1):
                resp = self._send(url, data, headers, params, deadline, watch, on_send,
                                  method)
                on_send = None
                if resp.status_code in _REDIRECTS and resp.headers.get("location"):
                    target = urljoin(resp.url, resp.headers["location"])
                    status = resp.status_code
                    resp.close()
                    if not self._allowed(target):
                        raise TransportError(
                            "redirect", text("http.redirected", host=self.host, status=status,
                                             target=_host_text(target)), status=status)
                    url, params = target, None  # the Location carries its own query
                    continue
                ok = 200 <= resp.status_code < 300
                body = self._read(resp, max_bytes if ok else error_bytes, watch, strict=ok)
                return Reply(resp.status_code, resp.headers, body, resp.url)
            raise TransportError("redirect", text("http.redirects", host=self.host,
                                                  most=MAX_REDIRECTS))
        finally:
            _current.watch = None
            with watch._lock:
                watch.done = True

    def _send(self, url, data, headers, params, deadline, watch, on_send,
              method: str = "POST") -> requests.Response:
        session = self.session
        prepared = session.prepare_request(requests.Request(
            method, url, headers=dict(headers), data=None if method == "GET" else data,
            params=dict(params or {})))
        settings = self._settings.get(prepared.url)
        if settings is None:
            settings = self._settings[prepared.url] = session.merge_environment_settings(
                prepared.url, {}, True, None, None)
        left = deadline - time.monotonic()
        if left <= 0:
            raise TransportError("timeout", text("http.deadline"))
        if on_send is not None:
            on_send()
        try:
            return session.send(prepared, timeout=(min(left, CONNECT_TIMEOUT_CAP), left),
                                allow_redirects=False, **settings)
        except requests.Timeout:
            raise TransportError("timeout", text("http.no_reply")) from None
        except requests.RequestException as exc:
            if watch.expired:
                raise TransportError("timeout", text("http.no_whole_reply")) from None
            reason = connection_reason(exc)
            raise TransportError(_REASON_KINDS.get(reason, "connection"), reason) from None

    def _read(self, resp: requests.Response, cap: int, watch: _Watch, *, strict: bool) -> bytes:  # noqa: C901 - one streaming loop with its limits; split after review
        """The decoded body, at most ``cap`` bytes (``strict``: more is an error)."""
        encoding = resp.headers.get("content-encoding", "").strip().lower()
        decoder = None
        if encoding in ("gzip", "x-gzip", "deflate"):
            decoder = zlib.decompressobj(47 if encoding != "deflate" else 15)
        elif encoding not in ("", "identity"):
            resp.close()
            raise TransportError("encoding", text("http.encoding_unasked", encoding=encoding),
                                 status=resp.status_code)
        out = bytearray()
        raw = resp.raw
        try:
            while len(out) <= cap:
                chunk = raw.read(CHUNK, decode_content=False)
                if not chunk:
                    if watch.expired:
                        raise TransportError("timeout", text("http.no_whole_reply"))
                    break
                if decoder is None:
                    out += chunk
                else:
                    while chunk and len(out) <= cap:
                        out += decoder.decompress(chunk, cap + 1 - len(out))
                        chunk = decoder.unconsumed_tail
                if watch.expired or time.monotonic() > watch.deadline:
                    raise TransportError("timeout", text("http.no_whole_reply"))
            if decoder is not None and len(out) <= cap:
                out += decoder.flush()
        except TransportError:
            resp.close()
            raise
        except zlib.error:
            resp.close()
            raise TransportError("encoding", text("http.encoding_broken", encoding=encoding),
                                 status=resp.status_code) from None
        except Exception as exc:  # urllib3 / OS errors mid-body
            resp.close()
            if watch.expired:
                raise TransportError("timeout", text("http.no_whole_reply")) from None
            reason = connection_reason(exc)
            if reason == "the connection failed":
                reason = text("http.reason.closed_mid_reply")
            raise TransportError(_REASON_KINDS.get(reason, "connection"), reason) from None
        if len(out) > cap:
            resp.close()
            if strict:
                raise TransportError(
                    "too_large", text("http.too_large", size=_size(cap)),
                    status=resp.status_code, headers=resp.headers)
            return bytes(out[:cap])
        raw.release_conn()  # read to the end: the connection goes back to the pool
        return bytes(out)


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.0f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} bytes"
