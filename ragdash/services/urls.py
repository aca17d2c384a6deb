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

The URL shown to users and used in cache keys drops any user:password part and the query
string, so nothing secret that was pasted into a URL ends up in a message or a file.
"""

from __future__ import annotations

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

    if path.endswith(suffix):
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
    return Endpoint(url=base + suffix, params=params, base=base, azure=azure)


def redact_url(url: str) -> str:
    """A URL for a message: no user:password and no query string."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unreadable URL>"
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
