"""Runs in and out of the store as files: a JSON export, TREC run files.

JSON (``{"format": "ragdash-run", "version": 1, ...}``) carries the configuration (never a
key), usage, cost, the evaluated query ids, the ranking and the dataset's name, sizes and
fingerprint; optionally the qrels, or the whole dataset. Importing it needs the dataset: the
one embedded in the file, the one in the store with the same fingerprint, or the one the user
has loaded (checked by fingerprint); with only qrels, a dataset of ids without texts is made so
the run can still be scored.

TREC run files (``qid Q0 docno rank score tag``) come from any search engine; they are scored
against the dataset the user has loaded.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..dataset import Dataset, Document, Query
from ..errors import RunStoreError
from ..formats.files import require_regular_file
from ..formats.limits import MAX_JSON_ENV, MB, max_json_bytes, shown_mb
from ..i18n import dataset_error, error
from ..loaders import parse_json_text
from ..ranking import Ranking
from ..run import Run, now_iso
from ..secrets import scrub_secrets
from .store import RunStore, dataset_from_json_obj, dataset_to_json_obj

__all__ = ["EXPORT_FORMAT", "export_json", "export_trec", "import_json", "import_trec",
           "read_run_file", "run_from_json_obj", "run_from_trec", "run_to_json_obj"]

EXPORT_FORMAT = "ragdash-run"
EXPORT_VERSION = 1
#: a TREC run deeper than this is cut when imported (metrics are computed up to Kmax)
DEFAULT_TREC_KMAX = 100


def run_to_json_obj(run: Run, *, include_qrels: bool = False,
                    include_dataset: bool = False) -> dict:
    """The JSON export of a saved run as a dict (see the module docstring)."""
    obj: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "id": run.id,
        "name": run.name,
        "created_at": run.created_at,
        "source": run.source,
        "retriever": run.retriever,
        "model": run.model,
        "config": scrub_secrets(run.config),
        "usage": scrub_secrets(run.usage),
        "cost": run.cost,
        "kmax": run.kmax,
        "relevance_level": run.relevance_level,
        "gain": run.gain,
        "seconds": run.seconds,
        "timings": scrub_secrets(run.timings),
        "resources": scrub_secrets(run.resources),
        "parents": list(run.parents),
        "dataset": {"name": run.dataset.name, "fingerprint": run.dataset_fingerprint,
                    "sizes": run.dataset.sizes()},
        "query_ids": list(run.query_ids),
        "ranking": run.ranking.to_json_obj(),
    }
    if include_dataset:
        obj["dataset"]["content"] = dataset_to_json_obj(run.dataset)
    elif include_qrels:
        obj["qrels"] = {q: {d: float(g) for d, g in docs.items()}
                        for q, docs in run.dataset.qrels.items()}
    return obj


def export_json(run: Run, *, include_qrels: bool = False,
                include_dataset: bool = False) -> bytes:
    """The run as a UTF-8 JSON file (for a download button)."""
    return json.dumps(run_to_json_obj(run, include_qrels=include_qrels,
                                      include_dataset=include_dataset),
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def export_trec(run: Run) -> str:
    """The run's ranking as a TREC run file (``qid Q0 docno rank score tag``)."""
    tag = re.sub(r"[^A-Za-z0-9_.\-]+", "_", run.name).strip("_") or "ragdash"
    return run.ranking.to_trec_string(tag=tag)


def import_json(store: RunStore, data: bytes | str | Mapping, *,
                dataset: Dataset | None = None, name: str | None = None,
                filename: str = "run.json") -> str:
    """Save an exported run into ``store`` (see :func:`run_from_json_obj`); returns the new
    run id."""
    return store.save(run_from_json_obj(store, data, dataset=dataset, name=name,
                                        filename=filename))


