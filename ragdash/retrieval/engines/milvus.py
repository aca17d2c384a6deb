"""Milvus through pymilvus's ``MilvusClient``.

- ``uri`` ending in ``.db`` (or any local path): Milvus Lite, an embedded Milvus in that file
  (PyPI ``milvus-lite``); the default for ANN experiments, kept under ``RAGDASH_HOME``.
- ``http(s)://host:19530``: a Milvus standalone or cluster; ``token`` is ``user:password`` or
  an API key (memory only).

The libraries' own logging (pymilvus prints every failed call with its traceback, Milvus Lite
its server's errors) is kept off stderr: ragdash says what went wrong in one sentence. With
``--verbose`` (``RAGDASH_VERBOSE=1``) their lines show as the libraries print them. Either
way the last records are kept, so that a file locked by another process is said as such.

Collections made by ragdash have an INT64 primary key ``pk``, a VARCHAR id field (the
dataset's document id) and a FLOAT_VECTOR field, inner-product metric on normalized vectors.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import EngineError
from ...i18n import error
from .base import CollectionInfo, IndexSpec, SearchResult, VectorEngine, search_in_batches

_VECTOR_TYPES = ("FLOAT_VECTOR", "FLOAT16_VECTOR", "BFLOAT16_VECTOR")


def _import():
    try:
        import pymilvus
    except ImportError:
        raise error(EngineError, "engine.needs_milvus") from None
    _route_logs()
    return pymilvus


#: the loggers pymilvus and Milvus Lite write to (pymilvus gives the first three their own
#: stderr handlers when it is imported)
_LOGGERS = ("pymilvus", "pymilvus.milvus_client", "pymilvus.bulk_writer", "milvus_lite")
VERBOSE_ENV = "RAGDASH_VERBOSE"


class _Recent(logging.Handler):
    """The libraries' last log records, to find the cause behind a vague exception."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: collections.deque[logging.LogRecord] = collections.deque(maxlen=50)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def causes(self, since: int) -> list[BaseException]:
        """The exceptions logged since ``since`` (a count of records seen)."""
        out = []
        for record in list(self.records)[since:]:
            exc = record.exc_info[1] if record.exc_info else None
            while exc is not None:
                out.append(exc)
                exc = exc.__cause__ or exc.__context__
        return out


_RECENT = _Recent()


def verbose() -> bool:
    """The engines' own logging goes to stderr (``--verbose``, ``RAGDASH_VERBOSE=1``)."""
    return os.environ.get(VERBOSE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def _route_logs() -> None:
    """Every record of the libraries to :data:`_RECENT`; to stderr only when verbose."""
    loud = verbose()
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if not loud:
            logger.handlers = [h for h in logger.handlers if h is _RECENT]
            logger.propagate = False
        elif name == "milvus_lite" and not any(isinstance(h, logging.StreamHandler)
                                               for h in logger.handlers):
            logger.addHandler(logging.StreamHandler())  # pymilvus brings its own
        if _RECENT not in logger.handlers:
            logger.addHandler(_RECENT)
        if not loud and logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)


