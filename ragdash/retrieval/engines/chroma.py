"""Chroma through ``chromadb.PersistentClient``: a collection in a local folder.

- ``uri`` is the folder Chroma keeps its data in (``--path DIR``, or ``--uri DIR``); a
  Chroma server by URL is not reached from here (no ``http(s)://`` address).
- Vectors are given, never computed: a collection is opened and made without an embedding
  function, and searched with ``query_embeddings`` only, so Chroma loads no model.
- A hit's id is the value of its metadata field ``id_field``, or its Chroma record id when
  ``id_field`` is ``id`` (Chroma's ids are strings already).
- Scores are similarities, higher is better, derived from Chroma's distance in the
  collection's space: cosine and ip give ``1 - distance``; l2 (squared Euclidean) gives
  ``1 - distance / 2``, the cosine of two L2-normalized vectors — the order is Chroma's either
  way.

Collections made by ragdash (``index --engine chroma``) are HNSW in the cosine space, a record
id per row number and the document id in the metadata field ``doc_id``. Chroma has one index
kind, HNSW: ``ivf`` and ``flat`` are refused with one sentence.
"""

from __future__ import annotations

import contextlib
import json
import logging
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import EngineError
from ...i18n import error
from .base import CollectionInfo, IndexSpec, SearchResult, VectorEngine, search_in_batches

#: the id field that names Chroma's own record id
RECORD_ID = "id"
#: the spaces Chroma's HNSW index has, and how a distance becomes a similarity
_SIMILARITY = {"cosine": lambda d: 1.0 - d, "ip": lambda d: 1.0 - d,
               "l2": lambda d: 1.0 - d / 2.0}
#: Chroma's own loggers (they print every failed call): kept off stderr, as Milvus's
_LOGGERS = ("chromadb", "chromadb.telemetry", "chromadb.api", "chromadb.segment")


def _import():
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError:
        raise error(EngineError, "engine.needs_chroma") from None
    for name in _LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return chromadb, Settings


