"""Qrels on their own: TREC qrels, BEIR qrels .tsv, CSV / JSONL tables, pytrec_eval JSON.

Detected from the content:

- ``qid iter docno rel`` on whitespace (TREC; the ``iter`` column is ignored, as trec_eval
  does);
- ``query-id<TAB>corpus-id<TAB>score`` with or without that header (BEIR);
- a CSV / TSV / JSONL table with named columns (see :mod:`ragdash.loaders.tables`);
- a JSON object ``{qid: {docid: grade}}`` (pytrec_eval's and ranx's shape).

A non-numeric grade, a wrong column count or one pair judged twice with different grades is a
DatasetError naming the file and the line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..dataset import Qrels
from ..errors import DatasetError
from ..i18n import dataset_error
from ._source import Source
from ._values import QrelsBuilder, norm_id, parse_grade
from .article_json import parse_json_document
from .notes import LoadLog
from .tables import read_qrels_table


def read_qrels(source: Source, log: LoadLog | None = None,
               override: Mapping[str, str | None] | None = None) -> Qrels:
    """Qrels from one file in any of the formats in the module docstring."""
    log = log if log is not None else LoadLog()
    if source.ext == ".json":
        try:
            obj = parse_json_document(source, log)
        except DatasetError:
            obj = None  # JSON Lines saved as .json: the table reader names the bad line
        if isinstance(obj, dict):
            return _qrels_from_dict(obj, source.name, log)
    qrels, _ = read_qrels_table(source, log, override=override)
    return qrels


def _qrels_from_dict(obj: dict, file: str, log: LoadLog) -> Qrels:
    builder = QrelsBuilder(file, log)
    for q, row in obj.items():
        qid = norm_id(q, what="query id", file=file, record=repr(q))
        if not isinstance(row, dict):
            raise dataset_error("qrels.query_not_object", file=file, record=repr(q), qid=qid)
        for d, g in row.items():
            did = norm_id(d, what="document id", file=file, record=f"{q!r}/{d!r}")
            builder.add(qid, did, parse_grade(g, file=file, record=f"{q!r}/{d!r}"), None)
    qrels = builder.finish()
    if not qrels:
        raise dataset_error("qrels.no_judgements", file=file)
    return qrels


def load_qrels(path: str | os.PathLike) -> Qrels:
    """Read a qrels file (format detected from the content; see the module docstring)."""
    p = Path(path)
    if p.is_dir():
        raise dataset_error("qrels.folder", file=str(p))
    return read_qrels(Source.from_path(p))
