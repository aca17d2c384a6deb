"""Values and collections every loader shares: ids, grades, texts, and the duplicate policy.

Ids: every id is a string. A string is kept as written (surrounding whitespace stripped); a
JSON integer 7 becomes "7" and an integral JSON float 7.0 becomes "7" too, so a corpus.jsonl
with numeric ids matches a qrels .tsv that writes them as text. Tables are read as text
(never through a float column), so "1" and "1.0" in a CSV are different ids, as written.

Grades: any finite number, kept as a float (the article's 0.8 / 0.9 stay fractional). A grade
that is not a number (or NaN / infinity) is a DatasetError naming the file and line.

Duplicates (the policy, decided once): a repeated record that says exactly the same thing (same
id and same text; same query, document and grade) is dropped, the first kept, and reported as
a warning in the validation report. A repeated id that says something different (another
text, another grade) is ambiguous: the load fails with a DatasetError naming both lines.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..dataset import Document, Qrels, Query
from ..i18n import dataset_error, text
from .notes import LoadLog

EXAMPLES = 5


def norm_id(value: Any, *, what: str, file: str, line: int | None = None,
            record: str | None = None) -> str:
    """An id as a string: str stripped, int as digits, integral float as an int."""
    if isinstance(value, str):
        text = value.strip()
    elif isinstance(value, bool) or value is None:
        text = None
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, float) and math.isfinite(value):
        text = str(int(value)) if value.is_integer() else repr(value)
    else:
        text = None
    if text is None:
        raise dataset_error("load.id_not_string", file=file, line=line, record=record,
                            what=what_said(what), value=_describe(value))
    if not text:
        raise dataset_error("load.id_empty", file=file, line=line, record=record,
                            what=what_said(what))
    return text


def parse_grade(value: Any, *, file: str, line: int | None = None,
                record: str | None = None) -> float:
    """A relevance grade as a finite float."""
    grade: float | None = None
    if isinstance(value, bool) or value is None:
        grade = None
    elif isinstance(value, (int, float)):
        grade = float(value)
    elif isinstance(value, str):
        try:
            grade = float(value.strip())
        except ValueError:
            grade = None
    if grade is None or not math.isfinite(grade):
        if isinstance(value, (str, float)) and not isinstance(value, bool):
            shown = text("load.grade_shown", value=repr(value))
        else:
            shown = text("load.grade_kind", kind=_describe(value))
        raise dataset_error("load.grade_not_number", file=file, line=line, record=record,
                            shown=shown)
    return grade


def text_value(value: Any, *, what: str, file: str, line: int | None = None,
               record: str | None = None) -> str:
    """A text field: str as is, null as "", a number as its digits; anything else fails."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise dataset_error("load.text_not_string", file=file, line=line, record=record,
                        what=what_said(what),
                        value=_describe(value))


def json_kind(value: Any) -> str:
    """What a JSON value is, for a message: "an object", "a list", "a string", "a number",
    "a boolean" or "null" (another Python type by its name); a phrase with an id."""
    if value is None:
        return text("load.kind.null")
    if isinstance(value, bool):
        return text("load.kind.boolean")
    if isinstance(value, dict):
        return text("load.kind.object")
    if isinstance(value, list):
        return text("load.kind.list")
    if isinstance(value, str):
        return text("load.kind.string")
    if isinstance(value, (int, float)):
        return text("load.kind.number")
    return type(value).__name__


def _describe(value: Any) -> str:
    if value is None:
        return text("load.kind.null")
    if isinstance(value, bool):
        return text("load.kind.boolean_value", value=str(value).lower())
    if isinstance(value, dict):
        return text("load.kind.object")
    if isinstance(value, list):
        return text("load.kind.list")
    if isinstance(value, float):
        return text("load.kind.number_value", value=repr(value))
    if isinstance(value, str):
        return text("load.kind.string_value", value=repr(value))
    return text("load.kind.python", name=type(value).__name__)


