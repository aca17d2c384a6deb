"""The rerank APIs ragdash speaks: where to POST, what to send, how to read the reply.

Five protocols, one reply reader (checked against each provider's reference):

=========  =====================  ==============================================  ===========
protocol   path                   request body                                    billed in
=========  =====================  ==============================================  ===========
cohere     ``/v2/rerank``         ``model, query, documents: [str], top_n``       search units
jina       ``/v1/rerank``         ``model, query, documents: [str], top_n``       tokens
voyage     ``/v1/rerank``         ``model, query, documents: [str], top_k``       tokens
tei        ``/rerank``            ``query, texts: [str], truncate``               (self-hosted)
vllm       ``/rerank``, ``/v1/rerank``  as jina (vLLM's Jina/Cohere-shaped API)   (self-hosted)
=========  =====================  ==============================================  ===========

Replies: ``{"results": [{"index", "relevance_score"}], "meta": {"billed_units":
{"search_units"}}}`` (Cohere), ``{"results": [...], "usage": {"total_tokens"}}`` (Jina, vLLM),
``{"data": [{"index", "relevance_score"}], "usage": {"total_tokens"}}`` (Voyage), ``[{"index",
"score"}]`` (TEI). Whichever protocol was asked for, :func:`parse_reply` reads any of these
shapes, and checks it: one score per document sent, every index in range and given once, every
score a finite number. A reply that fails a check cannot be trusted for any of its documents
(which score belongs to which?), so it raises :class:`BadReply` with one sentence.

From the base URL a user typed to the URL POSTed to (:func:`resolve_rerank_endpoint`, the
embeddings client's rules where they apply; tested as a table):

1. spaces and trailing slashes are ignored; the scheme must be http or https; user:password
   and the query string never reach a message or a cache key;
2. a URL that already ends in ``/rerank`` is the endpoint itself;
3. a URL with a path gets ``/rerank`` appended (``http://localhost:8000/v1`` → vLLM's
   ``/v1/rerank``; ``https://api.cohere.com/v2`` → ``/v2/rerank``);
4. a bare host gets its provider's path: ``api.cohere.com`` / ``api.cohere.ai`` →
   ``/v2/rerank``, ``api.jina.ai`` and ``api.voyageai.com`` → ``/v1/rerank``; any other host
   (a TEI or vLLM server) → ``/rerank``.

The protocol is the one given, else the host's provider, else the path's (``/v2/rerank`` →
cohere, ``/v1/rerank`` → vllm), else tei.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from ..errors import RerankError
from ..i18n import error, text
from ..services.service import reported_count
from ..services.urls import redact_url

PROTOCOLS = ("cohere", "jina", "voyage", "tei", "vllm")

#: documents per request when the server has not said otherwise. 1,000 is the most that
#: Cohere and Voyage document per request; for the others it is a starting point that a
#: server's "at most N" error lowers (see client.py)
DEFAULT_MAX_DOCUMENTS = {"cohere": 1000, "jina": 1000, "voyage": 1000, "tei": 1000,
                         "vllm": 1000}
#: Voyage caps one request at (query tokens × documents + document tokens); 300K is the
#: smallest cap its reference lists (rerank-lite-1). None: no token budget per request.
DEFAULT_MAX_REQUEST_TOKENS = {"voyage": 300_000}
#: Cohere bills one search unit per query with up to this many documents
COHERE_DOCS_PER_SEARCH_UNIT = 100
#: how each protocol's provider bills: "search_units", "tokens" or None (self-hosted)
BILLING = {"cohere": "search_units", "jina": "tokens", "voyage": "tokens", "tei": None,
           "vllm": None}
#: default environment variable for the key, by protocol (None: a self-hosted server)
KEY_ENV = {"cohere": "COHERE_API_KEY", "jina": "JINA_API_KEY", "voyage": "VOYAGE_API_KEY",
           "tei": None, "vllm": None}
#: catalog provider of each protocol (the cost catalog's ``provider`` column)
PROVIDER = {"cohere": "Cohere", "jina": "Jina AI", "voyage": "Voyage AI", "tei": "local",
            "vllm": "local"}

_HOSTS = {"api.cohere.com": ("cohere", "/v2"), "api.cohere.ai": ("cohere", "/v2"),
          "api.jina.ai": ("jina", "/v1"), "api.voyageai.com": ("voyage", "/v1")}


@dataclass(frozen=True)
class RerankEndpoint:
    url: str        #: where to POST; no query string, no credentials
    base: str       #: the endpoint without ``/rerank``: for cache keys and messages
    protocol: str


class BadReply(Exception):
    """A reply that parsed but cannot be right; ``str()`` is the sentence for the user."""


def resolve_rerank_endpoint(base_url: str | None, *, protocol: str | None = None
                            ) -> RerankEndpoint:
    """Apply the rules in the module docstring."""
    if protocol is not None:
        protocol = str(protocol).strip().lower()
        if protocol not in PROTOCOLS:
            raise error(RerankError, "rerank.unknown_protocol", protocol=repr(protocol),
                        protocols=", ".join(PROTOCOLS))
    raw = (base_url or "").strip()
    if not raw:
        raise error(RerankError, "rerank.no_base_url")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise error(RerankError, "rerank.not_http", url=repr(redact_url(raw)))
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    path = parts.path.rstrip("/")
    known = _HOSTS.get(host)
    if path.endswith("/rerank"):
        path = path[: -len("/rerank")]
    elif not path:
        path = known[1] if known else ""
    if protocol is None:
        if known:
            protocol = known[0]
        elif path.endswith("/v2"):
            protocol = "cohere"
        elif path.endswith("/v1"):
            protocol = "vllm"
        else:
            protocol = "tei"
    base = urlunsplit((parts.scheme.lower(), netloc, path, "", ""))
    return RerankEndpoint(url=base + "/rerank", base=base, protocol=protocol)


def request_body(protocol: str, model: str, query: str, documents: list[str]) -> dict:
    """The JSON body of one rerank request (every document scored: top_n = all)."""
    n = len(documents)
    if protocol == "tei":
        # truncate: a pair longer than the model's window is cut by the server instead of
        # refused (the other providers do this by default)
        return {"query": query, "texts": documents, "truncate": True, "raw_scores": False,
                "return_text": False}
    body = {"model": model, "query": query, "documents": documents}
    if protocol == "voyage":
        body.update(top_k=n, return_documents=False, truncation=True)
    elif protocol == "cohere":
        body.update(top_n=n)
    else:  # jina, vllm
        body.update(top_n=n, return_documents=False)
    return body


@dataclass(frozen=True)
class Reply:
    scores: np.ndarray            #: float64, one per document sent, in the order sent
    search_units: int | None      #: as billed (Cohere's meta.billed_units)
    tokens: int | None            #: as reported (usage.total_tokens)


def parse_reply(obj, n: int, url: str) -> Reply:
    """Scores in the order the documents were sent, and the billed units; or BadReply."""
    if isinstance(obj, list):
        items, score_key = obj, "score"
    elif isinstance(obj, dict) and isinstance(obj.get("results"), list):
        items, score_key = obj["results"], "relevance_score"
    elif isinstance(obj, dict) and isinstance(obj.get("data"), list):
        items, score_key = obj["data"], "relevance_score"
    else:
        raise BadReply(text("rerank.bad.no_results", url=url))
    if len(items) != n:
        raise BadReply(text("rerank.bad.count", url=url, got=len(items), n=n))
    indices = np.empty(n, dtype=np.int64)
    scores = np.empty(n, dtype=np.float64)
    for pos, item in enumerate(items):
        if not isinstance(item, dict):
            raise BadReply(text("rerank.bad.not_object", url=url))
        index = item.get("index")
        raw = item.get(score_key, item.get("score", item.get("relevance_score")))
        # a whole number (1.0 is one; NaN, Infinity, 1.5 are not), compared before any
        # conversion: 1e20 or 10**30 fit no int64 and 10**400 no float
        if isinstance(index, bool) or not isinstance(index, (int, float)) or (
                isinstance(index, float) and not (math.isfinite(index) and index.is_integer())):
            raise BadReply(text("rerank.bad.no_index", url=url))
        if not 0 <= index < n:
            raise BadReply(text("rerank.bad.index_range", url=url, index=_short(index), n=n,
                                last=n - 1))
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise BadReply(text("rerank.bad.no_score", url=url))
        try:
            scores[pos] = float(raw)
        except OverflowError:  # an integer beyond any float: 10**400
            raise BadReply(text("rerank.bad.not_finite", url=url)) from None
        indices[pos] = int(index)
    uniq, counts = np.unique(indices, return_counts=True)
    if len(uniq) != n:
        raise BadReply(text("rerank.bad.index_twice", url=url, index=int(uniq[counts > 1][0])))
    if not np.isfinite(scores).all():
        raise BadReply(text("rerank.bad.not_finite", url=url))
    ordered = np.empty(n, dtype=np.float64)
    ordered[indices] = scores
    return Reply(ordered, _billed_search_units(obj), _reported_tokens(obj))


def _short(number: float) -> str:
    """A number for a message: as it is, or in scientific notation when it is long."""
    return str(int(number)) if abs(number) < 10**15 else f"{Decimal(number):.3g}"


def _billed_search_units(obj) -> int | None:
    if not isinstance(obj, dict):
        return None
    meta = obj.get("meta")
    billed = meta.get("billed_units") if isinstance(meta, dict) else None
    return reported_count(billed.get("search_units")) if isinstance(billed, dict) else None


def _reported_tokens(obj) -> int | None:
    if not isinstance(obj, dict):
        return None
    usage = obj.get("usage")
    if isinstance(usage, dict):
        for name in ("total_tokens", "prompt_tokens"):
            if reported_count(usage.get(name)) is not None:
                return reported_count(usage.get(name))
    meta = obj.get("meta")
    billed = meta.get("billed_units") if isinstance(meta, dict) else None
    if isinstance(billed, dict) and reported_count(billed.get("input_tokens")) is not None:
        return reported_count(billed.get("input_tokens"))
    return None


def search_units_for(n_documents: int) -> int:
    """Cohere's search units for one request: one per started block of 100 documents."""
    return -(-int(n_documents) // COHERE_DOCS_PER_SEARCH_UNIT) if n_documents else 0
