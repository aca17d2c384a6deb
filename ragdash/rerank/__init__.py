"""The remote rerank service: a scorer of (query, document) pairs behind an HTTP API, as the
embeddings service is an embedder (the rerank *stage* — planning, cache, the derived run —
is :mod:`ragdash.retrieval.rerank`).

- :mod:`.protocols` — Cohere, Jina, Voyage, text-embeddings-inference and vLLM: URL
  resolution, request bodies, one checked reply reader;
- :mod:`.client` — :class:`RerankClient`, one client for all of them on the service layer
  (:mod:`ragdash.services`): many documents per request, server limits respected.
"""

from .client import RerankClient
from .protocols import PROTOCOLS, resolve_rerank_endpoint

__all__ = ["PROTOCOLS", "RerankClient", "resolve_rerank_endpoint"]