#: the fields' names ("query id", ...) that have words in the catalog -> their message ids
WHAT_IDS = {"query id": "load.what.query_id", "document id": "load.what.document_id",
            "query text": "load.what.query_text", "document text": "load.what.document_text",
            "title": "load.what.title", "document": "load.what.document",
            "query": "load.what.query", "corpus id": "load.what.corpus_id",
            "queries id": "load.what.queries_id", "corpus text": "load.what.corpus_text",
            "queries text": "load.what.queries_text"}


def what_said(what: str) -> str:
    """A field's name ("query id", "document text", ...) as a phrase with an id, when the
    catalog has it (:data:`WHAT_IDS`); else as it is."""
    return text(WHAT_IDS[what]) if what in WHAT_IDS else what


# -- collections with the duplicate policy ------------------------------------------------------
Rescan = Callable[[], Iterable[tuple[int, Any]]]


def _first_line(rescan: Rescan | None, key: Any) -> int | None:
    """Find where ``key`` first appeared by reading the file again (error path only)."""
    if rescan is None:
        return None
    for line, k in rescan():
        if k == key:
            return line
    return None


class DocumentsBuilder:
    """Documents or queries in file order, one per id (see the module docstring)."""

    def __init__(self, kind: str, file: str, log: LoadLog, *, rescan: Rescan | None = None):
        self.kind = kind  # "document" or "query"
        self.file = file
        self.log = log
        self.rescan = rescan
        self.items: list[Document] | list[Query] = []
        self._index: dict[str, int] = {}
        self._repeats: list[str] = []
        self._repeat_count = 0

    def add(self, item: Document | Query, line: int | None, record: str | None = None) -> None:
        i = self._index.get(item.id)
        if i is None:
            self._index[item.id] = len(self.items)
            self.items.append(item)  # type: ignore[arg-type]
            return
        if self.items[i] == item:
            self._repeat_count += 1
            if len(self._repeats) < EXAMPLES:
                self._repeats.append(f"{item.id!r} (line {line})" if line else repr(item.id))
            return
        first = _first_line(self.rescan, item.id)
        where = text("load.on_lines", first=first, line=line) if first and line else ""
        raise dataset_error("load.duplicate_id", file=self.file, line=line, record=record,
                            kind=what_said(self.kind), id=item.id, where=where)

    def finish(self) -> list:
        if self._repeat_count:
            plural = "documents" if self.kind == "document" else "queries"
            said = (text("load.repeated_documents", file=self.file, n=self._repeat_count)
                    if plural == "documents" else
                    text("load.repeated_queries", file=self.file, n=self._repeat_count))
            self.log.warn(f"repeated_{plural}", said, count=self._repeat_count,
                          examples=self._repeats)
        return self.items


class QrelsBuilder:
    """Graded judgements, one per (query, document) pair (see the module docstring)."""

    def __init__(self, file: str, log: LoadLog, *, rescan: Rescan | None = None) -> None:
        self.file = file
        self.log = log
        self.rescan = rescan
        self.qrels: Qrels = {}
        self._repeats: list[str] = []
        self._repeat_count = 0

    def add(self, qid: str, did: str, grade: float, line: int | None,
            record: str | None = None) -> None:
        row = self.qrels.get(qid)
        if row is None:
            row = self.qrels[qid] = {}
        old = row.get(did)
        if old is None:
            row[did] = grade
            return
        if old == grade:
            self._repeat_count += 1
            if len(self._repeats) < EXAMPLES:
                self._repeats.append(f"{qid} {did} (line {line})" if line else f"{qid} {did}")
            return
        first = _first_line(self.rescan, (qid, did))
        where = text("where.line", line=first) if first else text("load.earlier_line")
        raise dataset_error("load.grade_twice", file=self.file, line=line, record=record,
                            qid=qid, did=did, old=old, where=where, grade=grade)

    def finish(self) -> Qrels:
        if self._repeat_count:
            self.log.warn("repeated_judgements",
                          text("load.repeated_judgements", file=self.file, n=self._repeat_count),
                          count=self._repeat_count, examples=self._repeats)
        return self.qrels


def numbered(items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
    return ((i, x) for i, x in enumerate(items, start=1))
