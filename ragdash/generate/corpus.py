"""A corpus to write queries from: documents, and the source each came from.

What ``read_corpus(path)`` reads:

- **a table** (``.jsonl``, ``.csv``, ``.tsv``, ``.json``; a BEIR ``corpus.jsonl``): one
  document a row, columns matched as for any ragdash corpus (id, text, title). A ``source``
  column (also ``file``, ``filename``, ``path``, ``folder``) names each row's source;
  without one the file is the source.
- **a text file** (``.txt``, ``.md``): cut into passages of ``passage_tokens`` tokens
  (``--chunk-size``) with the chunker of :mod:`ragdash.retrieval.chunking`; passage ``n`` of
  ``guide/a.md`` has the id ``guide/a.md#n`` and the file's name as its title.
- **a folder** (or a ``.zip``): every table and text file in it, each its own source (its
  path inside the folder, so sub-folders are sources too: sampling spreads across folders,
  then across the files in each). Files named as queries or qrels (``queries.jsonl``,
  ``qrels/test.tsv``) are not corpus and are left out.

Ids from several files that collide are prefixed by their file's path (said in the notes).
An empty corpus, or one of a single document, is one sentence (:class:`DatasetError`), and so
is an id with a control character (a tab, a line break, NUL, ESC, … — from a JSON string, a
quoted CSV field or a file's name): the set written from it keeps ids in
``qrels/test.tsv``, which no reader could split back, so the id is refused by name rather
than escaped into another id.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

from ..dataset import Document
from ..i18n import dataset_error, text
from ..loaders import Source
from ..loaders._source import decode_all, folder_sources, open_zip, zip_sources
from ..loaders.detect import classify_name
from ..loaders.notes import LoadLog
from ..loaders.tables import Table, normalize_column, read_documents
from .settings import DEFAULT_CHUNK_TOKENS

__all__ = ["SOURCE_COLUMNS", "TABLE_EXTS", "TEXT_EXTS", "Corpus", "read_corpus",
           "read_corpus_sources"]

TABLE_EXTS = (".jsonl", ".ndjson", ".csv", ".tsv", ".tab", ".json")
TEXT_EXTS = (".txt", ".md", ".markdown", ".rst")
#: column names that say which source a row comes from (matched after normalize_column)
SOURCE_COLUMNS = ("source", "file", "filename", "path", "folder")
#: what an id may not hold: C0 controls (tab and line breaks too), DEL, C1
_ID_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


@dataclass
class Corpus:
    """Documents in file order, ``sources[i]`` naming where document ``i`` came from."""

    documents: list[Document]
    sources: list[str]
    name: str = "corpus"
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.documents)

    def lengths(self) -> np.ndarray:
        """Characters of each document's title and text."""
        return np.fromiter((len(d.title) + len(d.text) for d in self.documents), np.int64,
                           len(self.documents))

    def source_counts(self) -> dict[str, int]:
        names, counts = np.unique(np.asarray(self.sources, dtype=object).astype(str),
                                  return_counts=True)
        return dict(zip(names.tolist(), counts.tolist()))


def read_corpus(path: str | os.PathLike, *,
                passage_tokens: int = DEFAULT_CHUNK_TOKENS) -> Corpus:
    """The corpus at ``path`` (a table, a text file, a folder or a .zip; module docstring)."""
    p = Path(path)
    if not p.exists():
        raise dataset_error("load.no_such_path", file=str(p))
    if p.is_dir():
        return read_corpus_sources(folder_sources(p), name=p.resolve().name,
                                   passage_tokens=passage_tokens, container=str(p))
    if p.suffix.lower() == ".zip":
        zf = open_zip(p, str(p))
        with zf:
            return read_corpus_sources(zip_sources(zf, str(p)), name=p.stem,
                                       passage_tokens=passage_tokens, container=str(p))
    return read_corpus_sources([Source.from_path(p)], name=p.stem,
                               passage_tokens=passage_tokens, container=str(p))


