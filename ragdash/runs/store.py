"""The run store: finished evaluations in one SQLite file under ``RAGDASH_HOME``.

A saved run keeps what cannot be recomputed — its ranking, the retriever's configuration
(never an API key), the usage the API reported, how long it took — and the dataset it was made
on, so a ``?run=<id>`` link opened in a fresh session can show everything again. Metrics are
*not* stored: :meth:`RunStore.table` recomputes them from the ranking and the qrels. The one
exception is a handful of headline means kept beside each run so that :meth:`RunStore.list`
does not have to rescore every run to draw a list; they are a listing cache, never read back
as results.

Layout (``RAGDASH_HOME``, default ``./.ragdash``)::

    runs.sqlite        WAL mode
      runs             one row per run: metadata as columns, config/usage/cost as JSON,
                       the ranking as a compressed columnar blob
      datasets         one row per dataset fingerprint (deduplicated), compressed JSON
      judgments        one row per label of a judgment set of a dataset (fingerprint, set
                       name, query id, doc id, grade, source, date); kept when the dataset's
                       last run is deleted, so the labels are there when the data comes back

A run is saved once: saving a run identical to one already saved by the same owner (same
dataset fingerprint, configuration, queries, Kmax, judging and ranking, scores included —
its ``identity``, a sha256 kept in its own column) returns the saved run's id instead of a new
one, and marks the run ``reused``. Its name, time and usage do not count: running BM25 twice,
or clicking "Try it on the sample" twice, makes one saved run.

Run ids are 10 characters of base32 from :func:`secrets.token_bytes`: URL-safe, and not
guessable from one another.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import secrets as _secrets
import sqlite3
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dataset import Dataset, Document, Query
from ..errors import RunStoreError
from ..home import ragdash_home as default_home
from ..i18n import error, t
from ..judgments import JudgmentSet, Label, is_unsure_set
from ..params import clean_name
from ..ranking import Ranking
from ..run import Run
from ..secrets import scrub_secrets

if TYPE_CHECKING:
    from ..metrics import MetricTable

__all__ = [
    "DB_FILENAME",
    "HEADLINE_METRICS",
    "RunStore",
    "RunSummary",
    "dataset_from_json_obj",
    "dataset_to_json_obj",
    "default_home",
    "get_store",
    "new_run_id",
    "summary_of",
]

DB_FILENAME = "runs.sqlite"
SCHEMA_VERSION = 6
#: means shown in the run list (at K = 10, or Kmax when that is smaller)
HEADLINE_METRICS = ("ndcg", "recall", "mrr", "hit_rate")
#: saved runs kept in memory per store (each holds its ranking and, once asked, its table)
RUN_CACHE_SIZE = 8

_SCHEMA = """
CREATE TABLE IF NOT EXISTS datasets (
    fingerprint TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    sizes       TEXT NOT NULL,
    content     BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    source          TEXT NOT NULL,
    dataset_fp      TEXT NOT NULL REFERENCES datasets(fingerprint),
    dataset_name    TEXT NOT NULL,
    retriever       TEXT NOT NULL,
    model           TEXT,
    n_queries       INTEGER NOT NULL,
    kmax            INTEGER NOT NULL,
    relevance_level REAL,
    gain            TEXT NOT NULL,
    seconds         REAL,
    config          TEXT NOT NULL,
    usage           TEXT NOT NULL,
    cost            TEXT,
    timings         TEXT NOT NULL DEFAULT '{}',
    resources       TEXT NOT NULL DEFAULT '{}',
    parents         TEXT NOT NULL DEFAULT '[]',
    query_ids       BLOB NOT NULL,
    ranking         BLOB NOT NULL,
    headline        TEXT NOT NULL,
    owner           TEXT,
    identity        TEXT
);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at);
CREATE INDEX IF NOT EXISTS runs_dataset ON runs(dataset_fp);
CREATE INDEX IF NOT EXISTS runs_owner ON runs(owner);
CREATE INDEX IF NOT EXISTS runs_identity ON runs(identity);
CREATE TABLE IF NOT EXISTS judgments (
    dataset_fp  TEXT NOT NULL,
    set_name    TEXT NOT NULL,
    query_id    TEXT NOT NULL,
    doc_id      TEXT NOT NULL,
    grade       REAL NOT NULL,
    source      TEXT NOT NULL,
    date        TEXT NOT NULL,
    PRIMARY KEY (dataset_fp, set_name, query_id, doc_id)
);
CREATE TABLE IF NOT EXISTS dataset_owners (
    fingerprint TEXT NOT NULL,
    owner       TEXT NOT NULL,
    PRIMARY KEY (fingerprint, owner)
);
"""
#: ``dataset_owners.owner`` of a dataset saved for everyone (no sign-in: the command line,
#: an app without authentication); a signed-in user's name is never empty
SHARED = ""


def new_run_id() -> str:
    """10 lowercase base32 characters (50 random bits): URL-safe, unguessable enough."""
    return base64.b32encode(_secrets.token_bytes(8)).decode("ascii").lower()[:10]


_RUN_ID = re.compile(r"^[a-z2-7]{10}$")



# -- (de)serialisation ------------------------------------------------------------------------
def _pack(obj: Any) -> bytes:
    return zlib.compress(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
                         .encode("utf-8"), 6)


def _unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob).decode("utf-8"))


def _ranking_to_obj(ranking: Ranking) -> dict:
    """Columnar: ids as JSON lists, offsets and scores as little-endian base64 (exact)."""
    return {
        "name": ranking.name,
        "query_ids": list(ranking.query_ids),
        "offsets": base64.b64encode(ranking.offsets.astype("<i8").tobytes()).decode("ascii"),
        "doc_ids": [str(d) for d in ranking.doc_ids],
        "scores": base64.b64encode(ranking.scores.astype("<f8").tobytes()).decode("ascii"),
    }


def _ranking_from_obj(obj: Mapping) -> Ranking:
    offsets = np.frombuffer(base64.b64decode(obj["offsets"]), dtype="<i8").astype(np.int64)
    scores = np.frombuffer(base64.b64decode(obj["scores"]), dtype="<f8").astype(np.float64)
    docs = np.empty(len(obj["doc_ids"]), dtype=object)
    docs[:] = obj["doc_ids"]
    return Ranking(obj["query_ids"], offsets, docs, scores, name=obj.get("name", "run"),
                   canonical=True)


def dataset_to_json_obj(dataset: Dataset) -> dict:
    """A JSON-safe, lossless form of a :class:`Dataset` (file order kept)."""
    out = {
        "name": dataset.name,
        "source": dataset.source,
        "notes": list(dataset.notes),
        "documents": [[d.id, d.title, d.text] for d in dataset.documents],
        "queries": [[q.id, q.text] for q in dataset.queries],
        "qrels": {q: {d: float(g) for d, g in docs.items()} for q, docs in dataset.qrels.items()},
    }
    if dataset.synthetic:
        out["synthetic"] = dict(dataset.synthetic)
    return out


def dataset_from_json_obj(obj: Mapping) -> Dataset:
    return Dataset(
        documents=[Document(id=str(i), title=str(ti), text=str(tx)) for i, ti, tx in
                   obj["documents"]],
        queries=[Query(id=str(i), text=str(tx)) for i, tx in obj["queries"]],
        qrels={str(q): {str(d): float(g) for d, g in docs.items()}
               for q, docs in obj["qrels"].items()},
        name=str(obj.get("name", "dataset")),
        source=str(obj.get("source", "")),
        notes=[str(n) for n in obj.get("notes", [])],
        synthetic=dict(obj["synthetic"]) if isinstance(obj.get("synthetic"), dict) else None,
    )


def _now_iso() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _iso(value: Any) -> str:
    """Any time (None = now, epoch seconds, datetime, ISO text) as ``YYYY-MM-DDTHH:MM:SSZ``
    in UTC, so runs sort by time as text."""
    if value is None:
        return _now_iso()
    if isinstance(value, (int, float)):
        value = dt.datetime.fromtimestamp(value, dt.UTC)
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return value
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00",
                                                                                   "Z")
    return str(value)


# -- records -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunSummary:
    """One line of the run list (no ranking, no dataset content): what a list needs without
    loading the run."""

    id: str
    name: str
    created_at: str  # ISO 8601, UTC ("2025-01-31T12:00:00Z")
    source: str  # one of ragdash.run.SOURCES
    dataset_name: str
    dataset_fingerprint: str
    retriever: str
    model: str | None
    n_queries: int
    kmax: int
    #: headline means, e.g. {"ndcg@10": 0.61, "recall@10": 0.8, "mrr@10": ..., "hit_rate@10"}
    headline: dict[str, float]
    usage: dict
    cost: dict | None
    seconds: float | None
    parents: tuple[str, ...] = ()
    #: the signed-in user who saved it (the app with authentication); ``None``: saved where
    #: nobody signs in (the command line, an app without authentication) — shared
    owner: str | None = None


def summary_of(run: Run) -> RunSummary:
    """The run-list line of a (saved) run."""
    return RunSummary(
        id=run.id or "", name=run.name, created_at=run.created_at, source=run.source,
        dataset_name=run.dataset.name, dataset_fingerprint=run.dataset_fingerprint,
        retriever=run.retriever, model=run.model, n_queries=len(run.query_ids),
        kmax=run.kmax, headline=_headline(run.table()), usage=dict(run.usage),
        cost=run.cost, seconds=run.seconds, parents=tuple(run.parents),
        owner=getattr(run, "owner", None))


def _headline(table: MetricTable) -> dict[str, float]:
    k = min(10, table.kmax)
    return {f"{f}@{k}": table.mean(f"{f}@{k}") for f in HEADLINE_METRICS if f in table.values}


def _json(obj: Any, secrets: tuple[str, ...]) -> str:
    return json.dumps(scrub_secrets(obj, secrets), ensure_ascii=False)


def _run_row(run: Run, secrets: tuple[str, ...]) -> dict[str, Any]:
    """The ``runs`` row of ``run`` (without its id and owner): every text scrubbed of
    ``secrets``."""
    name = (run.name or "").strip() or _default_name(run.retriever, run.model, run.dataset.name)
    ranking = _ranking_to_obj(run.ranking)
    row = {
        "name": scrub_secrets(name[:200], secrets),
        "created_at": _iso(run.created_at),
        "source": run.source,
        "dataset_fp": run.dataset_fingerprint,
        "dataset_name": run.dataset.name,
        "retriever": scrub_secrets(str(run.retriever), secrets),
        "model": scrub_secrets(run.model, secrets) if run.model else None,
        "n_queries": len(run.query_ids),
        "kmax": run.kmax,
        "relevance_level": None if run.relevance_level is None else float(run.relevance_level),
        "gain": run.gain,
        "seconds": None if run.seconds is None else float(run.seconds),
        "config": _json(dict(run.config), secrets),
        "usage": _json(dict(run.usage), secrets),
        "cost": None if run.cost is None else _json(dict(run.cost), secrets),
        "timings": _json(dict(run.timings), secrets),
        "resources": _json(dict(run.resources), secrets),
        "parents": json.dumps([str(p) for p in run.parents]),
        "query_ids": list(run.query_ids),
        "ranking": ranking,
        "headline": json.dumps(_headline(run.table())),
    }
    row["identity"] = _identity(row)
    return {**row, "query_ids": _pack(row["query_ids"]), "ranking": _pack(ranking)}


def _identity(row: Mapping[str, Any]) -> str:
    """What makes two saved runs the same run: a sha256 over the dataset fingerprint, the
    (scrubbed) configuration, where it came from, the evaluated queries, Kmax, the judging
    (relevance level, gain) and the ranking — its ids and exact scores, not its name. Computed
    from a ``runs`` row (its query ids and ranking packed, or still as objects), so a row read
    back from the file gives the same value."""
    ranking = row["ranking"]
    ranking = dict(_unpack(ranking) if isinstance(ranking, bytes) else ranking)
    ranking.pop("name", None)
    query_ids = row["query_ids"]
    level = row["relevance_level"]
    head = json.dumps([row["dataset_fp"], _config_identity(json.loads(row["config"])),
                       row["source"],
                       row["retriever"], row["model"], int(row["kmax"]),
                       None if level is None else float(level), row["gain"],
                       _unpack(query_ids) if isinstance(query_ids, bytes) else query_ids,
                       ranking],
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(head.encode("utf-8")).hexdigest()


#: what a recorded setup (``config["setup"]``) holds that does not change the ranking: the
#: run's name, where the dataset was read from (its fingerprint names its content), the Ks
#: the report shows
_SETUP_NOT_IDENTITY = ("name", "dataset", "k")


def _config_identity(config: Any) -> Any:
    if isinstance(config, dict) and isinstance(config.get("setup"), dict):
        setup = {k: v for k, v in config["setup"].items() if k not in _SETUP_NOT_IDENTITY}
        return {**config, "setup": setup}
    return config


def _insert_dataset(conn: sqlite3.Connection, fingerprint: str, dataset: Dataset) -> None:
    """Store the dataset once per fingerprint (runs on the same data share it). Another
    process may store the same content at the same moment: the second insert is a no-op."""
    conn.execute("INSERT INTO datasets(fingerprint, name, sizes, content) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT (fingerprint) DO NOTHING",
                 (fingerprint, dataset.name, json.dumps(dataset.sizes()),
                  _pack(dataset_to_json_obj(dataset))))


def _insert_run(conn: sqlite3.Connection, row: dict[str, Any]) -> str:
    """Insert ``row`` under a fresh id; returns the id."""
    run_id = new_run_id()
    while conn.execute("SELECT 1 FROM runs WHERE id=?", (run_id,)).fetchone():
        run_id = new_run_id()
    row = {"id": run_id, **row}
    conn.execute(f"INSERT INTO runs({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                 tuple(row.values()))
    return run_id


# -- the store -----------------------------------------------------------------------------------
class RunStore:
    """Saved runs in ``<home>/runs.sqlite`` (``home`` defaults to :func:`default_home`).

    Safe to share between threads and processes (a job saves while a page lists; twenty
    ``evaluate --store`` at once): every call opens its own short-lived connection; SQLite's
    WAL mode lets readers and one writer work at once, and every change runs in one
    ``BEGIN IMMEDIATE`` transaction — it takes the write lock before it reads what it
    decides on, so two processes never both decide "not saved yet". The schema is created
    and migrated the same way, once, however many processes open a new store.

    ``read_only`` (``None``: when the folder or the file cannot be written by this process):
    the store is opened with ``mode=ro`` and nothing is written — no schema, no WAL file —
    so a store on a read-only mount or in another user's folder can still be listed and
    read; saving then says so in one sentence.

    ``bad_rows`` names the runs that could not be read (id -> reason) so a page can say so.
    """

    def __init__(self, home: str | os.PathLike | None = None, *,
                 read_only: bool | None = None) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.path = self.home / DB_FILENAME
        self._datasets: OrderedDict[str, Dataset] = OrderedDict()  # small LRU by fingerprint
        self._runs: OrderedDict[str, Run] = OrderedDict()  # small LRU by run id
        self._lock = threading.Lock()
        self.bad_rows: dict[str, str] = {}
        if not self.home.is_dir() and read_only is not True:
            try:
                self.home.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise error(RunStoreError, "store.cannot_create", home=self.home,
                            exc=exc) from exc
        self.read_only = (not _writable(self.home, self.path) if read_only is None
                          else bool(read_only))
        #: a read-only home without a store file reads as an empty store
        self._empty = self.read_only and not self.path.exists()
        self._open_schema()

    # -- connections --------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        """A connection in autocommit mode (transactions are begun explicitly)."""
        if self._empty:
            conn = sqlite3.connect(":memory:", isolation_level=None)
            for statement in _schema_statements():
                conn.execute(statement)
            return conn
        if not self.read_only:
            return sqlite3.connect(self.path, timeout=30, isolation_level=None)
        uri = self.path.resolve().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=30, isolation_level=None)
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            # WAL mode needs its -shm file: when it is not there and the folder cannot be
            # written, the file is read as it is (nobody can be writing it from here)
            if _code(exc) not in (SQLITE_READONLY, SQLITE_CANTOPEN):
                conn.close()
                raise
            conn.close()
            conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True,
                                   isolation_level=None)
        return conn

    @contextlib.contextmanager
    def _connect(self, *, write: bool = False,
                 pragma: str = "foreign_keys=ON") -> Iterator[sqlite3.Connection]:
        """One transaction: a consistent read, or (``write=True``) a write that holds the
        write lock from its first read to its commit (``BEGIN IMMEDIATE``). ``pragma`` is
        set before the transaction begins (neither pragma can change inside one)."""
        if write and self.read_only:
            raise error(RunStoreError, "store.read_only", path=self.path)
        try:
            conn = self._open()
        except sqlite3.Error as exc:
            raise error(RunStoreError, "store.cannot_open", path=self.path, exc=exc) from exc
        try:
            conn.execute(f"PRAGMA {pragma}")
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from exc
        finally:
            conn.close()

    def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return self._connect(write=True)

    def _open_schema(self) -> None:
        """Check the file's schema version; create or migrate it (once, under the write
        lock) when it is not the current one."""
        if self._empty:
            return
        with self._connect() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise error(RunStoreError, "store.newer", path=self.path, version=version,
                        most=SCHEMA_VERSION)
        if self.read_only:
            raise error(RunStoreError, "store.read_only_old", path=self.path)
        # WAL is kept by the file; the migration runs under the write lock
        with self._connect(write=True, pragma="journal_mode=WAL") as conn:
            _migrate(conn, self.path)  # reads the version again: another may have won

    # -- write ----------------------------------------------------------------------------
    def save(self, run: Run, *, secrets: Iterable[str] = (), owner: str | None = None) -> str:
        """Save ``run``; returns its new id (also set on ``run.id``) — or, when the same run
        is already saved by ``owner`` (see :func:`_identity`), that run's id, with
        ``run.reused`` set: nothing is written then.

        ``owner``: the signed-in user saving it (see :mod:`ragdash.runs.access`); ``None``
        for a shared run.

        ``secrets`` (an API key) are masked wherever they might appear; credential-named
        config entries are dropped whatever ``secrets`` says. The metric table is computed
        (and memoized on ``run``) for the run list's headline means.
        """
        if not isinstance(run, Run):
            raise RunStoreError(f"RunStore.save takes a ragdash.run.Run, not "
                                f"{type(run).__name__}; convert other shapes with "
                                f"Run.of_ranking or ragdash.runs.exchange first")
        row = _run_row(run, tuple(s for s in secrets if s))
        row["owner"] = str(owner) if owner else None
        with self._lock, self._write() as conn:
            # under the write lock: a process saving the same run waits, then finds it
            same = conn.execute("SELECT id FROM runs WHERE identity=? AND "
                                "COALESCE(owner, '')=? ORDER BY created_at, id LIMIT 1",
                                (row["identity"], row["owner"] or SHARED)).fetchone()
            if same is None:
                _insert_dataset(conn, run.dataset_fingerprint, run.dataset)
                run_id = _insert_run(conn, row)
            else:
                run_id = same[0]
        run.id = run_id
        run.reused = same is not None
        self._remember(run.dataset_fingerprint, run.dataset)
        return run_id

    #: the same as :meth:`save` (the name earlier code used for a Run)
    save_run = save

    def rename(self, run_id: str, name: str) -> None:
        name = clean_name(name or "")  # one line, no control characters, 200 at most
        if not name:
            raise error(RunStoreError, "store.empty_name")
        with self._write() as conn:
            cur = conn.execute("UPDATE runs SET name=? WHERE id=?", (name, run_id))
        if cur.rowcount == 0:
            raise _unknown(run_id)
        with self._lock:
            cached = self._runs.get(run_id)
            if cached is not None:
                cached.name = name

    def update_resources(self, run_id: str, changes: Mapping) -> dict:
        """Merge ``changes`` into a saved run's ``resources`` (a latency probe kept with the
        run, say); returns the new resources. Credentials are scrubbed as on save."""
        with self._write() as conn:
            row = conn.execute("SELECT resources FROM runs WHERE id=?", (run_id,)).fetchone()
            if row is None:
                raise _unknown(run_id)
            resources = {**json.loads(row[0] or "{}"), **scrub_secrets(dict(changes))}
            conn.execute("UPDATE runs SET resources=? WHERE id=?",
                         (json.dumps(resources, ensure_ascii=False), run_id))
        with self._lock:
            cached = self._runs.get(run_id)
            if cached is not None:
                cached.resources = dict(resources)
        return resources

    def delete(self, run_id: str) -> None:
        """Delete a run, and its dataset when no other run uses it and nobody saved it on
        its own (:meth:`save_dataset`: a generated set stays)."""
        with self._lock, self._write() as conn:
            row = conn.execute("SELECT dataset_fp FROM runs WHERE id=?", (run_id,)).fetchone()
            if row is None:
                raise _unknown(run_id)
            conn.execute("DELETE FROM runs WHERE id=?", (run_id,))
            self._runs.pop(run_id, None)
            still = conn.execute("SELECT 1 FROM runs WHERE dataset_fp=? UNION ALL "
                                 "SELECT 1 FROM dataset_owners WHERE fingerprint=?",
                                 (row[0], row[0])).fetchone()
            if not still:
                conn.execute("DELETE FROM datasets WHERE fingerprint=?", (row[0],))
                self._datasets.pop(row[0], None)

    # -- read -----------------------------------------------------------------------------
    _SUMMARY_COLS = ("id, name, created_at, source, dataset_name, dataset_fp, retriever, model, "
                     "n_queries, kmax, headline, usage, cost, seconds, parents, owner")
    _RUN_COLS = ("id, name, created_at, source, dataset_fp, retriever, model, kmax, "
                 "relevance_level, gain, seconds, config, usage, cost, timings, resources, "
                 "parents, query_ids, ranking")

    def list(self, *, dataset_fingerprint: str | None = None,
             limit: int | None = None) -> list[RunSummary]:
        """Saved runs, newest first (only those on one dataset when a fingerprint is given).
        A row that cannot be read is skipped and named in :attr:`bad_rows`."""
        sql = f"SELECT {self._SUMMARY_COLS} FROM runs"
        args: list[Any] = []
        if dataset_fingerprint:
            sql += " WHERE dataset_fp=?"
            args.append(dataset_fingerprint)
        sql += " ORDER BY created_at DESC, rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._connect() as conn:
            rows = conn.execute(sql, args).fetchall()
        summaries = []
        for row in rows:
            try:
                summaries.append(_summary(row))
            except (ValueError, TypeError, KeyError) as exc:
                with self._lock:
                    self.bad_rows[str(row[0])] = f"{type(exc).__name__}: {exc}"[:200]
        return summaries

    def summary(self, run_id: str) -> RunSummary:
        with self._connect() as conn:
            row = conn.execute(f"SELECT {self._SUMMARY_COLS} FROM runs WHERE id=?",
                               (run_id,)).fetchone()
        if row is None:
            raise _unknown(run_id)
        try:
            return _summary(row)
        except (ValueError, TypeError, KeyError) as exc:
            raise _bad_row(run_id, exc) from exc

    def exists(self, run_id: str) -> bool:
        with self._connect() as conn:
            return conn.execute("SELECT 1 FROM runs WHERE id=?", (run_id,)).fetchone() is not None

    def load(self, run_id: str, *, cached: bool = True) -> Run:
        """The full :class:`Run` (``id`` set): ranking, dataset, configuration. Raises
        :class:`RunStoreError` for an unknown id or a row that cannot be read.

        The last few runs loaded are kept in memory (``cached=False`` reads the file again),
        so a page that reruns gets the same :class:`Run` — and its memoized metric table —
        back without touching SQLite; treat it as read-only.
        """
        run_id = str(run_id or "").strip()
        if cached:
            with self._lock:
                hit = self._runs.get(run_id)
                if hit is not None:
                    self._runs.move_to_end(run_id)
                    return hit
        with self._connect() as conn:
            row = conn.execute(f"SELECT {self._RUN_COLS} FROM runs WHERE id=?",
                               (run_id,)).fetchone()
        if row is None:
            raise _unknown(run_id)
        try:
            run = self._run_of(row)
        except (zlib.error, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise _bad_row(run_id, exc) from exc
        with self._lock:
            self._runs[run_id] = run
            while len(self._runs) > RUN_CACHE_SIZE:
                self._runs.popitem(last=False)
        return run

    def _run_of(self, row: tuple) -> Run:
        (rid, name, created_at, source, fp, retriever, model, kmax, level, gain, seconds,
         config, usage, cost, timings, resources, parents, qids, ranking) = row
        return Run(dataset=self.dataset(fp), dataset_fingerprint=fp,
                   ranking=_ranking_from_obj(_unpack(ranking)), query_ids=_unpack(qids),
                   kmax=int(kmax), retriever=retriever, model=model, name=name,
                   config=json.loads(config), usage=json.loads(usage),
                   cost=json.loads(cost) if cost else None, seconds=seconds,
                   timings=json.loads(timings), resources=json.loads(resources),
                   relevance_level=level, gain=gain, source=source,
                   parents=[str(p) for p in json.loads(parents)], created_at=created_at,
                   id=rid)

    def load_many(self, run_ids: Iterable[str]) -> list[Run]:
        return [self.load(r) for r in run_ids]

    def table(self, run: Run | str) -> MetricTable:
        """The run's :class:`ragdash.metrics.MetricTable`, recomputed from its ranking."""
        if isinstance(run, str):
            run = self.load(run)
        return run.table()

    def dataset(self, fingerprint: str) -> Dataset:
        """A stored dataset by fingerprint (kept in a small in-memory cache)."""
        with self._lock:
            if fingerprint in self._datasets:
                self._datasets.move_to_end(fingerprint)
                return self._datasets[fingerprint]
        with self._connect() as conn:
            row = conn.execute("SELECT content FROM datasets WHERE fingerprint=?",
                               (fingerprint,)).fetchone()
        if row is None:
            raise error(RunStoreError, "store.no_dataset", fp=fingerprint[:12])
        dataset = dataset_from_json_obj(_unpack(row[0]))
        self._remember(fingerprint, dataset)
        return dataset

    def has_dataset(self, fingerprint: str) -> bool:
        with self._connect() as conn:
            return conn.execute("SELECT 1 FROM datasets WHERE fingerprint=?",
                                (fingerprint,)).fetchone() is not None

    def save_dataset(self, dataset: Dataset, *, owner: str | None = None) -> str:
        """Keep ``dataset`` in the store without a run (a generated evaluation set the app
        opens later); returns its fingerprint. Saving the same content again is a no-op.

        ``owner``: the signed-in user saving it, who alone has it listed
        (:mod:`ragdash.runs.access`); ``None`` saves it for everyone. The same content saved
        by two people is kept once and belongs to both."""
        fingerprint = dataset.fingerprint()
        with self._lock, self._write() as conn:
            _insert_dataset(conn, fingerprint, dataset)
            conn.execute("INSERT INTO dataset_owners(fingerprint, owner) VALUES (?, ?) "
                         "ON CONFLICT (fingerprint, owner) DO NOTHING",
                         (fingerprint, str(owner) if owner else SHARED))
        self._remember(fingerprint, dataset)
        return fingerprint

    def datasets(self) -> list[dict]:
        """Stored datasets, by name: ``fingerprint``, ``name``, ``sizes``, ``runs`` (how
        many runs use it), ``saved_by`` (who saved it on its own, :meth:`save_dataset`;
        ``None`` for everyone) and ``run_owners`` (run id -> owner of each run on it)."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT d.fingerprint, d.name, d.sizes, COUNT(r.id) FROM datasets d "
                "LEFT JOIN runs r ON r.dataset_fp = d.fingerprint "
                "GROUP BY d.fingerprint, d.name, d.sizes ORDER BY d.name").fetchall()
            owners = conn.execute("SELECT fingerprint, owner FROM dataset_owners "
                                  "ORDER BY fingerprint, owner").fetchall()
            runs = conn.execute("SELECT dataset_fp, id, owner FROM runs").fetchall()
        saved_by: dict[str, list[str | None]] = {}
        for fp, who in owners:
            saved_by.setdefault(fp, []).append(who or None)
        run_owners: dict[str, dict[str, str | None]] = {}
        for fp, rid, who in runs:
            run_owners.setdefault(fp, {})[rid] = who or None
        return [{"fingerprint": fp, "name": name, "sizes": json.loads(sizes), "runs": n,
                 "saved_by": saved_by.get(fp, []), "run_owners": run_owners.get(fp, {})}
                for fp, name, sizes, n in rows]

    # -- judgment sets -----------------------------------------------------------------------
    def save_judgments(self, fingerprint: str, jset: JudgmentSet, *,
                       replace: bool = False) -> int:
        """Store the labels of ``jset`` as the set ``jset.name`` of the dataset
        ``fingerprint``: a pair the stored set already labels gets the new label, others are
        added (``replace=True``: the stored set is emptied first). Returns the labels
        written."""
        rows = [(fingerprint, jset.name, lb.query_id, lb.doc_id, float(lb.grade), lb.source,
                 lb.date) for lb in jset]
        with self._lock, self._write() as conn:
            if replace:
                conn.execute("DELETE FROM judgments WHERE dataset_fp=? AND set_name=?",
                             (fingerprint, jset.name))
            conn.executemany("INSERT OR REPLACE INTO judgments(dataset_fp, set_name, query_id, "
                             "doc_id, grade, source, date) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        return len(rows)

    def add_label(self, fingerprint: str, set_name: str, label: Label) -> None:
        """Store one label as it is given (the Judge page): a closed tab loses nothing."""
        self.save_judgments(fingerprint, JudgmentSet(set_name, [label]))

    def remove_label(self, fingerprint: str, set_name: str, query_id: str,
                     doc_id: str) -> bool:
        """Forget one label of a stored set; whether there was one."""
        with self._lock, self._write() as conn:
            cur = conn.execute("DELETE FROM judgments WHERE dataset_fp=? AND set_name=? AND "
                               "query_id=? AND doc_id=?",
                               (fingerprint, set_name, str(query_id), str(doc_id)))
        return cur.rowcount > 0

    def judgment_sets(self, fingerprint: str, *, unsure: bool = False) -> list[dict]:
        """The dataset's stored sets: ``{"name", "labels", "sources": {source: n},
        "first", "last"}`` (dates of the oldest and newest label), by name. The Judge page's
        "can't tell" marks (``unsure:<rater>``) are not judgment sets and are listed only with
        ``unsure=True``."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT set_name, source, COUNT(*), MIN(date), MAX(date) FROM judgments "
                "WHERE dataset_fp=? GROUP BY set_name, source ORDER BY set_name",
                (fingerprint,)).fetchall()
        out: dict[str, dict] = {}
        for name, source, n, first, last in rows:
            if is_unsure_set(name) and not unsure:
                continue
            entry = out.setdefault(name, {"name": name, "labels": 0, "sources": {},
                                          "first": first, "last": last})
            entry["labels"] += n
            entry["sources"][source] = n
            entry["first"], entry["last"] = min(entry["first"], first), max(entry["last"], last)
        return list(out.values())

    def load_judgments(self, fingerprint: str, name: str) -> JudgmentSet:
        """A stored set (empty when the dataset has no set of that name)."""
        with self._connect() as conn:
            rows = conn.execute("SELECT query_id, doc_id, grade, source, date FROM judgments "
                                "WHERE dataset_fp=? AND set_name=? ORDER BY rowid",
                                (fingerprint, name)).fetchall()
        return JudgmentSet(name, (Label(q, d, float(g), s, day) for q, d, g, s, day in rows))

    def delete_judgments(self, fingerprint: str, name: str) -> int:
        """Delete a stored set; returns how many labels it had."""
        with self._lock, self._write() as conn:
            cur = conn.execute("DELETE FROM judgments WHERE dataset_fp=? AND set_name=?",
                               (fingerprint, name))
        return cur.rowcount

    def forget_cached(self) -> None:
        """Drop the runs and datasets kept in memory (the app calls it when its last
        session has gone: a 10,000-query run with its metric table is a few hundred MB)."""
        with self._lock:
            self._runs.clear()
            self._datasets.clear()

    def _remember(self, fingerprint: str, dataset: Dataset) -> None:
        with self._lock:
            self._datasets[fingerprint] = dataset
            self._datasets.move_to_end(fingerprint)
            while len(self._datasets) > 4:
                self._datasets.popitem(last=False)


