"""CSV / TSV / JSONL tables for the corpus, the queries and the qrels, with lenient columns.

Formats, by content first, then by file name:

- JSON Lines (``.jsonl``, ``.ndjson``; any file whose first line starts with ``{``): one
  object per line; columns are the keys of the first object.
- A JSON array of objects (``.json``; first character ``[``).
- Delimited text: ``.tsv`` is tab separated; ``.csv`` and ``.txt`` use the delimiter that the
  header line has most of among comma, tab and semicolon. Standard double-quote quoting, quoted
  fields may span lines. Every cell is read as text, so ids such as "007" or "1" keep their
  spelling and an id column never turns into floats.
- Qrels may also come without a header: three columns (query, document, grade) or four
  (``qid iter docno rel``, the TREC layout) when the last column of the first row is a number.

Columns are matched by name, case-insensitively, with ``-`` and spaces read as ``_`` (see
:data:`ALIASES`, which includes common Japanese headers). The chosen mapping is reported in the
dataset's notes as a :class:`TableMapping` and can be overridden with ``mapping=``, e.g.
``{"corpus": {"text": "本文"}, "qrels": {"grade": None}}``. Qrels without a grade column give
every listed pair grade 1.

The stdlib ``csv`` module does the parsing (not pandas): it streams, it reports the physical
line of each record, and it keeps the command line free of pandas' import time.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..dataset import Document, Qrels, Query
from ..i18n import Joined, dataset_error, text
from . import _json
from ._source import LEGACY_ENCODINGS, Source, TextLines, encoding_label
from ._values import (
    DocumentsBuilder,
    QrelsBuilder,
    json_kind,
    norm_id,
    parse_grade,
    text_value,
)
from .article_json import parse_json_document
from .notes import LoadLog, LoadNote

KINDS = ("corpus", "queries", "qrels")

#: role -> accepted column names in priority order (normalized: lower case, "-"/" " -> "_")
ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "corpus": {
        "id": ("_id", "id", "doc_id", "docid", "document_id", "pid", "passage_id", "corpus_id",
               "docno", "doc_no", "文書id", "ドキュメントid"),
        "text": ("text", "body", "content", "contents", "passage", "document", "doc_text",
                 "passage_text", "context", "paragraph", "本文", "テキスト", "内容", "文書"),
        "title": ("title", "doc_title", "heading", "タイトル", "見出し", "題名", "表題"),
    },
    "queries": {
        "id": ("_id", "id", "query_id", "qid", "queryid", "question_id", "topic_id",
               "クエリid", "質問id"),
        "text": ("text", "query", "question", "query_text", "question_text", "クエリ", "質問",
                 "質問文", "問い"),
    },
    "qrels": {
        "query_id": ("query_id", "qid", "queryid", "query", "topic_id", "topic", "question_id",
                     "クエリid", "質問id"),
        "doc_id": ("doc_id", "corpus_id", "docid", "document_id", "pid", "passage_id",
                   "docno", "doc_no", "doc", "文書id", "ドキュメントid"),
        "grade": ("relevance", "score", "grade", "label", "rel", "relevance_score",
                  "judgement", "judgment", "relevant", "関連度", "スコア", "ラベル", "正解"),
    },
}
REQUIRED = {"corpus": ("id", "text"), "queries": ("id", "text"), "qrels": ("query_id", "doc_id")}
ROLE_WORDS = {"id": "id", "text": "text", "title": "title", "query_id": "query id",
              "doc_id": "document id", "grade": "relevance grade"}
#: each role's name in a sentence (message ids)
ROLE_IDS = {"id": "role.id", "text": "role.text", "title": "role.title",
            "query_id": "role.query_id", "doc_id": "role.doc_id", "grade": "role.grade"}
TREC_COLUMNS = ["qid", "iter", "docno", "rel"]


def normalize_column(name: str) -> str:
    return name.strip().lstrip("\ufeff").strip().lower().replace("-", "_").replace(" ", "_")


@dataclass
class TableMapping:
    """Which column of one table plays which role, and how that was decided."""

    kind: str                                  # "corpus" | "queries" | "qrels"
    file: str
    format: str                                # "csv", "tsv", "jsonl", "json", "trec", ...
    columns: list[str]                         # as the file names them
    chosen: dict[str, str | None]              # role -> column (None: absent)
    overridden: list[str] = field(default_factory=list)  # roles set by the caller
    header: bool = True                        # False: columns are positions
    encoding: str = "utf-8"

    def describe(self) -> str:
        parts = []
        for role, col in self.chosen.items():
            shown = f"'{col}'" if col is not None else "(none)"
            if role in self.overridden:
                shown += " (set by you)"
            parts.append(f"{role} ← {shown}")
        header = "" if self.header else ", no header"
        return f"{self.file} ({self.format}{header}): " + ", ".join(parts)

    def note(self) -> str:
        """:meth:`describe` with message ids (the Data page says it in its language)."""
        parts = []
        for role, col in self.chosen.items():
            if col is None:
                parts.append(text("load.map_none", role=role))
            elif role in self.overridden:
                parts.append(text("load.map_set", role=role, column=f"'{col}'"))
            else:
                parts.append(text("load.map_part", role=role, column=f"'{col}'"))
        if self.header:
            return text("load.mapping", file=self.file, format=self.format, parts=Joined(parts))
        return text("load.mapping_no_header", file=self.file, format=self.format,
                    parts=Joined(parts))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "file": self.file, "format": self.format,
                "columns": list(self.columns), "chosen": dict(self.chosen),
                "overridden": list(self.overridden), "header": self.header,
                "encoding": self.encoding}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TableMapping:
        return cls(kind=d["kind"], file=d["file"], format=d["format"],
                   columns=list(d["columns"]), chosen=dict(d["chosen"]),
                   overridden=list(d.get("overridden", [])), header=d.get("header", True),
                   encoding=d.get("encoding", "utf-8"))


def _set_field_limit() -> None:
    # Passages can exceed csv's default 128 KiB field limit.
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


_set_field_limit()


class QuotingMerged(Exception):
    """Quoting would merge lines ``first``..``last`` (``last`` None: a quote never closes)
    of a tab-separated file that reads as ``rows`` lines (the header included), one row
    per line, without it."""

    def __init__(self, file: str, first: int, last: int | None, rows: int) -> None:
        super().__init__(file, first, last, rows)
        self.file, self.first, self.last, self.rows = file, first, last, rows

    def note(self, rows: int) -> str:
        """The warning: ``rows`` is the number of data rows read unquoted."""
        if self.last is None:
            return text("load.quote_never_closes", file=self.file, first=self.first, n=rows)
        return text("load.quote_merges_lines", file=self.file, first=self.first,
                    last=self.last, n=rows)


@dataclass
class Spanning:
    """Records of a quoted file that span more than one line: how many, the first one's lines,
    and how many lines they take in all."""

    count: int = 0
    first: tuple[int, int] | None = None
    lines: int = 0

    def add(self, first: int, last: int) -> None:
        self.count += 1
        self.lines += last - first + 1
        if self.first is None:
            self.first = (first, last)


class Table:
    """One table file: its format, header and records (streamed)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.file = source.name
        lines = TextLines(source)
        first_line, first_number = None, 0
        for number, line_text in lines:
            if line_text.strip():
                first_line, first_number = line_text, number
                break
        self.encoding = lines.encoding or "utf-8"
        if first_line is None:
            raise dataset_error("table.empty", file=self.file)
        self.first_line = first_line
        self.first_number = first_number
        stripped = first_line.lstrip()
        ext = source.ext
        if stripped.startswith("{") or ext in (".jsonl", ".ndjson"):
            self.format, self.delimiter = "jsonl", None
        elif stripped.startswith("[") or ext == ".json":
            self.format, self.delimiter = "json", None
        elif ext in (".tsv", ".tab"):
            self.format, self.delimiter = "tsv", "\t"
        else:
            counts = {d: first_line.count(d) for d in (",", "\t", ";")}
            best = max(counts, key=lambda d: counts[d])
            if counts[best] == 0:
                self.format, self.delimiter = "whitespace", None
            else:
                self.format = {",": "csv", "\t": "tsv", ";": "csv;"}[best]
                self.delimiter = best
        self._json_records: list[Any] | None = None
        #: False once quoting was found to merge the lines of a tab-separated file
        self.quoted = True
        self.unquoted_checked = False
        #: records of a delimited file that span lines (known after a full read)
        self.spanning = Spanning()
        self.merged: QuotingMerged | None = None
        try:
            self.columns = self._read_columns()
        except QuotingMerged as merged:  # the header itself opened a quote
            self.read_unquoted(merged)
            self.columns = self._read_columns()

    def read_unquoted(self, merged: QuotingMerged) -> None:
        self.quoted = False
        self.merged = merged

    # -- header --------------------------------------------------------------------------
    def _read_columns(self) -> list[str]:
        if self.format == "jsonl":
            obj = _json_line(self.first_line, self.file, self.first_number)
            return [str(k) for k in obj]
        if self.format == "json":
            records = self._load_json_array()
            if not records:
                raise dataset_error("table.json_empty", file=self.file)
            return [str(k) for k in _json_object(records[0], self.file, "[0]")]
        if self.format == "whitespace":
            return self.first_line.split()
        for _line, row in self._delimited_rows():
            return row
        return []  # unreachable: the first line is not blank

    def _load_json_array(self) -> list[Any]:
        if self._json_records is None:
            obj = parse_json_document(self.source, LoadLog())
            if not isinstance(obj, list):
                raise dataset_error("table.not_json_array", file=self.file)
            self._json_records = obj
        return self._json_records

    # -- records -------------------------------------------------------------------------
    def _delimited_rows(self) -> Iterator[tuple[int, list[str]]]:
        """``(first line, cells)`` of every non-blank record.

        Quoting: a cell that starts with ``"`` runs to the next lone ``"``, across lines if
        need be (how Excel writes a cell with a line break). Tab-separated files from IR tools
        (MS MARCO, BEIR's qrels) are never quoted, and a text there that starts with ``"``
        would swallow the lines up to the next cell that ends with one. So when quoting
        merges lines of a tab-separated file (or leaves a quote open), and splitting every
        line at its tabs gives one row per line, each as wide as the header, the file is read
        unquoted, with a warning that names the lines (:class:`QuotingMerged`, raised once
        and handled by the readers). Otherwise records spanning lines are counted in
        :attr:`spanning` so that the reader can say why there are fewer rows than lines.
        """
        if not self.quoted:
            for number, line_text in TextLines(self.source):
                row = line_text.split(self.delimiter or ",")
                if any(cell.strip() for cell in row):
                    yield number, row
            return
        lines = TextLines(self.source, keepends=True)
        reader = csv.reader((text for _, text in lines), delimiter=self.delimiter or ",",
                            strict=True)
        start = 1
        spanning = Spanning()
        while True:
            try:
                row = next(reader)
            except StopIteration:
                self.spanning = spanning
                return
            except csv.Error as exc:
                self._try_unquoted(start, None)
                raise dataset_error("table.bad_record", file=self.file, line=start,
                                    reason=str(exc)) from exc
            line = start
            start = reader.line_num + 1
            if reader.line_num > line:
                self._try_unquoted(line, reader.line_num)
                spanning.add(line, reader.line_num)
            if row and any(cell.strip() for cell in row):
                yield line, row

    def _try_unquoted(self, first: int, last: int | None) -> None:
        """Raise :class:`QuotingMerged` when this tab-separated file reads as one row per
        line without quoting (see :meth:`_delimited_rows`)."""
        if self.delimiter != "\t" or self.unquoted_checked:
            return
        self.unquoted_checked = True
        width, rows = None, 0
        for _number, line_text in TextLines(self.source):
            cells = line_text.split("\t")
            if not any(cell.strip() for cell in cells):
                continue
            while len(cells) > 1 and not cells[-1].strip():
                cells.pop()  # trailing tabs
            if width is None:
                width = len(cells)
            elif len(cells) != width:
                return
            rows += 1
        if width is not None and width > 1:
            raise QuotingMerged(self.file, first, last, rows)

    def records(self, header: bool = True) -> Iterator[tuple[int | None, str | None, Any]]:
        """``(line, record_label, row)``: row is a list (delimited) or a dict (JSON)."""
        if self.format == "jsonl":
            for number, text in TextLines(self.source):
                if text.strip():
                    yield number, None, _json_line(text, self.file, number)
        elif self.format == "json":
            for i, obj in enumerate(self._load_json_array()):
                yield None, f"[{i}]", _json_object(obj, self.file, f"[{i}]")
        elif self.format == "whitespace":
            skip = header
            for number, text in TextLines(self.source):
                parts = text.split()
                if not parts:
                    continue
                if skip:
                    skip = False
                    continue
                yield number, None, parts
        else:
            yield from ((number, None, row) for number, row in self._rows(header))

    def _rows(self, header: bool) -> Iterator[tuple[int, list[str]]]:
        """The delimited records after the header. When quoting turns out to merge lines
        (:class:`QuotingMerged`), the file is read on unquoted from the line after the last
        record given (a reader that needs every row read the same way starts again: see
        :func:`_quoting_settled`)."""
        skip, last = header, 0
        try:
            for number, row in self._delimited_rows():
                if skip:
                    skip = False
                    continue
                last = number
                yield number, row
        except QuotingMerged as merged:
            self.read_unquoted(merged)
            for number, row in self._delimited_rows():
                if skip:
                    skip = False
                    continue
                if number > last:
                    yield number, row