def read_corpus_sources(sources: list[Source], *, name: str = "corpus",
                        passage_tokens: int = DEFAULT_CHUNK_TOKENS,
                        container: str = "") -> Corpus:
    """The corpus in ``sources`` (files of a folder, a zip, or uploads)."""
    wanted = [s for s in sources if _is_corpus_file(s, alone=len(sources) == 1)]
    log = LoadLog()
    per_file: list[tuple[str, list[Document], list[str]]] = []
    for src in wanted:
        if src.ext in TEXT_EXTS:
            docs = _text_passages(src, passage_tokens)
            per_file.append((src.path, docs, [src.path] * len(docs)))
        else:
            docs, labels = _table_documents(src, log)
            per_file.append((src.path, docs, labels))
    documents, labels = _merge(per_file, log)
    if not documents:
        raise dataset_error("generate.empty_corpus", file=container or name)
    if len(documents) < 2:
        raise dataset_error("generate.one_document", file=container or name)
    files = [path for path, docs, _ in per_file for _ in docs]  # _merge keeps this order
    for doc, path in zip(documents, files):
        if _ID_CONTROL.search(doc.id):
            raise dataset_error("generate.bad_id", file=path or container or name,
                                id=repr(doc.id))
    return Corpus(documents, labels, name=name, notes=log.notes)


def _is_corpus_file(src: Source, *, alone: bool) -> bool:
    if src.ext not in TABLE_EXTS + TEXT_EXTS:
        return False
    parts = PurePosixPath(src.path).parts
    if PurePosixPath(src.path).stem.lower() in ("manifest", "readme", "license"):
        return False
    if alone:
        return True
    return "qrels" not in [x.lower() for x in parts[:-1]] \
        and classify_name(src) not in ("queries", "qrels")


def _text_passages(src: Source, passage_tokens: int) -> list[Document]:
    from ..retrieval.chunking import chunk_spans

    body, _ = decode_all(src)
    spans, _ = chunk_spans(body, passage_tokens)
    title = PurePosixPath(src.path).name
    out = []
    for start, end, _tokens in spans:
        passage = body[start:end].strip()
        if passage:
            out.append(Document(f"{src.path}#{len(out)}", passage, title))
    return out


def _table_documents(src: Source, log: LoadLog) -> tuple[list[Document], list[str]]:
    table = Table(src)
    docs, mapping = read_documents(src, log, kind="corpus", table=table)
    column = next((c for c in mapping.columns
                   if normalize_column(c) in SOURCE_COLUMNS
                   and c not in mapping.chosen.values()), None)
    if column is None or not mapping.header:
        return docs, [src.path] * len(docs)
    labels = []
    position = mapping.columns.index(column)
    for _line, _record, row in table.records(header=mapping.header):
        value = row.get(column) if isinstance(row, dict) else (
            row[position] if position < len(row) else "")
        label = str(value).strip() if value is not None else ""
        labels.append(label or src.path)
    if len(labels) != len(docs):  # exact repeats were dropped: fall back to the file
        return docs, [src.path] * len(docs)
    log.note(text("generate.source_column", file=src.path, column=column))
    return docs, labels


def _merge(per_file, log: LoadLog) -> tuple[list[Document], list[str]]:
    """One list of documents; ids that collide across files get their file's path."""
    seen: dict[str, str] = {}
    clash = False
    for path, docs, _ in per_file:
        for d in docs:
            if seen.setdefault(d.id, path) != path:
                clash = True
                break
    documents: list[Document] = []
    labels: list[str] = []
    for path, docs, file_labels in per_file:
        if clash and not all(d.id.startswith(f"{path}#") for d in docs):
            docs = [Document(f"{path}:{d.id}", d.text, d.title) for d in docs]
        documents += docs
        labels += file_labels
    if clash:
        log.note(text("generate.ids_prefixed", n=len(per_file)))
    return documents, labels