def _default_name(retriever: str, model: str | None, dataset_name: str) -> str:
    # "openai:emb-1" already names its model: no "openai:emb-1 · emb-1"
    named = not model or model == retriever or retriever.endswith(f":{model}")
    who = retriever if named else f"{retriever} · {model}"
    return t("runs.untitled", "en", retriever=who, dataset=dataset_name)


def _summary(r: tuple) -> RunSummary:
    (rid, name, created_at, source, dname, fp, retriever, model, n, kmax, headline, usage,
     cost, seconds, parents, owner) = r
    headline = json.loads(headline)
    if not isinstance(headline, dict):
        raise ValueError("its headline is not a JSON object")
    return RunSummary(id=rid, name=name, created_at=created_at, source=source,
                      dataset_name=dname, dataset_fingerprint=fp, retriever=retriever,
                      model=model, n_queries=int(n), kmax=int(kmax),
                      headline={str(k): float(v) for k, v in headline.items()},
                      usage=json.loads(usage), cost=json.loads(cost) if cost else None,
                      seconds=seconds, parents=tuple(json.loads(parents or "[]")),
                      owner=owner)


def _bad_row(run_id: str, exc: Exception) -> RunStoreError:
    return error(RunStoreError, "store.run_unreadable", run_id=run_id,
                 kind=type(exc).__name__)