def run_from_json_obj(store: RunStore, data: bytes | str | Mapping, *,
                      dataset: Dataset | None = None, name: str | None = None,
                      filename: str = "run.json") -> Run:
    """An exported run as an unsaved :class:`Run` (``source="import"``).

    The dataset is, in order: the one embedded in the file; the store's copy with the same
    fingerprint; ``dataset`` if its fingerprint matches; a dataset of ids built from the
    file's qrels. Anything else raises :class:`RunStoreError` saying which dataset to load.
    """
    obj = _parse(data, filename)
    try:
        ranking = Ranking.from_json_obj(obj["ranking"])
        meta = obj.get("dataset") or {}
        target = _resolve_dataset(store, obj, meta, meta.get("fingerprint"), dataset, filename)
        return Run.of_ranking(
            target, ranking, kmax=int(obj.get("kmax") or max(ranking.kmax, 1)),
            query_ids=[str(q) for q in obj.get("query_ids") or []] or None,
            name=str(name or obj.get("name") or ""), config=dict(obj.get("config") or {}),
            usage=dict(obj.get("usage") or {}), retriever=str(obj.get("retriever") or "unknown"),
            model=obj.get("model"), relevance_level=obj.get("relevance_level"),
            gain=obj.get("gain") or "linear", seconds=obj.get("seconds"),
            timings=dict(obj.get("timings") or {}), resources=dict(obj.get("resources") or {}),
            parents=[str(p) for p in obj.get("parents") or []],
            created_at=str(obj.get("created_at") or "") or now_iso(),
            cost=obj.get("cost"), source="import")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise dataset_error("export.incomplete", file=filename, kind=type(exc).__name__,
                            exc=exc) from exc


def _parse(data: bytes | str | Mapping, filename: str) -> dict:
    if isinstance(data, Mapping):
        obj = dict(data)
    else:
        if isinstance(data, bytes):
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise dataset_error("export.not_utf8", file=filename) from exc
        # invalid JSON, deep nesting, long ints: one sentence naming the file
        obj = parse_json_text(data, file=filename, about="export")
    if not isinstance(obj, dict) or obj.get("format") != EXPORT_FORMAT:
        raise dataset_error("export.not_export", file=filename)
    if int(obj.get("version", 0)) > EXPORT_VERSION:
        raise dataset_error("export.newer", file=filename, version=obj.get("version"),
                            most=EXPORT_VERSION)
    return obj


def _resolve_dataset(store: RunStore, obj: Mapping, meta: Mapping, fp: str | None,
                     dataset: Dataset | None, filename: str) -> Dataset:
    if meta.get("content"):
        embedded = dataset_from_json_obj(meta["content"])
        if fp and embedded.fingerprint() != fp:
            raise dataset_error("export.fingerprint", file=filename)
        return embedded
    if fp and store.has_dataset(fp):
        return store.dataset(fp)
    if dataset is not None and fp and dataset.fingerprint() == fp:
        return dataset
    if obj.get("qrels"):
        return _ids_only_dataset(obj, meta)
    name = meta.get("name", "?")
    if dataset is not None:
        raise error(RunStoreError, "export.other_dataset", name=name, fp=str(fp)[:12],
                    loaded=dataset.name)
    raise error(RunStoreError, "export.dataset_not_loaded", name=name)


def _ids_only_dataset(obj: Mapping, meta: Mapping) -> Dataset:
    qrels = {str(q): {str(d): float(g) for d, g in docs.items()}
             for q, docs in obj["qrels"].items()}
    ranking = obj["ranking"]["queries"]
    qids = list(dict.fromkeys([*map(str, obj.get("query_ids") or []), *map(str, qrels)]))
    dids = dict.fromkeys(d for docs in qrels.values() for d in docs)
    for pairs in ranking.values():
        dids.update(dict.fromkeys(str(d) for d, _ in pairs))
    return Dataset(documents=[Document(id=d, text="") for d in dids],
                   queries=[Query(id=q, text="") for q in qids], qrels=qrels,
                   name=f"{meta.get('name', 'dataset')} (ids only)",
                   source="run export",
                   notes=["made from a run export's qrels: ids without texts"])


