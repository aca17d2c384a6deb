"""Qdrant through ``qdrant-client``.

- ``uri`` ``:memory:`` or a local folder path: Qdrant's local mode (in-process; for tests and
  small experiments);
- ``http(s)://host:6333``: a Qdrant server or cluster; ``token`` is its API key (memory only).

Collections made by ragdash hold one unnamed vector (cosine distance) per point, the point id
is the row number and the payload field (``doc_id`` by default) the dataset's document id.
A deployed collection may use named vectors: give ``--vector-field``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import EngineError
from ...i18n import error
from .base import CollectionInfo, IndexSpec, SearchResult, VectorEngine, search_in_batches


def _import():
    try:
        import qdrant_client
        from qdrant_client import models
    except ImportError:
        raise error(EngineError, "engine.needs_qdrant") from None
    return qdrant_client, models


def _is_remote(uri: str) -> bool:
    return uri.startswith(("http://", "https://"))


class QdrantEngine(VectorEngine):
    kind = "qdrant"

    def __init__(self, uri: str, *, token: str | None = None, timeout: float = 30.0) -> None:
        super().__init__(uri, token=token, timeout=timeout)
        qdrant_client, self._m = _import()
        try:
            if self.uri == ":memory:":
                self._client = qdrant_client.QdrantClient(location=":memory:")
            elif _is_remote(self.uri):
                self._client = qdrant_client.QdrantClient(url=self.uri, api_key=self._token,
                                                          timeout=int(max(1, self.timeout)))
            else:
                self._client = qdrant_client.QdrantClient(path=self.uri)
        except Exception as exc:
            raise self._fail("engine.do.connect", exc,
                             "engine.check.qdrant_connect") from None

    def describe(self, collection: str, vector_field: str | None = None) -> CollectionInfo:
        exists = self._call("engine.do.list", "engine.check.url_key",
                            self._client.collection_exists, collection)
        if not exists:
            names = [c.name for c in self._call("engine.do.list", "engine.check.url",
                                                self._client.get_collections).collections]
            shown = ", ".join(sorted(names)[:10]) or "none"
            raise error(EngineError, "engine.no_collection", engine="qdrant",
                        where=self.where(), collection=repr(collection), shown=shown)
        info = self._call("engine.do.describe", "engine.check.collection_name",
                          self._client.get_collection, collection)
        vectors = info.config.params.vectors
        if isinstance(vectors, dict):  # named vectors
            names = sorted(vectors)
            if vector_field is None:
                if len(names) != 1:
                    raise error(EngineError, "engine.named_vectors",
                                collection=repr(collection), names=", ".join(names))
                vector_field = names[0]
            if vector_field not in vectors:
                raise error(EngineError, "engine.no_named_vector", collection=repr(collection),
                            field=repr(vector_field), names=", ".join(names))
            params = vectors[vector_field]
        else:
            if vector_field not in (None, "", "vector"):
                raise error(EngineError, "engine.unnamed_vector", collection=repr(collection),
                            field=repr(vector_field))
            params, vector_field = vectors, ""
        count = self._call("engine.do.count", "engine.check.collection", self._client.count,
                           collection, exact=True).count
        return CollectionInfo(name=collection, dimension=int(params.size),
                              vector_field=vector_field or "", fields=[], count=int(count),
                              metric=str(getattr(params.distance, "value", params.distance)),
                              open_schema=True)

    def search(self, collection: str, vectors: np.ndarray, k: int, *, vector_field: str,
               id_field: str, filter: str | None = None, index: IndexSpec | None = None,
               batch: int = 64) -> SearchResult:
        m = self._m
        query_filter = _parse_filter(filter, m) if filter else None
        params = None
        if index is not None and index.kind == "hnsw":
            params = m.SearchParams(hnsw_ef=max(index.ef, k))
        elif index is not None and index.kind == "flat":
            params = m.SearchParams(exact=True)

        def search_block(block: np.ndarray) -> list[tuple[list, list]]:
            requests = [m.QueryRequest(query=v.tolist(), limit=int(k), filter=query_filter,
                                       params=params, using=vector_field or None,
                                       with_payload=[id_field]) for v in block]
            answers = self._call("engine.do.search", "engine.check.qdrant_filter",
                                 self._client.query_batch_points, collection,
                                 requests=requests)
            return [([_id_of(p, id_field) for p in answer.points],
                     [float(p.score) for p in answer.points]) for answer in answers]

        return search_in_batches(vectors, batch, search_block)

    def create(self, collection: str, dimension: int, index: IndexSpec, *,
               id_field: str = "doc_id", vector_field: str = "vector") -> None:
        m = self._m
        self.drop(collection)
        hnsw = None
        if index.kind == "hnsw":
            hnsw = m.HnswConfigDiff(m=index.m, ef_construct=index.ef_construction)
        elif index.kind == "ivf":
            raise error(EngineError, "engine.qdrant_no_ivf")
        self._call("engine.do.create", "engine.check.writable_path",
                   self._client.create_collection, collection,
                   vectors_config=m.VectorParams(size=int(dimension),
                                                 distance=m.Distance.COSINE),
                   hnsw_config=hnsw)

    def insert(self, collection: str, doc_ids: Sequence[str], vectors: np.ndarray, *,
               id_field: str = "doc_id", vector_field: str = "vector",
               batch: int = 1000) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._call("engine.do.insert", "engine.check.disk_url",
                   self._client.upload_collection, collection, vectors=vectors,
                   payload=[{id_field: str(d)} for d in doc_ids],
                   ids=list(range(len(doc_ids))), batch_size=batch, wait=True)

    def memory_bytes(self, collection: str) -> int | None:
        return None  # qdrant-client reports no per-collection memory figure

    def drop(self, collection: str) -> None:
        if self._call("engine.do.list", "engine.check.url", self._client.collection_exists,
                      collection):
            self._call("engine.do.drop", "engine.check.url",
                       self._client.delete_collection, collection)


def _id_of(point, id_field: str) -> str | None:
    """The point's payload field ``id_field`` as a string (``id``: the point id when the
    payload has no such field); None when it has neither."""
    payload = point.payload or {}
    value = payload.get(id_field)
    if value is None and id_field == "id":
        value = point.id
    return None if value is None else str(value)


def _parse_filter(text: str, m):
    """``field=value[,field=value...]`` → a Qdrant filter (every condition must hold).

    Qdrant has no filter language of its own in the client; this covers equality on payload
    fields, the common case for evaluating one tenant or one source of a collection."""
    conditions = []
    for part in str(text).split(","):
        if "=" not in part:
            raise error(EngineError, "engine.bad_filter", filter=repr(text))
        key, value = (s.strip() for s in part.split("=", 1))
        if not key:
            raise error(EngineError, "engine.filter_no_field", filter=repr(text))
        conditions.append(m.FieldCondition(key=key, match=m.MatchValue(value=value)))
    return m.Filter(must=conditions)
