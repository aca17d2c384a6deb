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

Run ids are 10 characters of base32 from :func:`secrets.token_bytes`: URL-safe, and not
guessable from one another.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import json
import os
import re
import secrets as _secrets
import sqlite3
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..dataset import Dataset, Document, Query
from ..errors import RunStoreError
from ..home import ragdash_home as default_home
from ..i18n import t
from ..metrics import evaluate
from ..ranking import Ranking
from ..run import Run
from ..secrets import scrub_secrets

__all__ = ["DB_FILENAME", "HEADLINE_METRICS", "RunStore", "RunSummary", "SavedRun",
           "dataset_from_json_obj", "dataset_to_json_obj", "default_home", "get_store",
           "new_run_id"]

DB_FILENAME = "runs.sqlite"
SCHEMA_VERSION = 1
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
    query_ids       BLOB NOT NULL,
    ranking         BLOB NOT NULL,
    headline        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at);
CREATE INDEX IF NOT EXISTS runs_dataset ON runs(dataset_fp);
"""


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
    return {
        "name": dataset.name,
        "source": dataset.source,
        "notes": list(dataset.notes),
        "documents": [[d.id, d.title, d.text] for d in dataset.documents],
        "queries": [[q.id, q.text] for q in dataset.queries],
        "qrels": {q: {d: float(g) for d, g in docs.items()} for q, docs in dataset.qrels.items()},
    }


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
    """One line of the run list (no ranking, no dataset content)."""

    id: str
    name: str
    created_at: str  # ISO 8601, UTC ("2025-01-31T12:00:00Z")
    source: str  # "evaluation", "trec" (an uploaded run file) or "import" (a JSON export)
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


@dataclass
class SavedRun:
    """A run read back from the store, with everything needed to recompute and drill down."""

    id: str
    name: str
    created_at: str
    source: str
    dataset: Dataset
    dataset_fingerprint: str
    ranking: Ranking
    retriever: str
    model: str | None
    config: dict
    usage: dict
    cost: dict | None
    kmax: int
    #: the evaluated queries, in order (a query missing from the ranking scores 0)
    query_ids: list[str]
    relevance_level: float | None
    gain: str
    seconds: float | None
    _table: Any = field(default=None, repr=False)

    @property
    def qrels(self):
        return self.dataset.qrels

    def table(self):
        """The :class:`ragdash.metrics.MetricTable`, recomputed from the ranking (memoized)."""
        if self._table is None:
            self._table = evaluate(self.ranking, self.dataset.qrels, kmax=self.kmax,
                                   queries=self.query_ids,
                                   relevance_level=self.relevance_level, gain=self.gain)
        return self._table

    def summary(self) -> RunSummary:
        return RunSummary(
            id=self.id, name=self.name, created_at=self.created_at, source=self.source,
            dataset_name=self.dataset.name, dataset_fingerprint=self.dataset_fingerprint,
            retriever=self.retriever, model=self.model, n_queries=len(self.query_ids),
            kmax=self.kmax, headline=_headline(self.table()), usage=dict(self.usage),
            cost=self.cost, seconds=self.seconds)


def _headline(table) -> dict[str, float]:
    k = min(10, table.kmax)
    return {f"{f}@{k}": table.mean(f"{f}@{k}") for f in HEADLINE_METRICS if f in table.values}


# -- the store -----------------------------------------------------------------------------------
class RunStore:
    """Saved runs in ``<home>/runs.sqlite`` (``home`` defaults to :func:`default_home`).

    Safe to share between threads (a job saves while a page lists): every call opens its own
    short-lived connection; SQLite's WAL mode lets readers and one writer work at once.
    """

    def __init__(self, home: str | os.PathLike | None = None) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.path = self.home / DB_FILENAME
        self._datasets: OrderedDict[str, Dataset] = OrderedDict()  # small LRU by fingerprint
        self._runs: OrderedDict[str, SavedRun] = OrderedDict()  # small LRU by run id
        self._lock = threading.Lock()
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            with self._connect() as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except (OSError, sqlite3.Error) as exc:
            raise RunStoreError(f"cannot open the run store at {self.path} ({exc}); set "
                                f"RAGDASH_HOME to a writable folder") from exc

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=30)
        try:
            conn.execute("PRAGMA foreign_keys=ON")
            with conn:  # commit or roll back
                yield conn
        finally:
            conn.close()

    # -- write ----------------------------------------------------------------------------
    def save(self, result: Any = None, *, dataset: Dataset, name: str | None = None,
             ranking: Ranking | None = None, config: Mapping | None = None,
             usage: Mapping | None = None, retriever: str | None = None,
             model: str | None = None, kmax: int | None = None,
             query_ids: Iterable[str] | None = None, relevance_level: float | None = None,
             gain: str | None = None, seconds: float | None = None, created_at: Any = None,
             cost: Mapping | None = None, source: str = "evaluation",
             secrets: Iterable[str] = ()) -> str:
        """Save a run; returns its id.

        ``result`` is a :class:`ragdash.pipeline.EvaluationResult` (its ranking, table, config,
        usage, retriever_name, seconds, created_at, kmax are used); each keyword overrides the
        matching field, or supplies it when there is no ``result``. ``dataset`` is the dataset
        the run was made on (its fingerprint must match the result's). ``secrets`` (an API
        key) are masked wherever they might appear; credential-named config entries are
        dropped whatever ``secrets`` says. ``cost``: an estimate / actual figure to show later
        (e.g. ``{"estimated_usd": 0.01, "actual_usd": 0.012, "tokens": 12345}``).
        """
        table = getattr(result, "table", None)
        ranking = ranking if ranking is not None else getattr(result, "ranking", None)
        if ranking is None:
            raise RunStoreError("nothing to save: give an evaluation result or a ranking")
        result_fp = getattr(result, "dataset_fingerprint", None) or None
        result_ds = getattr(result, "dataset", None)
        if result_fp is not None and result_ds is dataset:
            fp = result_fp  # the pipeline fingerprinted this very object a moment ago
        else:
            fp = dataset.fingerprint()
            if result_fp is None and result_ds is not None and result_ds is not dataset:
                result_fp = result_ds.fingerprint()
        if result_fp is not None and result_fp != fp:
            raise RunStoreError("this result was made on a different dataset than the one "
                                "given to save(); save it with the dataset it was run on")
        config = dict(config if config is not None else getattr(result, "config", None) or {})
        usage = dict(usage if usage is not None else getattr(result, "usage", None) or {})
        retriever = (retriever or getattr(result, "retriever_name", None)
                     or config.get("retriever") or config.get("name") or "unknown")
        model = model or config.get("model")
        if query_ids is None:
            query_ids = getattr(result, "query_ids", None) or (
                table.query_ids if table is not None else
                [q for q in ranking.query_ids if q in dataset.qrels])
        query_ids = [str(q) for q in query_ids]
        if kmax is None:
            kmax = getattr(result, "kmax", None) or (table.kmax if table is not None else None) \
                or max(ranking.kmax, 1)
        kmax = int(kmax)
        if relevance_level is None:
            relevance_level = getattr(result, "relevance_level", None)
        if relevance_level is None and table is not None:
            relevance_level = table.relevance_level
        gain = gain or getattr(result, "gain", None) or (table.gain if table is not None
                                                         else "linear")
        if seconds is None:
            seconds = getattr(result, "seconds", None)
        if created_at is None:
            created_at = getattr(result, "created_at", None)
        if table is None or table.kmax != kmax or list(table.query_ids) != query_ids:
            table = evaluate(ranking, dataset.qrels, kmax=kmax, queries=query_ids,
                             relevance_level=relevance_level, gain=gain)
        secrets = tuple(secrets)
        name = (name or "").strip() or _default_name(str(retriever), model, dataset.name)
        row = {
            "id": new_run_id(),
            "name": scrub_secrets(name[:200], secrets),
            "created_at": _iso(created_at),
            "source": source,
            "dataset_fp": fp,
            "dataset_name": dataset.name,
            "retriever": scrub_secrets(str(retriever), secrets),
            "model": scrub_secrets(model, secrets) if model else None,
            "n_queries": len(query_ids),
            "kmax": kmax,
            "relevance_level": None if relevance_level is None else float(relevance_level),
            "gain": gain,
            "seconds": None if seconds is None else float(seconds),
            "config": json.dumps(scrub_secrets(config, secrets), ensure_ascii=False),
            "usage": json.dumps(scrub_secrets(usage, secrets), ensure_ascii=False),
            "cost": None if cost is None else json.dumps(scrub_secrets(dict(cost), secrets),
                                                         ensure_ascii=False),
            "query_ids": _pack(query_ids),
            "ranking": _pack(_ranking_to_obj(ranking)),
            "headline": json.dumps(_headline(table)),
        }
        with self._lock, self._connect() as conn:
            exists = conn.execute("SELECT 1 FROM datasets WHERE fingerprint=?", (fp,)).fetchone()
            if not exists:
                conn.execute("INSERT INTO datasets(fingerprint, name, sizes, content) "
                             "VALUES (?, ?, ?, ?)",
                             (fp, dataset.name, json.dumps(dataset.sizes()),
                              _pack(dataset_to_json_obj(dataset))))
            while conn.execute("SELECT 1 FROM runs WHERE id=?", (row["id"],)).fetchone():
                row["id"] = new_run_id()
            cols = ", ".join(row)
            conn.execute(f"INSERT INTO runs({cols}) VALUES ({', '.join('?' * len(row))})",
                         tuple(row.values()))
        self._remember(fp, dataset)
        return row["id"]

    def save_run(self, run: Run, *, secrets: Iterable[str] = ()) -> str:
        """Save a :class:`ragdash.run.Run` (a derived run's parents and transform travel in
        its config); returns the id, also set on ``run.id``."""
        config = dict(run.config)
        if run.parents:
            config["parents"] = list(run.parents)
        if run.resources:
            config["resources"] = dict(run.resources)
        run.id = self.save(dataset=run.dataset, name=run.name or None, ranking=run.ranking,
                           config=config, usage=run.usage, retriever=run.retriever,
                           model=run.model, kmax=run.kmax, query_ids=run.query_ids,
                           relevance_level=run.relevance_level, gain=run.gain,
                           seconds=run.seconds, created_at=run.created_at, cost=run.cost,
                           source=run.source, secrets=secrets)
        return run.id

    def rename(self, run_id: str, name: str) -> None:
        name = (name or "").strip()[:200]
        if not name:
            raise RunStoreError("a run name cannot be empty")
        with self._connect() as conn:
            cur = conn.execute("UPDATE runs SET name=? WHERE id=?", (name, run_id))
        if cur.rowcount == 0:
            raise _unknown(run_id)
        with self._lock:
            cached = self._runs.get(run_id)
            if cached is not None:
                cached.name = name

    def delete(self, run_id: str) -> None:
        """Delete a run, and its dataset when no other run uses it."""
        with self._lock, self._connect() as conn:
            row = conn.execute("SELECT dataset_fp FROM runs WHERE id=?", (run_id,)).fetchone()
            if row is None:
                raise _unknown(run_id)
            conn.execute("DELETE FROM runs WHERE id=?", (run_id,))
            self._runs.pop(run_id, None)
            still = conn.execute("SELECT 1 FROM runs WHERE dataset_fp=? LIMIT 1",
                                 (row[0],)).fetchone()
            if not still:
                conn.execute("DELETE FROM datasets WHERE fingerprint=?", (row[0],))
                self._datasets.pop(row[0], None)

    # -- read -----------------------------------------------------------------------------
    _SUMMARY_COLS = ("id, name, created_at, source, dataset_name, dataset_fp, retriever, model, "
                     "n_queries, kmax, headline, usage, cost, seconds")

    def list(self, *, dataset_fingerprint: str | None = None,
             limit: int | None = None) -> list[RunSummary]:
        """Saved runs, newest first (only those on one dataset when a fingerprint is given)."""
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
        return [_summary(r) for r in rows]

    def summary(self, run_id: str) -> RunSummary:
        with self._connect() as conn:
            row = conn.execute(f"SELECT {self._SUMMARY_COLS} FROM runs WHERE id=?",
                               (run_id,)).fetchone()
        if row is None:
            raise _unknown(run_id)
        return _summary(row)

    def exists(self, run_id: str) -> bool:
        with self._connect() as conn:
            return conn.execute("SELECT 1 FROM runs WHERE id=?", (run_id,)).fetchone() is not None

    def load(self, run_id: str, *, cached: bool = True) -> SavedRun:
        """The full run: ranking, dataset, configuration. Raises :class:`RunStoreError` for an
        unknown id.

        The last few runs loaded are kept in memory (``cached=False`` reads the file again),
        so a page that reruns gets the same :class:`SavedRun` — and its memoized metric
        table — back without touching SQLite; treat it as read-only.
        """
        run_id = str(run_id or "").strip()
        if cached:
            with self._lock:
                hit = self._runs.get(run_id)
                if hit is not None:
                    self._runs.move_to_end(run_id)
                    return hit
        with self._connect() as conn:
            row = conn.execute(
                "SELECT id, name, created_at, source, dataset_fp, retriever, model, n_queries, "
                "kmax, relevance_level, gain, seconds, config, usage, cost, query_ids, ranking "
                "FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            raise _unknown(run_id)
        (rid, name, created_at, source, fp, retriever, model, _n, kmax, level, gain, seconds,
         config, usage, cost, qids, ranking) = row
        try:
            run = SavedRun(
                id=rid, name=name, created_at=created_at, source=source,
                dataset=self.dataset(fp), dataset_fingerprint=fp,
                ranking=_ranking_from_obj(_unpack(ranking)), retriever=retriever, model=model,
                config=json.loads(config), usage=json.loads(usage),
                cost=json.loads(cost) if cost else None, kmax=int(kmax),
                query_ids=_unpack(qids), relevance_level=level, gain=gain, seconds=seconds)
        except (zlib.error, ValueError, KeyError, TypeError) as exc:
            raise RunStoreError(f"saved run {run_id} cannot be read ({type(exc).__name__}); "
                                f"delete it and run the evaluation again") from exc
        with self._lock:
            self._runs[run_id] = run
            while len(self._runs) > RUN_CACHE_SIZE:
                self._runs.popitem(last=False)
        return run

    def load_many(self, run_ids: Iterable[str]) -> list[SavedRun]:
        return [self.load(r) for r in run_ids]

    def table(self, run: SavedRun | str):
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
            raise RunStoreError(f"no saved dataset with fingerprint {fingerprint[:12]}…; it "
                                f"may have been deleted with its last run")
        dataset = dataset_from_json_obj(_unpack(row[0]))
        self._remember(fingerprint, dataset)
        return dataset

    def has_dataset(self, fingerprint: str) -> bool:
        with self._connect() as conn:
            return conn.execute("SELECT 1 FROM datasets WHERE fingerprint=?",
                                (fingerprint,)).fetchone() is not None

    def datasets(self) -> list[dict]:
        """Stored datasets: fingerprint, name, sizes, and how many runs use each."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT d.fingerprint, d.name, d.sizes, COUNT(r.id) FROM datasets d "
                "LEFT JOIN runs r ON r.dataset_fp = d.fingerprint GROUP BY d.fingerprint "
                "ORDER BY d.name").fetchall()
        return [{"fingerprint": fp, "name": name, "sizes": json.loads(sizes), "runs": n}
                for fp, name, sizes, n in rows]

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
     cost, seconds) = r
    return RunSummary(id=rid, name=name, created_at=created_at, source=source,
                      dataset_name=dname, dataset_fingerprint=fp, retriever=retriever,
                      model=model, n_queries=int(n), kmax=int(kmax),
                      headline=json.loads(headline), usage=json.loads(usage),
                      cost=json.loads(cost) if cost else None, seconds=seconds)


def _unknown(run_id: str) -> RunStoreError:
    shown = run_id if _RUN_ID.match(str(run_id)) else repr(str(run_id)[:40])
    return RunStoreError(f"no saved run with id {shown}; it may have been deleted")


_stores: dict[Path, RunStore] = {}
_stores_lock = threading.Lock()


def get_store(home: str | os.PathLike | None = None) -> RunStore:
    """One :class:`RunStore` per home folder per process (so its dataset cache is shared)."""
    path = (Path(home).expanduser() if home is not None else default_home()).resolve()
    with _stores_lock:
        store = _stores.get(path)
        if store is None:
            store = _stores[path] = RunStore(path)
        return store