def import_trec(store: RunStore, raw: bytes | str, *, dataset: Dataset,
                name: str | None = None, filename: str = "run.txt",
                kmax: int = DEFAULT_TREC_KMAX) -> str:
    """Score a TREC run file from another engine against ``dataset`` and save it (see
    :func:`run_from_trec`); returns the new run id."""
    return store.save(run_from_trec(raw, dataset=dataset, name=name, filename=filename,
                                    kmax=kmax))


def run_from_trec(raw: bytes | str | os.PathLike, *, dataset: Dataset, name: str | None = None,
                  filename: str = "run.txt", kmax: int = DEFAULT_TREC_KMAX) -> Run:
    """A TREC run file (``qid Q0 docno rank score tag``: its bytes, or its path, read in
    blocks) as an unsaved :class:`Run` on ``dataset`` (``source="trec"``).

    The evaluated queries are those in both the run and the qrels (trec_eval's default). The
    ranking is cut at ``kmax``. Raises :class:`DatasetError` when no query id matches.
    """
    if isinstance(raw, os.PathLike):
        ranking = Ranking.read_trec(raw, name=name or _stem(filename))
    else:
        ranking = Ranking.parse_trec(raw, source=filename, name=name or _stem(filename))
    query_ids = [q for q in ranking.query_ids if q in dataset.qrels]
    if not query_ids:
        sample = ", ".join(repr(q) for q in ranking.query_ids[:3])
        raise dataset_error("trec.no_query_matches", file=filename, n=len(ranking),
                            sample=sample, dataset=repr(dataset.name))
    known = set(dataset.doc_index)
    if not any(str(d) in known for d in ranking.doc_ids[:10_000]):
        raise dataset_error("trec.no_doc_matches", file=filename, dataset=repr(dataset.name))
    kmax = max(1, min(int(kmax), max(ranking.kmax, 1)))
    return Run.of_ranking(dataset, ranking.truncate(kmax), kmax=kmax, query_ids=query_ids,
                          name=name or _stem(filename),
                          config={"retriever": "trec", "file": filename}, retriever="trec",
                          source="trec")


def read_run_file(path: str | os.PathLike, *, name: str | None = None) -> Ranking:
    """A TREC run file, or a ragdash run JSON (a ranking, or a saved run that holds one)."""
    p = Path(path)
    try:
        require_regular_file(p)
        with p.open("rb") as f:
            head = f.read(1024)
        if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (b"{", b"["):
            return Ranking.read_trec(p, name=name or p.stem)  # in blocks, within the limits
        longest = max_json_bytes()
        with p.open("rb") as f:
            raw = f.read(longest + 1)
    except OSError as exc:
        raise dataset_error("cli.cannot_read_run", file=str(p), reason=exc.strerror) from exc
    if len(raw) > longest:
        raise dataset_error("load.json_too_big", file=str(p), mb=shown_mb(longest),
                            env=MAX_JSON_ENV, suggest=int(longest / MB * 2))
    try:
        obj = parse_json_text(raw.decode("utf-8-sig"), file=str(p),  # long ints, deep nesting
                              about="run")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise dataset_error("cli.run_json_unparsable", file=str(p), line=line) from exc
    if isinstance(obj, dict) and isinstance(obj.get("ranking"), dict):
        obj = obj["ranking"]
    if not (isinstance(obj, dict) and isinstance(obj.get("queries"), dict)):
        raise dataset_error("cli.run_json_no_queries", file=str(p))
    try:
        ranking = Ranking.from_json_obj(obj)
    except (TypeError, ValueError) as exc:
        raise dataset_error("cli.run_json_bad_queries", file=str(p)) from exc
    ranking.name = name or p.stem
    return ranking


def _stem(filename: str) -> str:
    base = str(filename).replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base
