"""The one small interface every vector engine sits behind.

An engine holds vectors in named collections; ragdash asks it for the top K of a batch of
query vectors and maps what comes back (a payload field holding the dataset's document id) to
the dataset. Two engines implement it: Milvus (:mod:`.milvus`, Milvus Lite in a local file by
default, a standalone or cluster server by URI) and Qdrant (:mod:`.qdrant`, local mode by path
or ``:memory:``, a server or cluster by URL). More can follow by implementing
:class:`VectorEngine`.

Scores are similarities, higher is better (inner product on L2-normalized vectors, i.e.
cosine). Every failure of the engine becomes an :class:`ragdash.errors.EngineError` with one
sentence that says what to check; a credential never appears in it.
"""

from __future__ import annotations

import abc
import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from ... import params
from ...errors import EngineError
from ...i18n import error, text

__all__ = ["ENGINES", "INDEX_KINDS", "CollectionInfo", "IndexSpec", "SearchResult",
           "VectorEngine", "mask"]

#: engines ``open_engine`` knows, in the order help texts list them
ENGINES = params.ENGINE_KINDS
#: index kinds a candidate can be built with ("default": whatever the engine chooses)
INDEX_KINDS = ("hnsw", "ivf", "flat", "default")


@dataclass(frozen=True)
class IndexSpec:
    """How to index a collection. HNSW: ``m`` links per node, ``ef_construction`` at build
    time, ``ef`` at search time. IVF: ``nlist`` clusters, ``nprobe`` searched. ``flat``:
    exact. ``default``: the engine's choice."""

    kind: str = "hnsw"
    m: int = 16
    ef_construction: int = 200
    ef: int = 64
    nlist: int = 128
    nprobe: int = 8

    def __post_init__(self) -> None:
        if self.kind not in INDEX_KINDS:
            raise error(EngineError, "engine.unknown_index", index=repr(self.kind),
                        kinds=", ".join(INDEX_KINDS))
        for name in ("m", "ef_construction", "ef", "nlist", "nprobe"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise error(EngineError, "engine.bad_setting", name=name, value=repr(value))

    def config(self) -> dict:
        """The settings that matter for this kind (JSON-safe)."""
        keep = {"hnsw": ("m", "ef_construction", "ef"), "ivf": ("nlist", "nprobe"),
                "flat": (), "default": ()}[self.kind]
        full = asdict(self)
        return {"kind": self.kind, **{k: full[k] for k in keep}}


@dataclass
class CollectionInfo:
    """What ragdash needs to know of a collection before it searches it."""

    name: str
    dimension: int
    vector_field: str
    fields: list[str] = field(default_factory=list)
    count: int | None = None
    metric: str | None = None
    #: fields beyond ``fields`` may exist (Milvus's dynamic field; Qdrant's payload has no
    #: schema): a field not listed is not an error before searching
    open_schema: bool = False


@dataclass
class SearchResult:
    """The engine's answer for a batch of queries: per query, the id-field values (as
    strings; None for a hit without the field) and scores, best first."""

    ids: list[list[str | None]]
    scores: list[list[float]]
    seconds: list[float] = field(default_factory=list)  # one per request (latency)


def search_in_batches(vectors: np.ndarray, batch: int,
                      search_block: Callable[[np.ndarray], Iterable[tuple[list, list]]],
                      ) -> SearchResult:
    """Send ``vectors`` ``batch`` at a time through ``search_block`` (one request: a block of
    query vectors -> per query, its hits' ids and scores, best first), timing each request."""
    ids: list[list[str | None]] = []
    scores: list[list[float]] = []
    seconds: list[float] = []
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    for start in range(0, len(vectors), batch):
        block = vectors[start:start + batch]
        t0 = time.perf_counter()
        rows = list(search_block(block))
        seconds.append(time.perf_counter() - t0)
        for row_ids, row_scores in rows:
            ids.append(row_ids)
            scores.append(row_scores)
    return SearchResult(ids=ids, scores=scores, seconds=seconds)


def _is_timeout(exc: BaseException) -> bool:
    """Whether a client library's exception (or one it wraps) is a timeout."""
    seen = 0
    while exc is not None and seen < 5:
        text = f"{type(exc).__name__} {exc}".lower()
        if isinstance(exc, TimeoutError) or "timeout" in text or "timed out" in text \
                or "deadline_exceeded" in text or "deadline exceeded" in text:
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def mask(text: str, secrets: Sequence[str | None]) -> str:
    """``text`` with every secret replaced by ``***``."""
    for s in secrets:
        if s:
            text = text.replace(s, "***")
    return text


class VectorEngine(abc.ABC):
    """A connection to one engine (one URI/URL)."""

    kind: str = "engine"

    def __init__(self, uri: str, *, token: str | None = None, timeout: float = 30.0) -> None:
        self.uri = str(uri)
        self._token = token or None
        self.timeout = float(timeout)

    def where(self) -> str:
        """The URI for messages (never the token)."""
        return mask(self.uri, [self._token])

    def config(self) -> dict:
        """What identifies the engine in a run's config (never the token)."""
        return {"engine": self.kind, "uri": self.where()}

    def _fail(self, what: str, exc: BaseException, hint: str) -> EngineError:
        reason = mask(str(exc).strip().splitlines()[0] if str(exc).strip() else
                      type(exc).__name__, [self._token])
        if len(reason) > 300:
            reason = reason[:300] + "…"
        common = {"engine": self.kind, "where": self.where(), "what": text(what),
                  "reason": reason}
        if _is_timeout(exc):
            return error(EngineError, "engine.timeout", timeout=f"{self.timeout:g}", **common)
        return error(EngineError, "engine.failed", hint=text(hint), **common)

    def _call(self, what: str, hint: str, fn, *args, **kwargs):
        """``fn(*args, **kwargs)``, any failure of the client library becoming one
        :class:`EngineError` sentence (``what`` failed ...; ``hint``): message ids of what was
        being done (``engine.do.*``) and what to check (``engine.check.*``)."""
        try:
            return fn(*args, **kwargs)
        except EngineError:
            raise
        except Exception as exc:  # each client library raises its own tree and OSErrors
            raise self._fail(what, exc, hint) from None

    @abc.abstractmethod
    def describe(self, collection: str, vector_field: str | None = None) -> CollectionInfo:
        """The collection's dimension, vector field and fields; EngineError if missing."""

    @abc.abstractmethod
    def search(self, collection: str, vectors: np.ndarray, k: int, *, vector_field: str,
               id_field: str, filter: str | None = None, index: IndexSpec | None = None,
               batch: int = 64) -> SearchResult:
        """Top ``k`` for each row of ``vectors`` (float32, L2-normalized)."""

    @abc.abstractmethod
    def create(self, collection: str, dimension: int, index: IndexSpec, *,
               id_field: str = "doc_id", vector_field: str = "vector") -> None:
        """A new, empty collection (an existing one of that name is replaced)."""

    @abc.abstractmethod
    def insert(self, collection: str, doc_ids: Sequence[str], vectors: np.ndarray, *,
               id_field: str = "doc_id", vector_field: str = "vector",
               batch: int = 1000) -> None:
        """Add vectors with their document ids; returns when they are searchable."""

    @abc.abstractmethod
    def memory_bytes(self, collection: str) -> int | None:
        """The index's memory as the engine reports it (None when it reports none)."""

    @abc.abstractmethod
    def drop(self, collection: str) -> None:
        """Delete the collection if it exists."""

    def close(self) -> None:
        """Release the engine client's connection (best effort: an engine already gone is
        not an error when closing)."""
        client = getattr(self, "_client", None)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
