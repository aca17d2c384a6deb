"""The rerank score cache: one SQLite file, ``$RAGDASH_HOME/rerank.sqlite``.

A score is stored under (base URL, model, sha256 of the query, sha256 of the document): the
normalized endpoint base (see :mod:`.protocols`; ``"local"`` for a local cross-encoder), the
model name as sent, and the digests of the query text and of the document text as the
reranker saw it. A cross-encoder scores each (query, document) pair on its own, so a rerun
pays for nothing, and a deeper or shallower depth pays only for pairs not yet scored.

Every reply is committed as soon as it arrives, so a run that is killed or cancelled loses at
most the requests in flight. WAL mode and a busy timeout let two processes share the file, as
the embeddings cache does (:mod:`ragdash.embeddings.cache`). The API key is never part of it:
not a column, not a key, not the file name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...embeddings.cache import CacheFile, text_hash, text_hashes

FILENAME = "rerank.sqlite"
_CHUNK = 900  # host parameters per statement, under old SQLite's 999

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    base_url     TEXT NOT NULL,
    model        TEXT NOT NULL,
    query_sha256 BLOB NOT NULL,
    doc_sha256   BLOB NOT NULL,
    score        REAL NOT NULL,
    PRIMARY KEY (base_url, model, query_sha256, doc_sha256)
) WITHOUT ROWID;
"""

__all__ = ["FILENAME", "RerankCache", "text_hash", "text_hashes"]


class RerankCache(CacheFile):
    """Read and write cached (query, document) scores (the file and its connection:
    :class:`ragdash.embeddings.cache.CacheFile`, shared with the embeddings cache)."""

    FILENAME = FILENAME
    SCHEMA = _SCHEMA
    TABLE = "scores"
    LABEL = "rerank cache"

    # -- scores --------------------------------------------------------------------------
    def get_many(self, base_url: str, model: str, query_hash: bytes,
                 doc_hashes: Sequence[bytes]) -> dict[bytes, float]:
        """The cached scores of ``query_hash`` against any of ``doc_hashes``."""
        found: dict[bytes, float] = {}
        if not doc_hashes or (self._conn is None and not self.path.exists()):
            return found
        unique = list(dict.fromkeys(doc_hashes))
        with self._connect() as conn:
            for lo in range(0, len(unique), _CHUNK):
                chunk = unique[lo: lo + _CHUNK]
                rows = conn.execute(
                    "SELECT doc_sha256, score FROM scores WHERE base_url=? AND model=? AND "
                    f"query_sha256=? AND doc_sha256 IN ({','.join('?' * len(chunk))})",
                    (base_url, model, query_hash, *chunk))
                for h, score in rows:
                    if score is not None and np.isfinite(score):
                        found[bytes(h)] = float(score)
        return found

    def put_many(self, base_url: str, model: str, query_hash: bytes,
                 doc_hashes: Sequence[bytes], scores: Sequence[float]) -> None:
        """Store one reply's scores, in one transaction (committed before this returns)."""
        if len(doc_hashes) != len(scores):
            raise ValueError("one hash per score")
        if not len(doc_hashes):
            return
        rows = [(base_url, model, query_hash, h, float(s)) for h, s in zip(doc_hashes, scores)]
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("INSERT OR REPLACE INTO scores VALUES (?,?,?,?,?)", rows)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- management (``python -m ragdash cache``) ----------------------------------------
    def info(self) -> dict:
        """Path, bytes on disk (with the WAL file), scores in all, and per model."""
        return self.grouped_info(
            "SELECT base_url, model, COUNT(*), COUNT(DISTINCT query_sha256) FROM scores "
            "GROUP BY base_url, model ORDER BY model, base_url",
            lambda r: {"model": r[1], "base_url": r[0], "rows": r[2], "queries": r[3]})