def _json_line(text: str, file: str, line: int) -> dict:
    try:
        obj = _json.loads(text, file=file, line=line)
    except json.JSONDecodeError as exc:
        raise dataset_error("table.bad_json_line", file=file, line=line, reason=exc.msg,
                            column=exc.colno) from exc
    except RecursionError as exc:
        raise dataset_error("table.json_line_deep", file=file, line=line) from exc
    return _json_object(obj, file, None, line)


def _json_object(obj: Any, file: str, record: str | None, line: int | None = None) -> dict:
    if not isinstance(obj, dict):
        kind = json_kind(obj)
        raise dataset_error("table.record_not_object", file=file, line=line, record=record,
                            kind=kind)
    return obj



# -- column matching ---------------------------------------------------------------------------
def match_columns(kind: str, columns: list[str], *, file: str,
                  override: Mapping[str, str | None] | None = None) -> dict[str, str | None]:
    """Choose a column for every role of ``kind``; raise when a required one is missing."""
    roles = ALIASES[kind]
    override = dict(override or {})
    unknown = [r for r in override if r not in roles]
    if unknown:
        raise dataset_error("table.unknown_role", file=file, role=unknown[0], kind=kind,
                            roles=", ".join(roles))
    by_norm: dict[str, str] = {}
    for col in columns:
        by_norm.setdefault(normalize_column(col), col)
    chosen: dict[str, str | None] = {}
    used: set[str] = set()
    for role in roles:
        if role in override:
            want = override[role]
            if want is None or want == "":
                chosen[role] = None
                continue
            col = want if want in columns else by_norm.get(normalize_column(str(want)))
            if col is None:
                raise dataset_error("table.mapping_no_column", file=file, want=want, kind=kind,
                                    role=text(ROLE_IDS[role]), columns=_list(columns))
            chosen[role] = col
            used.add(col)
    for role, aliases in roles.items():
        if role in chosen:
            continue
        chosen[role] = None
        for alias in aliases:
            col = by_norm.get(alias)
            if col is not None and col not in used:
                chosen[role] = col
                used.add(col)
                break
    missing = [r for r in REQUIRED[kind] if chosen.get(r) is None]
    if missing:
        role = missing[0]
        raise dataset_error("table.no_column", file=file, kind=kind,
                            role=text(ROLE_IDS[role]), columns=_list(columns),
                            names=", ".join(roles[role][:6]))
    return {r: chosen[r] for r in roles}