class ChromaEngine(VectorEngine):
    kind = "chroma"

    def __init__(self, uri: str, *, token: str | None = None, timeout: float = 30.0) -> None:
        super().__init__(uri, token=token, timeout=timeout)
        if self.uri.startswith(("http://", "https://")) or self.uri == ":memory:":
            raise error(EngineError, "engine.chroma_path", where=self.where())
        chromadb, settings = _import()
        path = Path(self.uri).expanduser()
        if path.exists() and not path.is_dir():
            raise error(EngineError, "engine.chroma_not_folder", where=self.where())
        try:
            self._client = chromadb.PersistentClient(
                path=str(path), settings=settings(anonymized_telemetry=False,
                                                  allow_reset=False))
        except Exception as exc:  # chromadb raises its own tree, Rust errors and OSErrors
            raise self._fail("engine.do.connect", exc, "engine.check.chroma_path") from None

    # -- reading ---------------------------------------------------------------------------
    def _collection(self, collection: str):
        names = [getattr(c, "name", c) for c in self._call(
            "engine.do.list", "engine.check.chroma_path", self._client.list_collections)]
        if collection not in names:
            shown = ", ".join(sorted(names)[:10]) or "none"
            raise error(EngineError, "engine.no_collection", engine="chroma",
                        where=self.where(), collection=repr(collection), shown=shown)
        # no embedding function: ragdash gives the vectors, Chroma never loads a model
        return self._call("engine.do.describe", "engine.check.collection_name",
                          self._client.get_collection, collection, embedding_function=None)

    def describe(self, collection: str, vector_field: str | None = None) -> CollectionInfo:
        col = self._collection(collection)
        if vector_field not in (None, "", "vector", "embedding"):
            raise error(EngineError, "engine.chroma_one_vector", collection=repr(collection),
                        field=repr(vector_field))
        count = int(self._call("engine.do.count", "engine.check.collection", col.count))
        dimension = getattr(getattr(col, "_model", None), "dimension", None)
        if not dimension and count:
            first = self._call("engine.do.describe", "engine.check.collection", col.get,
                               limit=1, include=["embeddings"])
            dimension = len(first["embeddings"][0])
        if not count:
            raise error(EngineError, "engine.chroma_empty", collection=repr(collection),
                        where=self.where())
        return CollectionInfo(name=collection, dimension=int(dimension), vector_field="",
                              fields=[], count=count, metric=_space(col), open_schema=True)

    def search(self, collection: str, vectors: np.ndarray, k: int, *, vector_field: str,
               id_field: str, filter: str | None = None, index: IndexSpec | None = None,
               batch: int = 64) -> SearchResult:
        col = self._collection(collection)
        where = _parse_filter(filter) if filter else None
        similarity = _SIMILARITY.get(_space(col) or "l2", _SIMILARITY["l2"])
        count = int(self._call("engine.do.count", "engine.check.collection", col.count))
        n = max(1, min(int(k), count or int(k)))  # Chroma warns when asked for more
        include = ["distances"] if id_field == RECORD_ID else ["distances", "metadatas"]

        def search_block(block: np.ndarray) -> list[tuple[list, list]]:
            got = self._call("engine.do.search", "engine.check.chroma_filter", col.query,
                             query_embeddings=block, n_results=n, where=where,
                             include=include)
            metas = got.get("metadatas") or [None] * len(block)
            rows = []
            for row_ids, row_dist, row_meta in zip(got["ids"], got["distances"], metas):
                if id_field == RECORD_ID:
                    hit_ids = [str(i) for i in row_ids]
                else:
                    hit_ids = [_id_of(m, id_field) for m in (row_meta or [None] * len(row_ids))]
                rows.append((hit_ids, [float(similarity(float(d))) for d in row_dist]))
            return rows

        return search_in_batches(vectors, batch, search_block)

    # -- writing ---------------------------------------------------------------------------
    def create(self, collection: str, dimension: int, index: IndexSpec, *,
               id_field: str = "doc_id", vector_field: str = "vector") -> None:
        if index.kind in ("ivf", "flat"):
            raise error(EngineError, "engine.chroma_hnsw_only", index=index.kind)
        self.drop(collection)
        hnsw: dict = {"space": "cosine"}
        if index.kind == "hnsw":
            hnsw.update(max_neighbors=index.m, ef_construction=index.ef_construction,
                        ef_search=index.ef)
        self._call("engine.do.create", "engine.check.writable_path",
                   self._client.create_collection, collection,
                   configuration={"hnsw": hnsw}, embedding_function=None)

    def insert(self, collection: str, doc_ids: Sequence[str], vectors: np.ndarray, *,
               id_field: str = "doc_id", vector_field: str = "vector",
               batch: int = 1000) -> None:
        col = self._collection(collection)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        most = int(self._call("engine.do.insert", "engine.check.disk",
                              self._client.get_max_batch_size))
        step = max(1, min(int(batch), most))
        for start in range(0, len(vectors), step):
            part = list(doc_ids[start:start + step])
            self._call("engine.do.insert", "engine.check.disk", col.add,
                       ids=[str(start + i) for i in range(len(part))],
                       embeddings=vectors[start:start + step],
                       metadatas=[{id_field: str(d)} for d in part])

    def memory_bytes(self, collection: str) -> int | None:
        return None  # Chroma reports no per-collection memory figure

    def drop(self, collection: str) -> None:
        names = [getattr(c, "name", c) for c in self._call(
            "engine.do.list", "engine.check.chroma_path", self._client.list_collections)]
        if collection in names:
            self._call("engine.do.drop", "engine.check.chroma_path",
                       self._client.delete_collection, collection)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._client.close()


def _space(col) -> str | None:
    """The collection's distance space: its configuration's, else its legacy metadata's."""
    with warnings.catch_warnings():  # chromadb warns of its own legacy config format
        warnings.simplefilter("ignore", DeprecationWarning)
        config = getattr(col, "configuration", None) or {}
    hnsw = config.get("hnsw") if isinstance(config, dict) else None
    space = (hnsw or {}).get("space") if isinstance(hnsw, dict) else None
    if space is None:
        space = (getattr(col, "metadata", None) or {}).get("hnsw:space")
    return None if space is None else str(getattr(space, "value", space)).lower()


def _id_of(meta: dict | None, id_field: str) -> str | None:
    value = (meta or {}).get(id_field)
    return None if value is None else str(value)


def _parse_filter(text: str) -> dict:
    """A Chroma ``where`` clause: JSON as Chroma takes it (``{"lang": "ja"}``,
    ``{"$and": [...]}``), or ``field=value[,field=value...]`` (every condition must hold),
    as for Qdrant."""
    raw = str(text).strip()
    if raw.startswith("{"):
        try:
            where = json.loads(raw)
        except ValueError:
            raise error(EngineError, "engine.chroma_bad_filter", filter=repr(text)) from None
        if not isinstance(where, dict) or not where:
            raise error(EngineError, "engine.chroma_bad_filter", filter=repr(text))
        return where
    conditions = []
    for part in raw.split(","):
        if "=" not in part:
            raise error(EngineError, "engine.chroma_bad_filter", filter=repr(text))
        key, value = (s.strip() for s in part.split("=", 1))
        if not key:
            raise error(EngineError, "engine.filter_no_field", filter=repr(text))
        conditions.append({key: value})
    return conditions[0] if len(conditions) == 1 else {"$and": conditions}