#: SQLite's primary result codes that matter here (``exc.sqlite_errorcode & 0xFF``)
SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_CANTOPEN, SQLITE_NOTADB = 8, 11, 14, 26


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _damaged(path: Path, exc: sqlite3.DatabaseError) -> RunStoreError:
    """The sentence for a SQLite error. Only a file SQLite cannot read as a database is
    called damaged (with the advice to move it aside); a constraint met while another
    process saves the same thing is a conflict, and a lock or a permission is "cannot use"
    — the store is fine then, and moving it aside would lose good data."""
    code = _code(exc)
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB) or (code is None and type(exc) is
                                                  sqlite3.DatabaseError):
        return error(RunStoreError, "store.damaged", path=path, exc=exc, name=path.name)
    if isinstance(exc, sqlite3.IntegrityError):
        return error(RunStoreError, "store.conflict", path=path, exc=exc)
    return error(RunStoreError, "store.unusable", path=path, exc=exc)


def _writable(home: Path, path: Path) -> bool:
    """Whether this process may write the store: its folder (SQLite writes its journal and
    WAL files beside the file) and the file, when there is one."""
    if not os.access(home, os.W_OK | os.X_OK):
        return False
    return all(os.access(p, os.W_OK) for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"))
               if p.exists())


def _schema_statements() -> list[str]:
    """:data:`_SCHEMA` one statement at a time (``executescript`` would commit the
    transaction it runs in)."""
    return [part.strip() for part in _SCHEMA.split(";") if part.strip()]


