"""A search service over HTTP as a search (:data:`~ragdash.retrieval.own.hits.SearchFn`):
Elasticsearch / OpenSearch ``_search``, Vespa, an internal API.

    search = HttpSearch("http://es:9200/docs/_search",
                        request='{"query": {"match": {"text": "{query}"}}, "size": {k}}',
                        ids="hits.hits[*]._id", scores="hits.hits[*]._score")
    search("富士山の高さは", 10)      # -> [Hit("d12", 13.2), ...]
    OwnRetriever(search, name=search.name, config=search.config())

- **The request.** ``request`` is a JSON body with ``{query}`` and ``{k}`` placeholders
  (default ``{"query": "{query}", "k": {k}}``). It is parsed once, with every placeholder
  outside a JSON string standing for a value (``{k}`` a number, ``{query}`` a string), and
  filled per query in the parsed structure, so a query's quotes, backslashes, line breaks and
  Japanese stay valid JSON whatever they are; inside a string (``"text: {query}"``) a
  placeholder is replaced in the string's text. A template that is not JSON is one sentence
  naming the line and column, before anything is sent. ``method="GET"``: no body; the
  placeholders are in the URL (``http://host/search?q={query}&n={k}``), URL-encoded.
- **The reply.** ``ids``, ``scores`` and ``texts`` are JMESPath expressions into the reply's
  JSON (:func:`jmespath.compile`: a syntax error is one sentence naming the expression).
  Ids may be strings or numbers (made strings); scores numbers or null (no score: the
  mapping orders by rank and says so); texts strings or null. Anything else — a path that
  matches nothing (the sentence shows the reply's top-level keys), an id that is an object or
  a list, a NaN score, lists of different lengths — is a reply that cannot be right: the
  query fails with that sentence, never asked again, nothing of it kept.
- **The service layer.** Every request is :class:`ragdash.services.service.Service`'s:
  the key in a header (``Authorization: Bearer`` unless ``api_key_header`` names another; the
  key itself is given by the caller, read from the environment or a password field, never
  from a flag or a setup file), one pooled session of ``concurrency`` connections, a total
  deadline of ``timeout`` seconds per request (a reply that never ends is cut there), a
  bounded reply (:data:`REPLY_BYTES_PER_RESULT` per result asked, at least
  :data:`ragdash.services.http.REPLY_FLOOR`), retries of timeouts, dropped connections, 429
  and 5xx (``retry-after`` honoured) up to ``max_retries``, and one sentence per final
  failure whose class is its kind (:data:`ragdash.errors.KIND_ERRORS`). An HTML page or an
  empty body is asked again once, then said as such.
- :meth:`HttpSearch.config` is JSON-safe and never holds the key (only whether one is set);
  :meth:`HttpSearch.trial` asks one query once, for the app's "Try one query": the request
  as sent (the key masked), the reply (capped, pretty-printed) and the hits.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from ...errors import KIND_ERRORS, BadReplyError, RagdashError, RetrievalError
from ...i18n import error, message, text
from ...secrets import scrub_secrets
from ...services.failures import Failure, Messages
from ...services.http import REPLY_FLOOR
from ...services.service import Service, Spec, key_headers
from .hits import Hit

__all__ = ["DEFAULT_REQUEST", "METHODS", "HttpSearch", "Trial", "fill_template", "http_retriever"]

#: the request body when none is given
DEFAULT_REQUEST = '{"query": "{query}", "k": {k}}'
METHODS = ("POST", "GET")
#: a reply's cap per result asked (an Elasticsearch hit with its ``_source`` is a few KB)
REPLY_BYTES_PER_RESULT = 32 * 1024
#: retries of a failed request (timeouts, dropped connections, 429, 5xx) before the query fails
SEARCH_RETRIES = 3
#: seconds one request may take, the whole reply included
DEFAULT_TIMEOUT = 30.0
#: the reply shown by :meth:`HttpSearch.trial`, at most this many characters
TRIAL_REPLY_CHARS = 20_000
#: the top-level keys a "matches nothing" sentence shows
SHOWN_KEYS = 12

#: values that stand for a placeholder outside a JSON string while the template is parsed
#: (private-use characters: no JSON a person writes holds them)
_QUERY_MARK = "\ue000query\ue000"
_K_MARK = "\ue000k\ue000"
_MASK = "***"

#: the service layer's messages for a search service, one per way a request ends (as
#: ragdash.services.failures.MESSAGE_IDS' columns; literal ids, so the catalog test sees them)
MESSAGE_IDS = {
    "bad_key": "searchsvc.bad_key", "no_key": "searchsvc.no_key",
    "no_model": "searchsvc.not_found", "quota": "searchsvc.quota",
    "rate_limited": "searchsvc.rate_limited", "too_long": "searchsvc.refused",
    "server_error": "searchsvc.server_error", "timeout": "searchsvc.timeout",
    "unreachable": "searchsvc.unreachable", "malformed": "searchsvc.malformed",
    "too_large": "searchsvc.too_large", "encoding": "searchsvc.encoding",
    "redirect": "searchsvc.redirect", "refused": "searchsvc.refused",
    "cancelled": "searchsvc.cancelled", "unreadable": "searchsvc.unreadable",
    "invalid": "searchsvc.invalid",
}
MESSAGES = Messages(**MESSAGE_IDS)
SPEC = Spec("search", KIND_ERRORS, MESSAGES)


#: a key that names its own scheme ("ApiKey ...", "Basic ...") is sent in Authorization as it
#: is (Elasticsearch's API keys, OpenSearch's basic authentication); any other key as Bearer
_SCHEME = re.compile(r"^(ApiKey|Basic|Bearer|Token|Negotiate) \S+$")


def search_key_headers(api_key: str | None, header: str = "Authorization") -> dict[str, str]:
    """The headers that carry a search service's key: :func:`key_headers`'s, except that a key
    naming its scheme (``ApiKey BASE64`` for Elasticsearch) goes in Authorization as it is."""
    if api_key and header.lower() == "authorization" and _SCHEME.match(api_key):
        return {"Authorization": api_key}
    return key_headers(api_key, header)


class _SearchService(Service):
    """The service layer's :class:`Service`, with a search service's key placement."""

    def headers(self) -> dict[str, str]:
        out = {k: v for k, v in super().headers().items()
               if k.lower() != self.api_key_header.lower()}
        return {**out, **search_key_headers(self._api_key, self.api_key_header)}


class SearchServiceSetupError(RetrievalError):
    """A search service's settings that cannot work (a template that is not JSON, a path that
    is not JMESPath, a URL without a host): said before anything is sent."""


# -- the request ------------------------------------------------------------------------------
def _mark_placeholders(template: str) -> str:
    """``template`` with each ``{query}`` / ``{k}`` outside a JSON string replaced by a JSON
    string standing for it (inside strings they stay as they are)."""
    out: list[str] = []
    i, n, in_string = 0, len(template), False
    while i < n:
        ch = template[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(template[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
        elif template.startswith("{query}", i):
            out.append(json.dumps(_QUERY_MARK))
            i += len("{query}")
            continue
        elif template.startswith("{k}", i):
            out.append(json.dumps(_K_MARK))
            i += len("{k}")
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_template(template: str):
    """The template's JSON structure with its placeholders marked; a sentence (naming the
    line and column) for one that is not JSON, or that never uses ``{query}``."""
    marked = _mark_placeholders(template)
    try:
        parsed = json.loads(marked)
    except json.JSONDecodeError as exc:
        raise error(SearchServiceSetupError, "searchsvc.template_not_json",
                    line=exc.lineno, column=exc.colno, reason=exc.msg) from None
    except RecursionError:
        raise error(SearchServiceSetupError, "searchsvc.template_not_json", line=1,
                    column=1, reason="nested too deeply") from None
    if "{query}" not in template:
        raise error(SearchServiceSetupError, "searchsvc.template_no_query")
    return parsed


def fill_template(parsed, query: str, k: int):
    """The parsed template with ``query`` and ``k`` in place of their placeholders."""
    if isinstance(parsed, str):
        if parsed == _QUERY_MARK:
            return query
        if parsed == _K_MARK:
            return int(k)
        if "{" in parsed:  # in one pass: a query holding "{k}" keeps it
            return _substitute(parsed, query, str(int(k)))
        return parsed
    if isinstance(parsed, list):
        return [fill_template(v, query, k) for v in parsed]
    if isinstance(parsed, dict):
        return {fill_template(key, query, k): fill_template(v, query, k)
                for key, v in parsed.items()}
    return parsed


def fill_url(url: str, query: str, k: int) -> str:
    """``url`` with ``{query}`` URL-encoded (every reserved character, so ``&``, ``#``, ``/``
    and a space in a query stay in the one parameter) and ``{k}``."""
    return _substitute(url, quote(query, safe=""), str(int(k)))


_PLACEHOLDER = re.compile(r"\{(query|k)\}")


def _substitute(template: str, query: str, k: str) -> str:
    return _PLACEHOLDER.sub(lambda m: query if m.group(1) == "query" else k, template)


# -- the reply --------------------------------------------------------------------------------
def _compile(path: str | None, what: str):
    if path is None or not str(path).strip():
        return None
    try:
        import jmespath
        from jmespath.exceptions import JMESPathError
    except ImportError:
        raise error(SearchServiceSetupError, "searchsvc.needs_jmespath") from None
    try:
        return jmespath.compile(str(path).strip())
    except JMESPathError as exc:
        reason = " ".join(str(exc).split())
        raise error(SearchServiceSetupError, "searchsvc.bad_path", what=what, path=str(path),
                    reason=reason[:200]) from None


def _shape(obj) -> str:
    """What the reply is, for a sentence: its top-level keys, or what it is instead."""
    if isinstance(obj, dict):
        keys = [str(k) for k in list(obj)[:SHOWN_KEYS]]
        more = ", …" if len(obj) > SHOWN_KEYS else ""
        return text("searchsvc.shape_keys", keys=", ".join(keys) + more) if keys else \
            text("searchsvc.shape_empty_object")
    if isinstance(obj, list):
        return text("searchsvc.shape_list", n=len(obj))
    return text("searchsvc.shape_value", kind=_kind(obj))


#: what a JSON value is, as a phrase ("an object")
_KINDS = {"null": "searchsvc.kind.null", "bool": "searchsvc.kind.bool",
          "number": "searchsvc.kind.number", "string": "searchsvc.kind.string",
          "list": "searchsvc.kind.list", "object": "searchsvc.kind.object"}


def _kind(value):
    if value is None:
        kind = "null"
    elif isinstance(value, bool):
        kind = "bool"
    elif isinstance(value, (int, float)):
        kind = "number"
    elif isinstance(value, str):
        kind = "string"
    elif isinstance(value, list):
        kind = "list"
    else:
        kind = "object"
    return text(_KINDS[kind])


def _short(value, limit: int = 60) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def _invalid(said) -> Failure:
    """A reply that cannot be right: the query fails with ``said``, never asked again."""
    return Failure("invalid", detail=said)


def _kept_form(path: str) -> str:
    """``a.b[*].c`` as ``map(&c, a.b)``, which keeps a null in its place (a projection drops
    it); the path itself when it has no such simple form."""
    head, sep, tail = path.partition("[*].")
    if not sep or "[" in tail or "|" in tail or "(" in path:
        return "map(&field, list)"
    return f"map(&{tail}, {head})"


def _as_id(value, rank: int, path: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and not isinstance(value, bool) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else repr(value)
    hint = (text("searchsvc.hint_list", path=path) if isinstance(value, list)
            else text("searchsvc.hint_object"))
    raise _invalid(text("searchsvc.bad_id", rank=rank, path=path, kind=_kind(value),
                        value=_short(value), hint=hint))


def _as_score(value, rank: int, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise _invalid(text("searchsvc.bad_score", rank=rank, path=path,
                                value=_short(value))) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise _invalid(text("searchsvc.bad_score", rank=rank, path=path,
                            value=_short(value)))
    return float(value)


def _as_text(value, rank: int, path: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)  # highlighted fragments, a text split in parts
    raise _invalid(text("searchsvc.bad_text", rank=rank, path=path, kind=_kind(value)))


def _values(expr, path: str, obj, what: str, *, required: bool) -> list | None:
    """The list ``path`` gives in ``obj``; a :class:`Failure` for no match or a non-list."""
    from jmespath.exceptions import JMESPathError

    try:
        got = expr.search(obj)
    except JMESPathError as exc:
        raise _invalid(text("searchsvc.path_failed", what=what, path=path,
                            reason=" ".join(str(exc).split())[:200])) from None
    if got is None:
        if not required:
            return None
        raise _invalid(text("searchsvc.path_nothing", what=what, path=path,
                            shape=_shape(obj)))
    if not isinstance(got, list):
        raise _invalid(text("searchsvc.path_not_list", what=what, path=path,
                            kind=_kind(got), value=_short(got)))
    return got


@dataclass
class Trial:
    """One query asked once ("Try one query"): what was sent and what came back."""

    method: str
    url: str
    headers: dict[str, str]
    body: str | None
    reply: str | None = None          #: pretty-printed, at most TRIAL_REPLY_CHARS
    reply_cut: bool = False
    hits: list[Hit] = field(default_factory=list)
    error: str | None = None          #: the one sentence when the query failed
    exception: RagdashError | None = None
    seconds: float = 0.0


class HttpSearch:
    """A search service over HTTP, callable as ``search(query, k) -> list[Hit]``."""

    def __init__(self, url: str, *, request: str | None = None, method: str = "POST",
                 ids: str | None, scores: str | None = None, texts: str | None = None,
                 api_key: str | None = None, api_key_header: str | None = None,
                 api_key_env: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 concurrency: int = 4, max_retries: int = SEARCH_RETRIES,
                 max_reply_bytes: int | None = None, session=None,
                 seed: int | None = None) -> None:
        self.url = str(url or "").strip()
        self.method = str(method or "POST").strip().upper()
        if self.method not in METHODS:
            raise error(SearchServiceSetupError, "searchsvc.bad_method", method=method)
        parts = urlsplit(self.url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname \
                or "{" in parts.netloc:
            raise error(SearchServiceSetupError, "searchsvc.bad_url", url=self.url or "—")
        if self.method == "GET":
            if request not in (None, ""):
                raise error(SearchServiceSetupError, "searchsvc.get_has_body")
            if "{query}" not in self.url:
                raise error(SearchServiceSetupError, "searchsvc.get_no_query")
            self.request = None
            self._template = None
        else:
            self.request = request if request not in (None, "") else DEFAULT_REQUEST
            self._template = parse_template(self.request)
        self.ids, self.scores, self.texts = ((ids or "").strip() or None,
                                             (scores or "").strip() or None,
                                             (texts or "").strip() or None)
        if self.ids is None and self.texts is None:  # texts alone: mapped by text
            raise error(SearchServiceSetupError, "searchsvc.no_ids")
        self._ids = _compile(self.ids, "ids")
        self._scores = _compile(self.scores, "scores")
        self._texts = _compile(self.texts, "texts")
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                and math.isfinite(timeout) and timeout > 0):
            raise error(SearchServiceSetupError, "searchsvc.bad_timeout", value=timeout)
        self.timeout = float(timeout)
        self.concurrency = int(concurrency)
        self.max_retries = int(max_retries)
        self.max_reply_bytes = max_reply_bytes
        self.api_key_env = api_key_env
        self._lock = threading.Lock()
        self.usage = {"requests": 0, "retries": 0}
        self.service = _SearchService(
            self.url, SPEC, api_key=api_key, api_key_header=api_key_header,
            timeout=self.timeout, concurrency=max(1, self.concurrency),
            max_retries=self.max_retries, session=session, seed=seed, usage=self.usage,
            lock=self._lock, values={"path": self.ids})
        self.api_key_header = self.service.api_key_header
        self._key = (api_key or "").strip() or None
        #: sentences for the user before the run (a key over plain http to another machine)
        self.warnings = self.service.warnings

    # -- what it is -----------------------------------------------------------------------
    @property
    def name(self) -> str:
        parts = urlsplit(self.url)
        return f"http:{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"

    def config(self) -> dict:
        """Settings, JSON-safe; never the key (only whether one is set, and the name of the
        variable it came from)."""
        return {"retriever": "http", "url": _scrubbed(self.url, self._key),
                "method": self.method, "request": self.request, "ids": self.ids,
                "scores": self.scores, "texts": self.texts,
                "api_key_env": self.api_key_env, "api_key_header": self.api_key_header,
                "api_key_set": self.service.has_key, "timeout": self.timeout,
                "concurrency": self.concurrency}

    def __repr__(self) -> str:
        return f"HttpSearch({self.name!r}, ids={self.ids!r})"

    def close(self) -> None:
        self.service.close()

    # -- one query ------------------------------------------------------------------------
    def body(self, query: str, k: int) -> bytes | None:
        """The request body for ``query`` (None for a GET)."""
        if self._template is None:
            return None
        filled = fill_template(self._template, str(query), int(k))
        return json.dumps(filled, ensure_ascii=False).encode("utf-8")

    def target(self, query: str, k: int) -> str:
        """The URL the request for ``query`` goes to."""
        return fill_url(self.url, str(query), int(k))

    def reply_cap(self, k: int) -> int:
        if self.max_reply_bytes:
            return int(self.max_reply_bytes)
        return max(REPLY_FLOOR, int(k) * REPLY_BYTES_PER_RESULT)

    def __call__(self, query: str, k: int) -> list[Hit]:
        return self._ask(self.service, query, k)

    def _ask(self, service: Service, query: str, k: int, seen: list | None = None,
             cancel: threading.Event | None = None) -> list[Hit]:
        def parse(obj):
            if seen is not None:
                seen.append(obj)
            return self.hits(obj)

        try:
            return service.request(self.body(query, k) or b"", max_bytes=self.reply_cap(k),
                                   parse=parse, url=self.target(query, k),
                                   method=self.method, cancel=cancel)
        except BadReplyError as exc:
            failure = getattr(exc, "failure", None)
            if failure is None or failure.shape != "html":
                raise
            cls = type(exc)
            said = error(cls, "searchsvc.html", url=self.url,
                         tried=exc.params.get("tried", ""))
            said.kind, said.failure = exc.kind, failure
            raise said from None

    def hits(self, obj) -> list[Hit]:
        """The hits a reply holds (its JSON); a :class:`Failure` ``"invalid"`` with one
        sentence for a reply that cannot be right."""
        first, first_path, first_what = ((self._ids, self.ids, "ids") if self._ids is not None
                                         else (self._texts, self.texts, "texts"))
        lead = _values(first, first_path, obj, first_what, required=True)
        columns = {first_what: lead}
        for what, expr, path in (("scores", self._scores, self.scores),
                                 ("texts", self._texts, self.texts)):
            if expr is None or what in columns:
                continue
            got = _values(expr, path, obj, what, required=False) or []
            if not got:  # none at all (a [*] projection drops nulls): none given
                continue
            if len(got) != len(lead):
                raise _invalid(text("searchsvc.lengths_differ", ids=first_path,
                                    n_ids=len(lead), what=what, path=path, n=len(got),
                                    kept=_kept_form(path)))
            columns[what] = got
        out = []
        for i in range(len(lead)):
            rank = i + 1
            doc = _as_id(columns["ids"][i], rank, self.ids) if "ids" in columns else None
            score = _as_score(columns["scores"][i], rank, self.scores) \
                if "scores" in columns else None
            txt = _as_text(columns["texts"][i], rank, self.texts) if "texts" in columns \
                else None
            out.append(Hit(doc, score, txt))
        return out

    # -- "Try one query" ------------------------------------------------------------------
    def trial(self, query: str, k: int) -> Trial:
        """Ask ``query`` once (no retries), keeping what was sent and what came back."""
        headers = {k: v for k, v in self.service.headers().items()
                   if k.lower() != self.api_key_header.lower()}
        if self.service.has_key:  # the scheme shown, the key masked
            sent = search_key_headers(self._key, self.api_key_header)
            headers.update({k: (v.split(" ", 1)[0] + " " + _MASK if " " in v else _MASK)
                            for k, v in sent.items()})
        if self.method == "GET":
            headers.pop("Content-Type", None)
        body = self.body(query, k)
        trial = Trial(self.method, self.target(query, k), headers,
                      None if body is None else json.dumps(
                          json.loads(body), ensure_ascii=False, indent=2))
        once = _SearchService(self.url, SPEC, api_key=self._key,
                              api_key_header=self.api_key_header, timeout=self.timeout,
                              concurrency=1, max_retries=0, values={"path": self.ids})
        seen: list = []
        t0 = time.perf_counter()
        try:
            trial.hits = self._ask(once, query, k, seen)
        except RagdashError as exc:
            trial.exception = exc
            trial.error = str(message(exc))
        finally:
            trial.seconds = time.perf_counter() - t0
            once.close()
        if seen:
            shown = json.dumps(seen[-1], ensure_ascii=False, indent=2)
            trial.reply_cut = len(shown) > TRIAL_REPLY_CHARS
            trial.reply = shown[:TRIAL_REPLY_CHARS]
        return trial


def _scrubbed(url: str, key: str | None) -> str:
    return scrub_secrets(url, [key] if key and len(key) >= 4 else [])



#: what decides a search service's answers (its identity for the resume store): not its
#: timeout, its concurrency, nor whether a key is set
_IDENTITY = ("url", "method", "request", "ids", "scores", "texts")


def http_retriever(url: str, *, match: str | None = None, concurrency: int = 4,
                   allow_failures: bool = False, resume: bool = True, home=None,
                   name: str | None = None, **options):
    """An :class:`~ragdash.retrieval.own.retriever.OwnRetriever` over an :class:`HttpSearch`
    (``options``: its settings — ``request``, ``method``, ``ids``, ``scores``, ``texts``,
    ``api_key``, ``api_key_header``, ``api_key_env``, ``timeout``). Each request is bounded
    by the service layer (deadline, retries), so the retriever sets no timeout of its own;
    ``resume``: answers kept in ``$RAGDASH_HOME`` (``home``) as they arrive, so that a restart
    asks only for the queries not answered yet."""
    from .adapters import identity_of
    from .answers import AnswerStore
    from .retriever import OwnRetriever

    search = HttpSearch(url, concurrency=concurrency, **options)
    config = search.config()
    identity = identity_of({k: config[k] for k in _IDENTITY}, None)
    retriever = OwnRetriever(search, name=name or search.name, config=config, match=match,
                             concurrency=concurrency, allow_failures=allow_failures,
                             timeout=None, store=AnswerStore(home) if resume else None,
                             identity=identity)
    return retriever
