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
from ..errors import DatasetError
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
        raise DatasetError(f"the {what} is {_describe(value)}, not a string or a number",
                           file=file, line=line, record=record,
                           fix=f"give every {what} as a string such as \"d1\"")
    if not text:
        raise DatasetError(f"the {what} is empty", file=file, line=line, record=record,
                           fix=f"give every record a non-empty {what}")
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
            shown = f"the relevance grade {value!r}"
        else:
            shown = f"the relevance grade ({_describe(value)})"
        raise DatasetError(f"{shown} is not a number", file=file,
                           line=line, record=record,
                           fix="write grades as numbers (0 = not relevant, 1, 2, ... or 0.5)")
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
    raise DatasetError(f"the {what} is {_describe(value)}, not a string", file=file, line=line,
                       record=record, fix=f"give the {what} as a string")


def json_kind(value: Any) -> str:
    """What a JSON value is, for a message: "an object", "a list", "a string", "a number",
    "a boolean" or "null" (another Python type by its name)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    return type(value).__name__


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"a {type(value).__name__}"


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
        where = f" on line {first} and line {line}" if first and line else ""
        raise DatasetError(f"{self.kind} id {item.id!r} appears twice{where} with different "
                           "text", file=self.file, line=line, record=record,
                           fix=f"give each {self.kind} a unique id (or delete the duplicate)")

    def finish(self) -> list:
        if self._repeat_count:
            plural = "documents" if self.kind == "document" else "queries"
            self.log.warn(f"repeated_{plural}",
                          f"{self.file}: {self._repeat_count} repeated {plural} (same id, same "
                          "text) were dropped; the first copy is kept",
                          count=self._repeat_count, examples=self._repeats)
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
        where = f"line {first}" if first else "an earlier line"
        raise DatasetError(f"query {qid!r} judges document {did!r} twice with different grades "
                           f"({old:g} on {where}, {grade:g} here)", file=self.file, line=line,
                           record=record, fix="keep one line per (query, document) pair")

    def finish(self) -> Qrels:
        if self._repeat_count:
            self.log.warn("repeated_judgements",
                          f"{self.file}: {self._repeat_count} repeated judgements (same query, "
                          "document and grade) were dropped",
                          count=self._repeat_count, examples=self._repeats)
        return self.qrels


def numbered(items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
    return ((i, x) for i, x in enumerate(items, start=1))