def _list(columns: list[str]) -> str:
    shown = ", ".join(repr(c) for c in columns[:12])
    return shown + (", ..." if len(columns) > 12 else "") if columns else "none"


def _is_number(text: Any) -> bool:
    try:
        float(str(text).strip())
    except ValueError:
        return False
    return True


def plan_table(kind: str, table: Table, override: Mapping[str, str | None] | None = None
               ) -> TableMapping:
    """Decide the mapping for one table (headerless qrels included)."""
    columns = table.columns
    header = True
    fmt = table.format
    if kind == "qrels" and table.format not in ("jsonl", "json"):
        by_norm = {normalize_column(c) for c in columns}
        named = any(a in by_norm for a in ALIASES["qrels"]["query_id"])
        if not named and len(columns) == 6 and _is_number(columns[4]):
            raise dataset_error("table.run_not_qrels", file=table.file,
                                line=table.first_number)
        if not named and len(columns) in (3, 4) and _is_number(columns[-1]):
            header = False
            if len(columns) == 4:
                fmt = "trec" if table.format == "whitespace" else fmt
                columns = TREC_COLUMNS
            else:
                columns = ["query_id", "doc_id", "grade"]
    if kind != "qrels" and table.format == "whitespace":
        raise dataset_error("table.no_delimiter", file=table.file, kind=kind)
    if not header:
        positional = dict(zip(("query_id", "doc_id", "grade"),
                              (columns[0], columns[2], columns[3]) if len(columns) == 4
                              else columns))
        over = dict(override or {})
        chosen: dict[str, str | None] = {r: over.get(r, positional[r]) if r in over
                                         else positional[r] for r in positional}
        overridden = [r for r in over if r in positional]
        return TableMapping(kind, table.file, fmt, list(columns), chosen, overridden,
                            header=False, encoding=table.encoding)
    chosen = match_columns(kind, columns, file=table.file, override=override)
    return TableMapping(kind, table.file, fmt, list(columns), chosen,
                        [r for r in (override or {}) if r in chosen], header=True,
                        encoding=table.encoding)


