"""From the base URL a user typed to the URL that is POSTed to, for every OpenAI-compatible
service (``embeddings``, ``chat/completions``): the service names its ``path``.

The rules (tested as a table in tests/services/test_urls.py):

1. Spaces and trailing slashes are ignored; the scheme must be http or https.
2. A URL that already ends in the service's path (``/embeddings``) is the endpoint itself
   (pasted from a provider's docs); its query string (e.g. ``api-version``) is kept.
3. A bare host (no path) gets ``/v1``: ``https://api.openai.com`` →
   ``https://api.openai.com/v1/embeddings``, ``http://localhost:8080`` (TEI, vLLM, LiteLLM) →
   ``http://localhost:8080/v1/embeddings``.
4. A URL with a path is used as given, as the OpenAI SDK does: ``http://localhost:11434/v1``
   (Ollama), ``https://openrouter.ai/api/v1``, ``https://host/openai`` → ``…/embeddings``.
5. Azure OpenAI (hosts ``*.openai.azure.com``, ``*.cognitiveservices.azure.com``,
   ``*.services.ai.azure.com``, or any path with ``/openai/deployments/``) sends the key in an
   ``api-key`` header instead of ``Authorization: Bearer``:
   - a deployment URL ``…/openai/deployments/NAME`` needs an ``api-version``: the one given,
     else the one in the URL, else :data:`AZURE_DEFAULT_API_VERSION`;
   - the v1 path ``…/openai/v1`` needs none (one is sent only if given);
   - a bare Azure host becomes ``…/openai/v1`` (the model is the deployment name), or
     ``…/openai/deployments/MODEL`` when an ``api-version`` is given.

6. The other form, tried once when the first request gets a 404: with ``/v1`` removed from
   the end of the path, or added to it (``http://host:7997/v1/embeddings`` 404 →
   ``http://host:7997/embeddings``: infinity-emb serves at the root; a bare host is tried as
   ``/v1`` first, as ragdash always did, so the cache keys of a URL that worked stay the
   same). A URL typed with the service's path, and Azure, have no other form. When the other
   form answers, it is used from then on and the client says so in one line
   (:attr:`Endpoint.alternate`, :class:`ragdash.services.service.Service`).

:func:`typed_form` spells an endpoint as a base URL that resolves to it again (the endpoint
itself where the base alone would be read differently), so a run records the URL it used.

The URL shown to users and used in cache keys drops any user:password part and the query
string, so nothing secret that was pasted into a URL ends up in a message or a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ..errors import EmbeddingError
from ..i18n import error

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: api-version sent to an Azure deployment URL when none is given (the GA data-plane version)
AZURE_DEFAULT_API_VERSION = "2024-10-21"
AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com",
                       ".services.ai.azure.com")


@dataclass(frozen=True)
class Endpoint:
    url: str                      #: where to POST; no query string, no credentials
    params: dict[str, str] = field(default_factory=dict)  #: query parameters to send
    base: str = ""                #: normalized base URL, for cache keys and messages
    azure: bool = False
    alternate: str | None = None  #: the other form of ``url``, tried once on a first 404


def resolve_endpoint(base_url: str | None, *, model: str = "",
                     api_version: str | None = None, path: str = "embeddings") -> Endpoint:
    """Apply the rules in the module docstring; ``path``: the service's path under the base
    (``embeddings``, ``chat/completions``)."""
    raw = (base_url or DEFAULT_BASE_URL).strip()
    parts = urlsplit(raw)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise error(EmbeddingError, "embed.not_http", url=redact_url(raw))
    host = parts.hostname.lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    suffix = "/" + path.strip("/")
    path = parts.path.rstrip("/")
    params = dict(parse_qsl(parts.query))
    azure = host.endswith(AZURE_HOST_SUFFIXES) or "/openai/deployments/" in path + "/"

    explicit = path.endswith(suffix)
    if explicit:
        path = path[: -len(suffix)]
    elif not path:
        if azure and api_version:
            path = f"/openai/deployments/{model}"
        elif azure:
            path = "/openai/v1"
        else:
            path = "/v1"

    if api_version:
        params["api-version"] = api_version
    if azure and "/openai/deployments/" in path + "/" and "api-version" not in params:
        params["api-version"] = AZURE_DEFAULT_API_VERSION

    base = urlunsplit((scheme, netloc, path, "", ""))
    alternate = None
    if not explicit and not azure:
        other = path[: -len("/v1")] if path.endswith("/v1") else path + "/v1"
        alternate = urlunsplit((scheme, netloc, other, "", "")) + suffix
    return Endpoint(url=base + suffix, params=params, base=base, azure=azure,
                    alternate=alternate)


def moved_to(endpoint: Endpoint, url: str, path: str = "embeddings") -> Endpoint:
    """``endpoint`` POSTing to ``url`` (its other form, which answered) instead."""
    suffix = "/" + path.strip("/")
    return Endpoint(url=url, params=endpoint.params, base=url[: -len(suffix)],
                    azure=endpoint.azure, alternate=None)


def typed_form(endpoint: Endpoint, path: str = "embeddings") -> str:
    """A base URL that resolves to ``endpoint`` again: its base, or where the base alone would
    be read as another URL (a server at its root: ``http://host:7997`` would get ``/v1``) the
    endpoint's URL itself."""
    again = resolve_endpoint(endpoint.base, path=path)
    return endpoint.base if again.url == endpoint.url else endpoint.url


def redact_url(url: str) -> str:
    """A URL for a message: no user:password and no query string."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unreadable URL>"
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def moved_notes(config: Mapping) -> list:
    """The sentences of a run's ``config`` for each endpoint whose URL as typed got 404 and
    whose other form was used (the run's own, its stages', an engine's query embedder)."""
    from ..i18n import text

    configs = [config, config.get("query_embedding") or {}]
    for stage in config.get("stages") or []:
        inner = stage.get("config") or {}
        configs += [inner, inner.get("query_embedding") or {}]
    return [text("services.moved", typed=c["moved_from"], used=c.get("endpoint") or "")
            for c in configs if isinstance(c, Mapping) and c.get("moved_from")]
