"""The embeddings cache: one SQLite file, ``$RAGDASH_HOME/embeddings.sqlite``.

A vector is stored under (base URL, model, dimensions, prefix, sha256 of the text): the
normalized base URL (see :mod:`ragdash.services.urls`; ``"local"`` for local models), the
model name as sent, the ``dimensions`` asked for (0 when not set), and the query or document
prefix that was put before the text. Vectors are L2-normalized float32, little-endian.

Every finished batch is committed at once, so a run that is killed or cancelled loses at most
the batches in flight, and the next run pays only for what is missing. The file is in WAL mode
with a busy timeout, so two processes (two command lines, or the app and a command line) can
read and write it at the same time. The API key is not part of any of this: not a column, not
a key, not the file name.

Every write and delete also counts up a generation in the small ``embeddings_meta`` table, in
the same transaction: :meth:`EmbeddingCache.marker` reads it, so what is computed from the
cached rows (the app's count of texts a sweep would pay for) can be memoized and recomputed
when another process writes or clears the cache.

A run's document vectors are also written once to a memory-mapped ``.npy`` under
``$RAGDASH_HOME/vectors/`` (:class:`VectorFile`), so that ranking a million documents reads
them from the page cache instead of building an in-RAM matrix out of SQLite rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import params
from ..errors import CacheError
from ..home import ragdash_home
from ..i18n import error, text
from .norms import inverse_norms

FILENAME = "embeddings.sqlite"
#: seconds a writer waits for another process's transaction before giving up
BUSY_TIMEOUT = 60.0
#: SQLite's default limit on host parameters is 999 in old builds; stay under it
_CHUNK = 900

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    base_url    TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    dimensions  INTEGER NOT NULL,   -- as asked for; 0 when not set
    prefix      TEXT    NOT NULL,   -- the query or document prefix put before the text
    text_sha256 BLOB    NOT NULL,
    dim         INTEGER NOT NULL,   -- length of the stored vector
    vector      BLOB    NOT NULL    -- float32 little-endian, L2-normalized
);
-- A rowid table with a separate key index: vectors are kilobytes, and a WITHOUT ROWID table
-- keyed on them writes about twice as slowly.
CREATE UNIQUE INDEX IF NOT EXISTS embeddings_key
    ON embeddings (base_url, model, dimensions, prefix, text_sha256);
-- The change marker (EmbeddingCache.marker): 'epoch', drawn at random by the first write to
-- the file, and 'generation', counted up by every write or delete in the transaction that
-- changes the rows.
CREATE TABLE IF NOT EXISTS embeddings_meta (
    key   TEXT PRIMARY KEY,
    value NOT NULL
);
"""


def _initialize(conn: sqlite3.Connection, schema: str = _SCHEMA) -> None:
    """WAL mode and the tables (``schema``: each :class:`CacheFile` passes its own). Switching the
    journal mode does not wait on SQLite's busy handler, so when another process is creating
    the file at the same moment, try again."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(schema)
            return
        except sqlite3.OperationalError as exc:
            transient = "locked" in str(exc) or "busy" in str(exc)
            if not transient or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


_LABEL_IDS = {"embeddings cache": "cache.label.embeddings_cache",
              "rerank cache": "cache.label.rerank_cache",
              "judge cache": "cache.label.judge_cache",
              "own search answers": "cache.label.own_answers"}


def _label(label: str) -> str:
    """A cache's name ("embeddings cache", "rerank cache") as a phrase with an id."""
    return text(_LABEL_IDS[label]) if label in _LABEL_IDS else label


@dataclass(frozen=True)
class Namespace:
    """Everything but the text that decides a vector."""
    base_url: str
    model: str
    dimensions: int | None
    prefix: str = ""

    def params(self) -> tuple[str, str, int, str]:
        return (self.base_url, self.model, int(self.dimensions or 0), self.prefix)


