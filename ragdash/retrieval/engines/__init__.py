"""Vector engines as retrievers: evaluate a deployed collection, or index a candidate's
vectors into an engine and measure ANN against exact search.

    engine = open_engine("milvus", "/path/ann.db")           # Milvus Lite (a local file)
    engine = open_engine("qdrant", ":memory:")               # Qdrant local mode
    engine = open_engine("chroma", "/path/chroma")           # Chroma, a local folder
    engine = open_engine("milvus", "http://host:19530", token=...)   # a server or cluster
    EngineRetriever(engine, "docs", id_field="doc_id", queries=dense)  # a Retriever
    ann_experiment(dataset, dense, engine, IndexSpec("hnsw", m=16, ef=64))  # ANN vs exact

The engines sit behind :class:`~.base.VectorEngine`; the clients (pymilvus + milvus-lite,
qdrant-client, chromadb) come from ``requirements-engines.txt`` and are imported only when an
engine is opened.
"""

from __future__ import annotations

from ...errors import EngineError
from ...i18n import error
from ...params import ENGINE
from .base import ENGINES, INDEX_KINDS, CollectionInfo, IndexSpec, SearchResult, VectorEngine
from .experiment import AnnReport, AnnRetriever, ann_experiment
from .retriever import EngineRetriever

__all__ = ["ENGINES", "INDEX_KINDS", "AnnReport", "AnnRetriever", "CollectionInfo",
           "EngineRetriever", "IndexSpec", "SearchResult", "VectorEngine", "ann_experiment",
           "make_engine_retriever", "open_engine"]

#: what the two modes of :func:`make_engine_retriever` take besides the dense options: the
#: connection, then a deployed collection's fields (ragdash.params.ENGINE declares both; the
#: setup's ``embedder`` is ``dense`` here, its kind is ``engine``, its token variable gives
#: ``engine_token``)
_CONNECTION = ("uri", "engine_timeout")
_ENGINE_OPTIONS = {"dense", "engine", "engine_token", *_CONNECTION}
_DEPLOYED_OPTIONS = set(ENGINE.names) - {*_CONNECTION, "engine_token_env", "embedder"}
_ANN_OPTIONS = {"collection", "index", "m", "ef_construction", "ef", "nlist", "nprobe",
                "recall_k"}


def open_engine(kind: str, uri: str, *, token: str | None = None,
                timeout: float = ENGINE["engine_timeout"].default) -> VectorEngine:
    """A connection to the engine ``kind`` ("milvus", "qdrant" or "chroma") at ``uri``."""
    key = str(kind).strip().lower()
    if not str(uri or "").strip():
        raise error(EngineError, "engine.no_uri", engine=key)
    if key == "milvus":
        from .milvus import MilvusEngine

        return MilvusEngine(uri, token=token, timeout=timeout)
    if key == "qdrant":
        from .qdrant import QdrantEngine

        return QdrantEngine(uri, token=token, timeout=timeout)
    if key == "chroma":
        from .chroma import ChromaEngine

        return ChromaEngine(uri, token=token, timeout=timeout)
    raise error(EngineError, "engine.unknown", engine=repr(kind), engines=", ".join(ENGINES))


def make_engine_retriever(mode: str, **options):
    """The app's two engine modes as retrievers (what ``make_retriever("engine"|"ann")``
    gives): ``"engine"``, a deployed collection (:class:`EngineRetriever`: ``collection``,
    ``id_field``, ``vector_field``, ``filter``); ``"ann"``, a candidate's vectors indexed into
    a new collection and searched (:class:`AnnRetriever`: ``index`` hnsw|ivf|flat|default,
    ``m``, ``ef_construction``, ``ef``, ``nlist``, ``nprobe``, ``recall_k``). Both take
    ``dense`` ("openai" or "local") with its options (``model``, ``base_url``, ``api_key``,
    ...) for the embeddings, ``engine`` ("milvus" or "qdrant"), ``uri`` and ``engine_token``.
    """
    from ..dense import make_dense_retriever

    options = {k: v for k, v in options.items() if v is not None and v != ""}
    own = _ENGINE_OPTIONS | (_DEPLOYED_OPTIONS if mode == "engine" else _ANN_OPTIONS)
    mine = {k: options.pop(k) for k in list(options) if k in own}
    dense_kind = str(mine.get("dense") or ENGINE["embedder"].default)
    if not options.get("model"):
        raise error(EngineError, "engine.need_model")
    dense = make_dense_retriever(dense_kind, **options)
    engine = open_engine(str(mine.get("engine") or "milvus"), str(mine.get("uri") or ""),
                         token=mine.get("engine_token"),
                         timeout=float(mine.get("engine_timeout")
                                       or ENGINE["engine_timeout"].default))
    if mode == "engine":
        retriever = EngineRetriever(engine, str(mine.get("collection") or ""),
                                    id_field=str(mine.get("id_field") or ""), queries=dense,
                                    vector_field=mine.get("vector_field"),
                                    filter=mine.get("filter"))
        retriever.close_after_rank = True
        return retriever
    if mode == "ann":
        spec = IndexSpec(str(mine.get("index") or "hnsw"),
                         **{k: int(mine[k]) for k in ("m", "ef_construction", "ef", "nlist",
                                                      "nprobe") if k in mine})
        return AnnRetriever(dense, engine, spec, collection=mine.get("collection"),
                            k=int(mine.get("recall_k") or 10))
    raise error(EngineError, "engine.unknown_mode", mode=repr(mode))
