"""How vectors are obtained: an OpenAI-compatible embeddings client, local models, a cache.

Ranking with those vectors (``DenseRetriever``) lives in :mod:`ragdash.retrieval.dense`.

Modules: ``client`` (HTTP, batching, checks), ``retry`` (the retry policy), ``urls`` (base
URL rules), ``batching`` (token estimates), ``cache`` (SQLite), ``local``
(sentence-transformers, loaded lazily).
"""

from .cache import EmbeddingCache
from .client import EmbeddingClient

__all__ = ["EmbeddingCache", "EmbeddingClient"]