def _row_getter(table: Table, mapping: TableMapping):
    """A function row -> {role: value} for this table's layout, and a length check."""
    roles = [r for r, c in mapping.chosen.items() if c is not None]
    if table.format in ("jsonl", "json"):
        keys = [(r, mapping.chosen[r]) for r in roles]

        def get(row: dict, line, record) -> dict[str, Any]:
            return {r: row.get(k, MISSING) for r, k in keys}

        return get
    index = {r: mapping.columns.index(mapping.chosen[r]) for r in roles}  # type: ignore[arg-type]
    width = len(mapping.columns)

    def get_cells(row: list[str], line, record) -> dict[str, Any]:
        if len(row) != width:
            extra_blank = len(row) > width and not any(c.strip() for c in row[width:])
            if not extra_blank:
                where = {"file": table.file, "line": line, "width": width}
                if len(row) > width:
                    raise dataset_error("table.row_too_long", fields=len(row), **where)
                if len(row) == 1:
                    raise dataset_error("table.row_one_field", **where)
                raise dataset_error("table.row_too_short", fields=len(row), **where)
        return {r: row[i] for r, i in index.items()}

    return get_cells


MISSING = object()  # a JSON record without the key (null is a value)


def _required(value: Any, role: str, kind: str, col: str | None, file: str, line, record):
    if value is MISSING:
        raise dataset_error("table.missing_field", file=file, line=line, record=record,
                            kind=kind, field=repr(col), role=text(ROLE_IDS[role]))
    return value