class MilvusEngine(VectorEngine):
    kind = "milvus"

    def __init__(self, uri: str, *, token: str | None = None, timeout: float = 30.0) -> None:
        super().__init__(uri, token=token, timeout=timeout)
        pymilvus = _import()
        self._DataType = pymilvus.DataType
        if not self.uri.startswith(("http://", "https://", "tcp://", "unix:")):
            # Milvus Lite opens a file but will not make its folder (a fresh RAGDASH_HOME)
            with contextlib.suppress(OSError):
                Path(self.uri).expanduser().parent.mkdir(parents=True, exist_ok=True)
        kwargs = {"uri": self.uri, "timeout": self.timeout}
        if self._token:
            kwargs["token"] = self._token
        seen = len(_RECENT.records)
        try:
            self._client = pymilvus.MilvusClient(**kwargs)
        except Exception as exc:  # pymilvus raises its own tree and plain OSErrors
            raise self._open_failed(exc, _RECENT.causes(seen)) from None

    def _open_failed(self, exc: BaseException, causes: list[BaseException]) -> EngineError:
        """The sentence for a client that did not open: Milvus Lite logs the cause (a lock
        held by another process, a file where its folder should be) and pymilvus raises
        only "Open local milvus failed"."""
        names = {type(c).__name__ for c in causes}
        if "DataDirLockedError" in names:
            return error(EngineError, "engine.milvus_locked", where=self.where())
        if names & {"FileExistsError", "NotADirectoryError"} and Path(self.uri).is_file():
            return error(EngineError, "engine.milvus_not_a_store", where=self.where())
        return self._fail("engine.do.connect", exc, "engine.check.milvus_connect")

    # -- reading ---------------------------------------------------------------------------
    def describe(self, collection: str, vector_field: str | None = None) -> CollectionInfo:
        exists = self._call("engine.do.list", "engine.check.uri_token",
                            self._client.has_collection, collection)
        if not exists:
            names = self._call("engine.do.list", "engine.check.uri",
                               self._client.list_collections)
            shown = ", ".join(sorted(names)[:10]) or "none"
            raise error(EngineError, "engine.no_collection", engine="milvus",
                        where=self.where(), collection=repr(collection), shown=shown)
        desc = self._call("engine.do.describe", "engine.check.collection_name",
                          self._client.describe_collection, collection)
        fields = desc.get("fields", [])
        vectors = [f for f in fields if getattr(f.get("type"), "name", str(f.get("type")))
                   in _VECTOR_TYPES]
        names = [f["name"] for f in fields]
        if vector_field is None:
            if len(vectors) != 1:
                raise error(EngineError, "engine.vector_fields", collection=repr(collection),
                            n=len(vectors),
                            names=", ".join(f["name"] for f in vectors) or "none")
            chosen = vectors[0]
        else:
            chosen = next((f for f in vectors if f["name"] == vector_field), None)
            if chosen is None:
                raise error(EngineError, "engine.no_vector_field",
                            collection=repr(collection), field=repr(vector_field),
                            names=", ".join(f["name"] for f in vectors) or "none")
        dim = int(chosen.get("params", {}).get("dim", 0))
        # a collection opened by a new process is released: load it to search (a no-op if
        # it is loaded already)
        self._call("engine.do.load", "engine.check.has_index",
                   self._client.load_collection, collection)
        stats = self._call("engine.do.stats", "engine.check.collection",
                           self._client.get_collection_stats, collection)
        count = stats.get("row_count") if isinstance(stats, dict) else None
        return CollectionInfo(name=collection, dimension=dim, vector_field=chosen["name"],
                              fields=names, count=None if count is None else int(count),
                              metric=None, open_schema=bool(desc.get("enable_dynamic_field")))

    def search(self, collection: str, vectors: np.ndarray, k: int, *, vector_field: str,
               id_field: str, filter: str | None = None, index: IndexSpec | None = None,
               batch: int = 64) -> SearchResult:
        params: dict = {}
        if index is not None and index.kind == "hnsw":
            params = {"ef": max(index.ef, k)}
        elif index is not None and index.kind == "ivf":
            params = {"nprobe": index.nprobe}

        def search_block(block: np.ndarray) -> list[tuple[list, list]]:
            hits = self._call(
                "engine.do.search", "engine.check.milvus_filter", self._client.search, collection,
                data=list(block), limit=int(k), anns_field=vector_field, output_fields=[id_field],
                filter=filter or "", search_params={"metric_type": "IP", "params": params},
                timeout=self.timeout)
            return [([_id_of(h, id_field) for h in row], [float(h["distance"]) for h in row])
                    for row in hits]

        return search_in_batches(vectors, batch, search_block)

    # -- writing ---------------------------------------------------------------------------
    def create(self, collection: str, dimension: int, index: IndexSpec, *,
               id_field: str = "doc_id", vector_field: str = "vector") -> None:
        from pymilvus import MilvusClient

        dt = self._DataType
        self.drop(collection)
        schema = MilvusClient.create_schema(auto_id=False)
        schema.add_field("pk", dt.INT64, is_primary=True)
        schema.add_field(id_field, dt.VARCHAR, max_length=1024)
        schema.add_field(vector_field, dt.FLOAT_VECTOR, dim=int(dimension))
        index_params = self._client.prepare_index_params()
        kind, params = {"hnsw": ("HNSW", {"M": index.m, "efConstruction": index.ef_construction}),
                        "ivf": ("IVF_FLAT", {"nlist": index.nlist}),
                        "flat": ("FLAT", {}),
                        "default": ("AUTOINDEX", {})}[index.kind]
        index_params.add_index(vector_field, index_type=kind, metric_type="IP", params=params)
        self._call("engine.do.create", "engine.check.writable_uri",
                   self._client.create_collection, collection, schema=schema,
                   index_params=index_params)

    def insert(self, collection: str, doc_ids: Sequence[str], vectors: np.ndarray, *,
               id_field: str = "doc_id", vector_field: str = "vector",
               batch: int = 1000) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        for start in range(0, len(vectors), batch):
            rows = [{"pk": start + i, id_field: str(d), vector_field: v}
                    for i, (d, v) in enumerate(zip(doc_ids[start:start + batch],
                                                   vectors[start:start + batch]))]
            self._call("engine.do.insert", "engine.check.disk_uri",
                       self._client.insert, collection, rows)
        if hasattr(self._client, "flush"):
            self._call("engine.do.flush", "engine.check.disk", self._client.flush, collection)
        # Reload so that searches go through the index just built: a collection loaded before
        # its segments were indexed answers from a brute-force scan (recall 1.0, whatever the
        # index settings), measured on Milvus Lite 3.2.
        self._call("engine.do.load", "engine.check.collection",
                   self._client.release_collection, collection)
        self._call("engine.do.load", "engine.check.collection",
                   self._client.load_collection, collection)

    def memory_bytes(self, collection: str) -> int | None:
        return None  # MilvusClient reports no per-index memory figure

    def drop(self, collection: str) -> None:
        if self._call("engine.do.list", "engine.check.uri", self._client.has_collection,
                      collection):
            self._call("engine.do.drop", "engine.check.uri",
                       self._client.drop_collection, collection)


def _id_of(hit: dict, id_field: str) -> str | None:
    """The hit's ``id_field`` as a string; None when the hit has no such field."""
    entity = hit.get("entity") or {}
    value = entity.get(id_field, hit.get(id_field))
    return None if value is None else str(value)