# -- schema versions ---------------------------------------------------------------------------
def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the file to :data:`SCHEMA_VERSION` (a new file is created at it). Runs inside
    the caller's ``BEGIN IMMEDIATE`` transaction, so it reads the version under the write
    lock: of several processes opening a new store at once, one creates it, and the others
    find it made.

    Version 1 kept a derived run's ``parents`` and ``resources`` inside its config and had no
    timings; version 2 gives the three their own columns (moved out of the config here);
    version 3 adds a run's owner; version 4 the ``judgments`` table (created by the schema
    statements: nothing to move); version 5 each run's identity (computed here); version 6
    who saved a dataset on its own (``dataset_owners``: a dataset kept without a run before
    is everyone's, as a run saved before sign-in is)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    has_runs = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='runs'"
                            ).fetchone()
    if version > SCHEMA_VERSION:
        raise error(RunStoreError, "store.newer", path=path,
                    version=version, most=SCHEMA_VERSION)
    if has_runs and version < 2:
        _migrate_1_to_2(conn)
    if has_runs and version < 3:  # who saved a run (the app with authentication)
        conn.execute("ALTER TABLE runs ADD COLUMN owner TEXT")
    if has_runs and version < 5:  # a run is saved once
        _migrate_4_to_5(conn)
    for statement in _schema_statements():
        conn.execute(statement)
    if has_runs and version < 6:  # datasets kept without a run: everyone's
        conn.execute("INSERT INTO dataset_owners(fingerprint, owner) SELECT d.fingerprint, ? "
                     "FROM datasets d WHERE NOT EXISTS (SELECT 1 FROM runs r "
                     "WHERE r.dataset_fp = d.fingerprint)", (SHARED,))
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _migrate_4_to_5(conn: sqlite3.Connection) -> None:
    """Each saved run gets its identity (runs saved twice before stay two rows: deleting
    a user's run is not a migration's call; the views show identical rankings once)."""
    conn.execute("ALTER TABLE runs ADD COLUMN identity TEXT")
    cols = ("id", "dataset_fp", "config", "source", "retriever", "model", "kmax",
            "relevance_level", "gain", "query_ids", "ranking")
    for values in conn.execute(f"SELECT {', '.join(cols)} FROM runs").fetchall():
        row = dict(zip(cols, values))
        try:
            identity = _identity(row)
        except (zlib.error, ValueError, KeyError, TypeError, AttributeError):
            continue  # an unreadable row keeps no identity (the list names it)
        conn.execute("UPDATE runs SET identity=? WHERE id=?", (identity, row["id"]))


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    for column, default in (("timings", "'{}'"), ("resources", "'{}'"), ("parents", "'[]'")):
        conn.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT NOT NULL DEFAULT {default}")
    rows = conn.execute("SELECT id, config FROM runs WHERE config LIKE '%\"parents\"%' OR "
                        "config LIKE '%\"resources\"%'").fetchall()
    for run_id, text in rows:
        config = json.loads(text)
        if not isinstance(config, dict):
            continue
        parents = config.pop("parents", [])
        resources = config.pop("resources", {})
        conn.execute("UPDATE runs SET config=?, parents=?, resources=? WHERE id=?",
                     (json.dumps(config, ensure_ascii=False), json.dumps(list(parents)),
                      json.dumps(dict(resources), ensure_ascii=False), run_id))


def _unknown(run_id: str) -> RunStoreError:
    shown = run_id if _RUN_ID.match(str(run_id)) else repr(str(run_id)[:40])
    return error(RunStoreError, "store.no_run", shown=shown)


_stores: dict[Path, RunStore] = {}
_stores_lock = threading.Lock()


def forget_cached() -> None:
    """:meth:`RunStore.forget_cached` for every store this process has opened."""
    with _stores_lock:
        stores = list(_stores.values())
    for store in stores:
        store.forget_cached()


def get_store(home: str | os.PathLike | None = None) -> RunStore:
    """One :class:`RunStore` per home folder per process (so its dataset cache is shared)."""
    path = (Path(home).expanduser() if home is not None else default_home()).resolve()
    with _stores_lock:
        store = _stores.get(path)
        if store is None:
            store = _stores[path] = RunStore(path)
        return store
