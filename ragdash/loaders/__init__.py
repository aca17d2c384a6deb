"""Load datasets and qrels from the formats people have.

    load_dataset(path, *, split="test")      a .json article file, a BEIR folder or .zip, a
                                             folder or .zip of corpus / queries / qrels tables
    load_tables(corpus=, queries=, qrels=)   three table files (CSV, TSV, JSONL, TREC qrels)
    load_uploads(files, *, split="test")     what the app's uploader hands over: (name, bytes)
    load_qrels(path)                         TREC qrels, BEIR qrels .tsv, a qrels table

Modules: :mod:`.article_json` (the article's format), :mod:`.tables` (CSV / TSV / JSONL and the
lenient column matching), :mod:`.trec_qrels` (qrels alone), :mod:`.detect` (what a folder, a zip
or an upload holds), :mod:`._source` (files, zips, decoding), :mod:`._values` (ids, grades, the
duplicate policy), :mod:`.writers` (BEIR out).

Decisions, stated once:

- Every id is a string (see :mod:`._values`). Grades are finite floats; fractional grades are
  kept. A non-numeric grade is a DatasetError naming the file and line.
- Duplicates: an exact repeat is dropped with a warning; the same id with different content is
  a DatasetError naming both lines (see :mod:`._values`).
- Encodings: UTF-8 with or without BOM; UTF-16 with BOM; Shift_JIS / CP932 and EUC-JP
  detected (charset-normalizer over the first 1 MB, confirmed over the whole file) and
  decoded, with a note (see :mod:`._source`).
- Quoting: a tab-separated file whose stray ``"`` would merge lines is read unquoted when
  that gives one row per line, with a warning (see :mod:`.tables`).
- What a loader decided (column mapping, split, encoding, dropped repeats) is in
  ``Dataset.notes``; :func:`column_mappings` returns the table mappings as objects.

Every malformed input raises :class:`~ragdash.errors.DatasetError` naming the file, the line or
record, and the fix.

Limits (:func:`read_limits`; see :mod:`._source`): one line at most ``RAGDASH_MAX_LINE_MB``
(16) MB in any text file; a .zip's members together, and a .gz file, unzip to at most
``RAGDASH_MAX_UNZIPPED_MB`` (2,048) MB; a JSON document (read whole) at most
``RAGDASH_MAX_JSON_MB`` (512) MB. Past any, one sentence names the file (the member) and how to
raise the limit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..dataset import Dataset
from ..memory import collector_paused
from . import tables as _tables
from ._json import parse_json_text
from ._source import (
    MAX_JSON_ENV,
    MAX_LINE_ENV,
    MAX_UNZIPPED_ENV,
    MB,
    Source,
    max_json_bytes,
    max_line_bytes,
    max_unzipped_bytes,
)
from .detect import load_path, load_table_files, load_upload_files
from .notes import LoadNote
from .tables import ALIASES, TableMapping
from .trec_qrels import load_qrels
from .writers import write_beir

ColumnOverrides = Mapping[str, Mapping[str, "str | None"]]

__all__ = ["ALIASES", "MAX_JSON_ENV", "MAX_LINE_ENV", "MAX_UNZIPPED_ENV", "LoadNote", "Source",
           "TableMapping", "column_mappings", "inspect_tables", "load_dataset", "load_qrels",
           "load_tables", "load_uploads", "parse_json_text", "read_limits", "write_beir"]


def read_limits() -> dict[str, float]:
    """The reading limits in force, in MB: ``{"line_mb", "unzipped_mb", "json_mb"}`` (from
    ``RAGDASH_MAX_LINE_MB``, ``RAGDASH_MAX_UNZIPPED_MB`` and ``RAGDASH_MAX_JSON_MB``; a
    DatasetError when one is set to something that is not a positive number)."""
    return {"line_mb": max_line_bytes() / MB, "unzipped_mb": max_unzipped_bytes() / MB,
            "json_mb": max_json_bytes() / MB}


def load_dataset(path: str | os.PathLike, *, split: str = "test",
                 mapping: ColumnOverrides | None = None) -> Dataset:
    """Load a dataset from a path, detecting the format (see :mod:`.detect`).

    ``split`` picks ``qrels/<split>.tsv`` in a BEIR layout; ``mapping`` overrides the column
    choice for tables, e.g. ``{"corpus": {"text": "本文"}}``.
    """
    with collector_paused():
        return load_path(path, split=split, mapping=mapping)


def load_tables(corpus: Any, queries: Any, qrels: Any, *,
                mapping: ColumnOverrides | None = None) -> Dataset:
    """Load three tables (paths, or ``(name, bytes)`` pairs).

    Columns are matched leniently (:data:`ALIASES`); the choice is in ``Dataset.notes`` and in
    :func:`column_mappings`; ``mapping`` overrides it per table and role:
    ``{"corpus": {"id": ..., "text": ..., "title": ... or None}, "queries": {"id", "text"},
    "qrels": {"query_id", "doc_id", "grade" (None: every pair has grade 1)}}``.
    """
    with collector_paused():
        return load_table_files(corpus, queries, qrels, mapping=mapping)


def load_uploads(files: list[tuple[str, bytes]], *, split: str = "test",
                 mapping: ColumnOverrides | None = None) -> Dataset:
    """Load what the app's uploader received: one .zip, one article .json, or several tables.

    Tables are classified by name (corpus / queries / qrels, ``test.tsv``), then by content.
    """
    with collector_paused():
        return load_upload_files(files, split=split, mapping=mapping)


def inspect_tables(corpus: Any = None, queries: Any = None, qrels: Any = None, *,
                   mapping: ColumnOverrides | None = None) -> dict[str, TableMapping]:
    """The column mapping each given table would get, reading only its first lines.

    For the app: show the choice and let the user override it before loading.
    """
    out = {}
    mapping = mapping or {}
    for kind, x in (("corpus", corpus), ("queries", queries), ("qrels", qrels)):
        if x is None:
            continue
        if isinstance(x, tuple):
            src = Source.from_bytes(str(x[0]), bytes(x[1]))
        else:
            src = Source.from_path(x)
        out[kind] = _tables.inspect_table(kind, src, mapping.get(kind))
    return out


def column_mappings(dataset: Dataset) -> dict[str, TableMapping]:
    """The column mappings the loader chose for ``dataset`` (empty for the article's JSON)."""
    return _tables.column_mappings(dataset.notes)