def _quoting_settled(read):
    """Run ``read(table, log)``; when quoting turned out to merge lines of a tab-separated
    file part way, read it again, unquoted from the start (see
    :meth:`Table._delimited_rows`), and say so."""

    def reader(source: Source, log: LoadLog, *, table: Table | None = None, **kw):
        table = table or Table(source)
        quoted = table.quoted
        scratch = LoadLog()
        result = read(table, scratch, **kw)
        if quoted and not table.quoted:  # switched part way: every row read the same way
            scratch = LoadLog()
            result = read(table, scratch, **kw)
        log.notes.extend(scratch.notes)
        _note_quoting(log, table, header=result[1].header)
        return result

    reader.__doc__ = read.__doc__
    return reader


def _note_quoting(log: LoadLog, table: Table, *, header: bool) -> None:
    """Why a delimited file has fewer rows than lines, or why it was read unquoted."""
    if table.merged is not None:
        rows = table.merged.rows - (1 if header else 0)
        log.warn("quoting_merged", table.merged.note(rows), count=rows)
    elif table.spanning.count:
        first, last = table.spanning.first or (0, 0)
        said = text("load.rows_span_lines", file=table.file, n=table.spanning.count,
                    first=first, last=last, lines=table.spanning.lines)
        if table.delimiter == "\t":  # IR tools never quote: worth a warning
            log.warn("rows_span_lines", said, count=table.spanning.count)
        else:
            log.note(said, code="rows_span_lines")


