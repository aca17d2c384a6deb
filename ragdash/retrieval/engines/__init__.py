"""Vector engines as retrievers: evaluate a deployed collection, or index a candidate's
vectors into an engine and measure ANN against exact search.

    engine = open_engine("milvus", "/path/ann.db")           # Milvus Lite (a local file)
    engine = open_engine("qdrant", ":memory:")               # Qdrant local mode
    engine = open_engine("milvus", "http://host:19530", token=...)   # a server or cluster
    EngineRetriever(engine, "docs", id_field="doc_id", queries=dense)  # a Retriever
    ann_experiment(dataset, dense, engine, IndexSpec("hnsw", m=16, ef=64))  # ANN vs exact

The engines sit behind :class:`~.base.VectorEngine`; the clients (pymilvus + milvus-lite,
qdrant-client) come from ``requirements-engines.txt`` and are imported only when an engine is
opened.
"""

from __future__ import annotations

from ...errors import EngineError
from .base import ENGINES, INDEX_KINDS, CollectionInfo, IndexSpec, SearchResult, VectorEngine
from .experiment import AnnReport, ann_experiment
from .retriever import EngineRetriever

__all__ = ["ENGINES", "INDEX_KINDS", "AnnReport", "CollectionInfo", "EngineRetriever",
           "IndexSpec", "SearchResult", "VectorEngine", "ann_experiment", "open_engine"]


def open_engine(kind: str, uri: str, *, token: str | None = None,
                timeout: float = 30.0) -> VectorEngine:
    """A connection to the engine ``kind`` ("milvus" or "qdrant") at ``uri``."""
    key = str(kind).strip().lower()
    if not str(uri or "").strip():
        raise EngineError(f"the {key} engine needs a URI (--uri): a local file or folder, or "
                          f"the server's http(s) address")
    if key == "milvus":
        from .milvus import MilvusEngine

        return MilvusEngine(uri, token=token, timeout=timeout)
    if key == "qdrant":
        from .qdrant import QdrantEngine

        return QdrantEngine(uri, token=token, timeout=timeout)
    raise EngineError(f"unknown engine {kind!r}; choose one of {', '.join(ENGINES)}")