def text_hash(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def text_hashes(texts: Iterable[str]) -> list[bytes]:
    """:func:`text_hash` of each text (one comprehension, no call per text)."""
    sha256 = hashlib.sha256
    return [sha256(t.encode("utf-8", "surrogatepass")).digest() for t in texts]


class CacheFile:
    """One SQLite cache file under ``RAGDASH_HOME``: opening (WAL, busy timeout, the schema),
    one connection per object shared by its threads under a lock (closing SQLite's last
    connection checkpoints the WAL, too slow to do per batch), errors as one
    :class:`~ragdash.errors.CacheError` sentence, and the ``python -m ragdash cache``
    management that does not depend on the rows (exists, models, clear). Other processes open
    their own connection; WAL mode lets them all read and write the file.

    A subclass names its ``FILENAME``, ``SCHEMA``, ``TABLE`` (with a ``model`` column) and
    ``LABEL`` (for messages).
    """

    FILENAME = ""
    SCHEMA = ""
    TABLE = ""
    LABEL = ""

    def __init__(self, directory: str | os.PathLike | None = None) -> None:
        self.directory = Path(directory).expanduser() if directory else ragdash_home()
        self.path = self.directory / self.FILENAME
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._writable = False
        #: opened read-only (an existing cache in a folder that cannot be written)
        self.read_only = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                self._conn = self._open()
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    def _open(self) -> sqlite3.Connection:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                   check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            return self._open_read_only(exc)
        try:
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")
            _initialize(conn, self.SCHEMA)
            conn.execute("PRAGMA synchronous=NORMAL")  # with WAL: survives a killed process
        except sqlite3.Error as exc:
            conn.close()
            return self._open_read_only(exc)
        return conn

    def _open_read_only(self, exc: BaseException) -> sqlite3.Connection:
        """An existing cache in a folder ragdash cannot write (a read-only mount): opened
        read-only, so ``python -m ragdash cache info`` can still read it. A run still refuses
        before paying (:meth:`check_writable`); anything else raises ``exc``'s sentence."""
        if not self.path.is_file():
            raise self._error(exc) from exc
        for mode in ("ro", "ro&immutable=1"):  # immutable: no -shm file can be made there
            try:
                conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode={mode}", uri=True,
                                       timeout=BUSY_TIMEOUT, isolation_level=None,
                                       check_same_thread=False)
                conn.execute(f"SELECT count(*) FROM {self.TABLE}").fetchone()
            except sqlite3.Error:
                continue
            self.read_only = True
            return conn
        raise self._error(exc) from exc

    def check_writable(self) -> None:
        """Raise a CacheError unless new rows can be written: called before the first paid
        request, so an unwritable ``RAGDASH_HOME`` costs nothing (no reply is paid for and then
        thrown away because it cannot be kept). A read-only home is refused even when it
        holds a cache; copying the file into a writable ``RAGDASH_HOME`` reuses it. Checked
        once per object (a write transaction is opened and rolled back)."""
        if self._writable:
            return
        try:
            with self._connect() as conn:
                if self.read_only:
                    raise error(CacheError, "cache.read_only")
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("ROLLBACK")
        except CacheError as exc:
            raise self._unwritable(exc) from exc
        self._writable = True

    def _unwritable(self, exc: BaseException) -> CacheError:
        cause = exc.__cause__ or exc
        detail = getattr(cause, "strerror", None) or str(cause)
        if getattr(cause, "msg_id", None):  # ours ("the folder is read-only"): say it too
            detail = cause
        return error(CacheError, "cache.unwritable", label=_label(self.LABEL), path=self.path,
                     detail=detail, name=self.path.name)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _error(self, exc: BaseException) -> CacheError:
        return error(CacheError, "cache.unusable", label=_label(self.LABEL), path=self.path,
                     exc=exc)

    # -- management (``python -m ragdash cache``) ----------------------------------------
    def exists(self) -> bool:
        return self.path.exists()

    def disk_bytes(self) -> int:
        """Bytes on disk, the WAL and shared-memory files included."""
        return sum(p.stat().st_size for p in
                   (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"))
                   if p.exists())

    def grouped_info(self, query: str, entry) -> dict:
        """What ``python -m ragdash cache info`` says of the file: path, bytes on disk (with
        the WAL), rows in all, and one ``entry(row)`` dict (with its ``"rows"``) per group
        that ``query`` (a GROUP BY over the table) returns."""
        out = {"path": str(self.path), "exists": self.exists(), "bytes": 0, "rows": 0,
               "models": []}
        if not out["exists"]:
            return out
        out["bytes"] = self.disk_bytes()
        with self._connect() as conn:
            out["models"] = [entry(row) for row in conn.execute(query).fetchall()]
        out["rows"] = sum(m["rows"] for m in out["models"])
        return out

    def models(self) -> list[str]:
        if not self.exists():
            return []
        with self._connect() as conn:
            return [m for (m,) in conn.execute(
                f"SELECT DISTINCT model FROM {self.TABLE} ORDER BY model")]

    def clear(self, model: str | None = None) -> int:
        """Delete every row, or those of one model; returns how many were deleted."""
        if not self.exists():
            return 0
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                if model is None:
                    removed = conn.execute(f"DELETE FROM {self.TABLE}").rowcount
                else:
                    removed = conn.execute(f"DELETE FROM {self.TABLE} WHERE model=?",
                                           (model,)).rowcount
                if removed:
                    self._changed(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if model is None:
                conn.execute("VACUUM")
        return removed

    def _changed(self, conn: sqlite3.Connection) -> None:
        """Called inside the transaction that wrote or deleted rows (a subclass with a change
        marker updates it here)."""


class EmbeddingCache(CacheFile):
    """Read and write cached vectors (see :class:`CacheFile` for the file and connection)."""

    FILENAME = FILENAME
    SCHEMA = _SCHEMA
    TABLE = "embeddings"
    LABEL = "embeddings cache"

    # -- vectors -------------------------------------------------------------------------
    def get_many(self, ns: Namespace, hashes: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vectors among ``hashes`` (sha256 digests of texts)."""
        found: dict[bytes, np.ndarray] = {}
        if not hashes:
            return found
        if self._conn is None and not self.path.exists():
            return found  # nothing cached yet: the file is made by the first put_many
        unique = list(dict.fromkeys(hashes))
        with self._connect() as conn:
            for lo in range(0, len(unique), _CHUNK):
                chunk = unique[lo: lo + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    "SELECT text_sha256, dim, vector FROM embeddings WHERE base_url=? AND "
                    f"model=? AND dimensions=? AND prefix=? AND text_sha256 IN ({marks})",
                    (*ns.params(), *chunk))
                for h, dim, blob in rows:
                    vec = np.frombuffer(blob, dtype="<f4")
                    if len(vec) == dim:  # a damaged row is simply missing
                        found[bytes(h)] = vec.astype(np.float32)
        return found

    def has_any(self, ns: Namespace) -> bool:
        """Whether anything is cached under ``ns`` (one index probe; no file is made)."""
        if self._conn is None and not self.path.exists():
            return False
        with self._connect() as conn:
            return conn.execute(
                "SELECT 1 FROM embeddings WHERE base_url=? AND model=? AND dimensions=? AND "
                "prefix=? LIMIT 1", ns.params()).fetchone() is not None

    def count_cached(self, ns: Namespace, hashes: Sequence[bytes]) -> int:
        """How many distinct ``hashes`` have a vector under ``ns``: read from the key index
        alone (no vector is read), no file is made."""
        if self._conn is None and not self.path.exists():
            return 0
        unique = list(dict.fromkeys(hashes))
        found = 0
        with self._connect() as conn:
            for lo in range(0, len(unique), _CHUNK):
                chunk = unique[lo: lo + _CHUNK]
                found += conn.execute(
                    "SELECT count(*) FROM embeddings WHERE base_url=? AND model=? AND "
                    f"dimensions=? AND prefix=? AND text_sha256 IN ({','.join('?' * len(chunk))})",
                    (*ns.params(), *chunk)).fetchone()[0]
        return found

    def marker(self) -> tuple[str, int] | None:
        """A value that changes whenever rows are written or deleted, by this process or any
        other (a run, ``python -m ragdash cache clear`` while the app runs): ``(epoch,
        generation)`` from the ``embeddings_meta`` table, which :meth:`put_many` and
        :meth:`clear` update in the transaction that changes the rows; None when there is no
        file (none is made). One indexed read: memoize what depends on the cached rows under
        it, read *before* computing the value (a write in between then only causes a second
        computation, never a stale value under the new marker).

        ``epoch`` is drawn at random by the first write to a file, so a deleted and remade
        cache does not repeat an old marker; a file that no version with a marker has written
        to reads ``("", 0)``. Not the file's mtime and size (in WAL mode a commit goes to the
        ``-wal`` file, which is rewritten from its start after a checkpoint, so a change can
        leave both as they were), nor the row count (deleting one model's rows and writing as
        many of another's leaves it unchanged), nor ``PRAGMA data_version`` (per connection,
        blind to that connection's own commits)."""
        if self._conn is None and not self.path.exists():
            return None
        with self._connect() as conn:
            try:
                rows = dict(conn.execute("SELECT key, value FROM embeddings_meta WHERE key IN "
                                         "('epoch', 'generation')"))
            except sqlite3.OperationalError:  # an older file opened read-only: no table
                rows = {}
        return str(rows.get("epoch", "")), int(rows.get("generation", 0))

    def _changed(self, conn: sqlite3.Connection) -> None:
        conn.execute("INSERT OR IGNORE INTO embeddings_meta (key, value) "
                     "VALUES ('epoch', lower(hex(randomblob(16))))")
        conn.execute("INSERT INTO embeddings_meta (key, value) VALUES ('generation', 1) "
                     "ON CONFLICT (key) DO UPDATE SET value = value + 1")

    def put_many(self, ns: Namespace, hashes: Sequence[bytes], vectors: np.ndarray) -> None:
        """Store one batch, in one transaction (committed before this returns)."""
        vectors = np.asarray(vectors, dtype="<f4")
        if len(hashes) != len(vectors):
            raise ValueError("one hash per vector")
        if not len(hashes):
            return
        dim = int(vectors.shape[1])
        params = ns.params()
        rows = [(*params, h, dim, v.tobytes()) for h, v in zip(hashes, vectors)]
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings (base_url, model, dimensions, prefix, "
                    "text_sha256, dim, vector) VALUES (?,?,?,?,?,?,?)", rows)
                self._changed(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- management (``python -m ragdash cache``) ----------------------------------------
    def info(self) -> dict:
        """Path, bytes on disk (with the WAL file), rows in all, and rows per model."""
        return self.grouped_info(
            "SELECT base_url, model, dimensions, dim, prefix, COUNT(*), SUM(LENGTH(vector)) "
            "FROM embeddings GROUP BY base_url, model, dimensions, dim, prefix "
            "ORDER BY model, base_url, dimensions, prefix",
            lambda r: {"model": r[1], "base_url": r[0], "dimensions": r[2] or None,
                       "dim": r[3], "prefix": r[4], "rows": r[5], "vector_bytes": r[6]})


# -- vector files: a run's document vectors, memory-mapped ---------------------------------
#: the folder under RAGDASH_HOME that holds them
VECTORS_DIR = "vectors"
#: dtypes a vector file may hold (float16 on request: half the disk and page cache)
VECTOR_DTYPES = params.VECTOR_DTYPES


class VectorFile:
    """A dataset's document vectors for one embedding configuration, written once to
    ``$RAGDASH_HOME/vectors/<key>.npy`` (a plain ``.npy``, opened memory-mapped) beside
    ``<key>.json`` (what the key is made of, for ``cache info`` and ``cache clear``).

    The key is a sha256 of the embedding namespace (base URL, model, dimensions, document
    prefix), the dataset's fingerprint and the dtype: a change of either gives another file,
    built anew from the SQLite cache (only missing vectors are embedded). Rows are in the
    dataset's document order. A file is written to a temporary name and renamed when
    complete, so a killed run never leaves a half file under the real name; one whose shape
    or header does not match is rebuilt.
    """

    def __init__(self, directory: str | os.PathLike | None, ns: Namespace, fingerprint: str,
                 dtype: str = "float32") -> None:
        if dtype not in VECTOR_DTYPES:
            raise CacheError(f"vector files hold {' or '.join(VECTOR_DTYPES)}, not {dtype!r}")
        self.directory = (Path(directory).expanduser() if directory else ragdash_home()) \
            / VECTORS_DIR
        self.meta = {"base_url": ns.base_url, "model": ns.model,
                     "dimensions": int(ns.dimensions or 0), "prefix": ns.prefix,
                     "dataset": fingerprint, "dtype": dtype}
        self.key = hashlib.sha256(json.dumps(self.meta, sort_keys=True).encode()).hexdigest()[:32]
        self.path = self.directory / f"{self.key}.npy"
        self.meta_path = self.directory / f"{self.key}.json"
        #: 1/|row| of every row (float64), written with the vectors, so that a search never
        #: reads the whole matrix just to normalize it
        self.norms_path = self.directory / f"{self.key}.norms.npy"
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"VectorFile({str(self.path)!r})"

    def open(self, rows: int) -> np.ndarray | None:
        """The vectors, memory-mapped read-only (``np.load(..., mmap_mode="r")``), or None
        when there is no complete file of ``rows`` rows in this dtype."""
        if not (self.path.exists() and self.meta_path.exists()):
            return None
        try:
            vecs = np.load(self.path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError):
            return None  # damaged: rebuilt by the caller
        if vecs.ndim != 2 or vecs.shape[0] != rows or vecs.dtype != np.dtype(self.dtype):
            return None
        return vecs

    def inverse_norms(self, rows: int) -> np.ndarray | None:
        """1/|row| of every row as written with the vectors, or None when there is no such
        file of ``rows`` entries (a vector file written before norms were stored: see
        :meth:`save_inverse_norms`)."""
        try:
            inv = np.load(self.norms_path, allow_pickle=False)
        except (OSError, ValueError):
            return None
        if inv.shape != (rows,) or inv.dtype != np.float64 or not np.isfinite(inv).all():
            return None
        return inv

    def save_inverse_norms(self, inv: np.ndarray) -> None:
        """Store the norms of an existing vector file (computed once by a search), so later
        searches read them; best effort (a read-only folder just means computing again)."""
        tmp = self.norms_path.with_name(f".{self.key}.norms.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                np.save(f, np.ascontiguousarray(inv, dtype=np.float64))
            os.replace(tmp, self.norms_path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()

    def writer(self, rows: int, dim: int) -> VectorFileWriter:
        return VectorFileWriter(self, rows, dim)

    def remove(self) -> bool:
        found = False
        for p in (self.path, self.meta_path, self.norms_path):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
                found = True
        return found


class VectorFileWriter:
    """Rows appended in order to a temporary ``.npy`` (written with plain file writes, so the
    process holds only the chunk at hand), renamed into place by :meth:`commit`."""

    def __init__(self, vf: VectorFile, rows: int, dim: int) -> None:
        self.vf, self.rows, self.dim = vf, int(rows), int(dim)
        self.written = 0
        self.norms: list[np.ndarray] = []
        try:
            vf.directory.mkdir(parents=True, exist_ok=True)
            self.tmp = vf.directory / f".{vf.key}.{os.getpid()}.{threading.get_ident()}.tmp"
            self._f = open(self.tmp, "wb")  # noqa: SIM115 - closed by commit/abort
            np.lib.format.write_array_header_1_0(
                self._f, {"descr": np.dtype(vf.dtype).str, "fortran_order": False,
                          "shape": (self.rows, self.dim)})
        except OSError as exc:
            raise self._error(exc) from exc

    def _error(self, exc: OSError) -> CacheError:
        return error(CacheError, "cache.vector_file_unwritable", path=self.vf.path,
                     reason=exc.strerror or exc)

    def append(self, vectors: np.ndarray) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.dtype(self.vf.dtype).newbyteorder("<"))
        if vectors.ndim != 2 or vectors.shape[1] != self.dim:
            raise CacheError(f"vectors of {vectors.shape[-1]} dimensions for a vector file of "
                             f"{self.dim}")
        try:
            self._f.write(vectors.tobytes())
        except OSError as exc:
            self.abort()
            raise self._error(exc) from exc
        self.norms.append(inverse_norms(vectors))
        self.written += len(vectors)

    def commit(self) -> None:
        if self.written != self.rows:
            self.abort()
            raise CacheError(f"the vector file got {self.written} of {self.rows} rows")
        try:
            self._f.close()
            self.vf.meta_path.write_text(json.dumps({**self.vf.meta, "rows": self.rows,
                                                     "dim": self.dim}, sort_keys=True))
            inv = np.concatenate(self.norms) if self.norms else np.empty(0)
            if np.isfinite(inv).all():  # else the search refuses the file's bad row itself
                self.vf.save_inverse_norms(inv)
            os.replace(self.tmp, self.vf.path)
        except OSError as exc:
            self.abort()
            raise self._error(exc) from exc

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._f.close()
        with contextlib.suppress(OSError):
            self.tmp.unlink()


def vector_files(directory: str | os.PathLike | None = None) -> list[dict]:
    """Every vector file under ``directory`` (default ``RAGDASH_HOME``): its key's parts,
    rows, dimension, bytes on disk and path."""
    folder = (Path(directory).expanduser() if directory else ragdash_home()) / VECTORS_DIR
    out = []
    for meta_path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        npy = meta_path.with_suffix(".npy")
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            meta = {}
        norms = npy.with_suffix(".norms.npy")
        out.append({**meta, "path": str(npy),
                    "bytes": sum(p.stat().st_size for p in (npy, norms) if p.exists())})
    return out


def clear_vector_files(directory: str | os.PathLike | None = None,
                       model: str | None = None) -> tuple[int, int]:
    """Delete every vector file (or those of one model) and any temporary left by a killed
    run; returns (files deleted, bytes freed)."""
    folder = (Path(directory).expanduser() if directory else ragdash_home()) / VECTORS_DIR
    if not folder.is_dir():
        return 0, 0
    files = freed = 0
    for info in vector_files(directory):
        if model is not None and info.get("model") != model:
            continue
        npy = Path(info["path"])
        freed += info["bytes"]
        for p in (npy, npy.with_suffix(".json"), npy.with_suffix(".norms.npy")):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        files += 1
    if model is None:
        for tmp in folder.glob(".*.tmp"):
            with contextlib.suppress(OSError):
                freed += tmp.stat().st_size
                tmp.unlink()
    return files, freed