@_quoting_settled
def read_documents(table: Table, log: LoadLog, *, kind: str = "corpus",
                   override: Mapping[str, str | None] | None = None
                   ) -> tuple[list, TableMapping]:
    """Documents (kind "corpus") or queries (kind "queries") from one table (a Source, or
    ``table=`` an open :class:`Table`)."""
    mapping = plan_table(kind, table, override)
    get = _row_getter(table, mapping)
    file = table.file
    what = "document" if kind == "corpus" else "query"

    id_col, text_col = mapping.chosen["id"], mapping.chosen["text"]
    id_what, text_what = f"{what} id", f"{what} text"

    def parsed():
        # The usual values (a string id, a string text and title) are taken as they are;
        # anything else goes through norm_id / text_value, which convert or explain it.
        for line, record, row in table.records(header=mapping.header):
            cells = get(row, line, record)
            raw = cells.get("id")
            ident = raw.strip() if type(raw) is str else None
            if not ident:
                ident = norm_id(_required(raw, "id", what, id_col, file, line, record),
                                what=id_what, file=file, line=line, record=record)
            text = cells.get("text")
            if type(text) is not str:
                text = text_value(_required(text, "text", what, text_col, file, line, record),
                                  what=text_what, file=file, line=line, record=record)
            if kind == "corpus":
                title = cells.get("title")
                if type(title) is not str:
                    title = text_value(None if title is MISSING else title, what="title",
                                       file=file, line=line, record=record)
                yield line, record, Document(ident, text, title)
            else:
                yield line, record, Query(ident, text)

    def rescan():
        return ((line, item.id) for line, _, item in parsed())

    builder = DocumentsBuilder(what, file, log, rescan=rescan)
    for line, record, item in parsed():
        builder.add(item, line, record)
    items = builder.finish()
    if not items:
        raise dataset_error("table.no_rows", file=file, kind=kind)
    _note_mapping(log, mapping)
    return items, mapping


@_quoting_settled
def read_qrels_table(table: Table, log: LoadLog, *,
                     override: Mapping[str, str | None] | None = None
                     ) -> tuple[Qrels, TableMapping]:
    """Qrels from one table (a Source, or ``table=`` an open :class:`Table`)."""
    mapping = plan_table("qrels", table, override)
    get = _row_getter(table, mapping)
    file = table.file
    if mapping.format == "trec" or (not mapping.header and len(mapping.columns) == 4):
        get = _trec_getter(table, get)

    def parsed():
        for line, record, row in table.records(header=mapping.header):
            cells = get(row, line, record)
            qid = norm_id(_required(cells.get("query_id"), "query_id", "qrels",
                                    mapping.chosen["query_id"], file, line, record),
                          what="query id", file=file, line=line, record=record)
            did = norm_id(_required(cells.get("doc_id"), "doc_id", "qrels",
                                    mapping.chosen["doc_id"], file, line, record),
                          what="document id", file=file, line=line, record=record)
            if mapping.chosen.get("grade") is None:
                grade = 1.0
            else:
                grade = parse_grade(_required(cells.get("grade"), "grade", "qrels",
                                              mapping.chosen["grade"], file, line, record),
                                    file=file, line=line, record=record)
            yield line, record, qid, did, grade

    def rescan():
        return ((line, (q, d)) for line, _, q, d, _ in parsed())

    builder = QrelsBuilder(file, log, rescan=rescan)
    for line, record, qid, did, grade in parsed():
        builder.add(qid, did, grade, line, record)
    qrels = builder.finish()
    if not qrels:
        raise dataset_error("table.no_judgements", file=file)
    if mapping.chosen.get("grade") is None:
        log.note(text("load.qrels_binary", file=file), code="qrels_binary")
    _note_mapping(log, mapping)
    return qrels, mapping


def _trec_getter(table: Table, get):
    if table.format != "whitespace":
        return get

    def trec(row: list[str], line, record) -> dict[str, Any]:
        if len(row) != 4:
            hint = text("table.looks_trec_run") if len(row) == 6 else ""
            raise dataset_error("table.qrels_columns", file=table.file, line=line, n=len(row),
                                hint=hint)
        return {"query_id": row[0], "doc_id": row[2], "grade": row[3]}

    return trec


def _note_mapping(log: LoadLog, mapping: TableMapping) -> None:
    log.note(mapping.note(), code=f"mapping_{mapping.kind}", data=mapping.to_dict())
    if mapping.encoding in LEGACY_ENCODINGS:
        log.note(text("load.read_as", file=mapping.file,
                      encoding=encoding_label(mapping.encoding)), code="encoding")


def inspect_table(kind: str, source: Source,
                  override: Mapping[str, str | None] | None = None) -> TableMapping:
    """The mapping a load would use, reading only the header (for the app to show)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    return plan_table(kind, Table(source), override)


def column_mappings(notes: list[str]) -> dict[str, TableMapping]:
    """The table mappings a load chose, from ``Dataset.notes`` (kind -> mapping)."""
    out = {}
    for n in notes:
        if isinstance(n, LoadNote) and n.code.startswith("mapping_") and n.data:
            out[n.data["kind"]] = TableMapping.from_dict(n.data)
    return out
