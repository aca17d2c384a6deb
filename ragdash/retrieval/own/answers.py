"""Answers of a user's own search, kept as they arrive so that a restart asks only for the
queries not answered yet: one SQLite file, ``$RAGDASH_HOME/own_search.sqlite``.

An answer is stored under (the search's identity, K, sha256 of the query text): the identity
is a hash of the search's configuration (its entry, id field, URL, request template, ...;
never a key or a header's value) and of its code's source file when known
(:func:`ragdash.retrieval.own.adapters.identity_of`). A run that completes removes its answers
(:meth:`AnswerStore.forget`): they only carry a cancelled, killed or refused run over to its
restart, and a later run asks again (the code behind the search may have changed since).

Opening, WAL mode, the busy timeout, errors and ``cache``-style management are the shared
:class:`ragdash.embeddings.cache.CacheFile`'s.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ...embeddings.cache import CacheFile, text_hash, text_hashes
from .hits import Hit

__all__ = ["FILENAME", "AnswerStore"]

FILENAME = "own_search.sqlite"
_CHUNK = 900

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    model       TEXT    NOT NULL,   -- the search's identity (a hash; no key)
    k           INTEGER NOT NULL,
    query_sha256 BLOB   NOT NULL,
    hits        TEXT    NOT NULL,   -- JSON: [[id, score, text], ...]
    ms          REAL    NOT NULL,   -- the query's latency
    PRIMARY KEY (model, k, query_sha256)
) WITHOUT ROWID;
"""


class AnswerStore(CacheFile):
    """Read and write kept answers (see :class:`CacheFile` for the file and connection)."""

    FILENAME = FILENAME
    SCHEMA = _SCHEMA
    TABLE = "answers"
    LABEL = "own search answers"

    def get_many(self, identity: str, k: int, texts: Sequence[str]
                 ) -> dict[str, tuple[list[Hit], float]]:
        """The kept answers of ``texts``: query text -> (hits, latency in ms)."""
        if not texts or not self.exists():
            return {}
        by_hash = dict(zip(text_hashes(texts), texts))
        hashes = list(by_hash)
        out: dict[str, tuple[list[Hit], float]] = {}
        with self._connect() as conn:
            for lo in range(0, len(hashes), _CHUNK):
                part = hashes[lo:lo + _CHUNK]
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    f"SELECT query_sha256, hits, ms FROM answers WHERE model=? AND k=? "
                    f"AND query_sha256 IN ({marks})", (identity, int(k), *part)).fetchall()
                for h, hits, ms in rows:
                    out[by_hash[bytes(h)]] = ([Hit(*row) for row in json.loads(hits)],
                                             float(ms))
        return out

    def put(self, identity: str, k: int, query: str, hits: Sequence[Hit], ms: float) -> None:
        blob = json.dumps([[h.id, h.score, h.text] for h in hits], ensure_ascii=False)
        with self._connect() as conn:
            conn.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)",
                         (identity, int(k), text_hash(query), blob, float(ms)))

    def count(self, identity: str, k: int) -> int:
        if not self.exists():
            return 0
        with self._connect() as conn:
            return conn.execute("SELECT count(*) FROM answers WHERE model=? AND k=?",
                                (identity, int(k))).fetchone()[0]

    def forget(self, identity: str, k: int) -> int:
        """Remove the answers of one search at one K (its run is complete)."""
        if not self.exists():
            return 0
        with self._connect() as conn:
            try:
                return conn.execute("DELETE FROM answers WHERE model=? AND k=?",
                                    (identity, int(k))).rowcount
            except sqlite3.Error:
                raise

    def info(self) -> dict:
        return self.grouped_info("SELECT model, count(*) FROM answers GROUP BY model",
                                 lambda row: {"model": row[0], "rows": row[1]})
