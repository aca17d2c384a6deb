"""TREC run files (``qid Q0 docno rank score tag``) as byte columns, read vectorized.

:func:`read_columns` (a file) and :func:`parse_columns` (bytes in memory) return three
parallel columns in file order: query ids and doc ids as numpy ``S`` arrays (UTF-8 bytes) and
scores as float64. :class:`ragdash.Ranking` turns them into a ranking in trec_eval's order.

The text is read in blocks of whole lines, each parsed over its raw bytes with no Python loop
per line; a block the fast path is unsure about (odd control bytes, very long ids, a bad line)
goes line by line, and a bad line raises a :class:`~ragdash.errors.DatasetError` naming it.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ..errors import DatasetError, Said, with_id
from .files import require_regular_file
from .words import ascii_space, finite_numbers, gather_field, records_on_own_lines, word_bounds

__all__ = ["CHUNK_BYTES", "first_unsafe_id", "parse_columns", "read_columns", "unsafe_id_error"]

#: what splits a TREC line into columns (trec_eval's and this reader's ASCII whitespace)
_COLUMN_BREAK = re.compile(r"[ \t\n\r\v\f]")


def first_unsafe_id(ids) -> str | None:
    """The first id a TREC run file cannot hold (empty, or with ASCII whitespace, which would
    split it into more columns), else None."""
    search = _COLUMN_BREAK.search
    for x in ids:
        if not x or search(x):
            return x
    return None


def unsafe_id_error(kind: str, id_: str, *, file: str | None = None,
                    fix: str | None = None) -> DatasetError:
    """The sentence for a ``kind`` ("query" / "document") id a TREC run cannot hold. With the
    default fix it carries a message id (``trec.id_empty`` / ``trec.id_whitespace``); a
    caller's own ``fix`` (the command line's, naming its flags) stays English."""
    what = "is empty" if not id_ else "contains whitespace"
    exc = DatasetError(f"the {kind} id {id_!r} {what}, which a TREC run file cannot hold (its "
                       f"columns are split on whitespace, so the file would not read back)",
                       file=file, fix=fix or "remove spaces and tabs from the ids in the "
                                             "dataset, or keep the run in ragdash's JSON "
                                             "export or run store, which hold any id")
    if fix:
        return exc
    kind_id = {"query": "trec.kind.query", "document": "trec.kind.document"}.get(kind)
    params = {"kind": Said(kind_id, kind) if kind_id else kind, "id": repr(id_)}
    if not id_:
        return with_id("trec.id_empty", exc, **params)
    return with_id("trec.id_whitespace", exc, **params)


def read_columns(path: str | os.PathLike, source: str | None = None):
    """``(qids, docnos, scores)`` of the run file at ``path``; OSError propagates, and a
    path that is not a regular file (a FIFO would wait forever) is a DatasetError."""
    require_regular_file(path)
    with open(path, "rb") as f:
        return parse_chunks(file_chunks(f), source or str(path))


def parse_columns(data: bytes, source: str = "run"):
    """``(qids, docnos, scores)`` of run text held in memory."""
    return parse_chunks(memory_chunks(data), source)


#: bytes per block when parsing run files (whole lines; the last line may run over)
CHUNK_BYTES = 1 << 20


def memory_chunks(data: bytes):
    """Blocks of whole lines of ``data``, as zero-copy memoryviews."""
    view = memoryview(data)
    pos, n = 0, len(data)
    while pos < n:
        end = min(pos + CHUNK_BYTES, n)
        if end < n:
            cut = data.rfind(b"\n", pos, end)
            if cut < 0:
                cut = data.find(b"\n", end)
            end = n if cut < 0 else cut + 1
        yield view[pos:end]
        pos = end


def file_chunks(f):
    """Blocks of whole lines read from binary file ``f``."""
    carry = b""
    while True:
        block = f.read(CHUNK_BYTES)
        if not block:
            break
        if carry:
            block = carry + block
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            carry = block
            continue
        carry = block[cut:]
        yield memoryview(block)[:cut]
    if carry:
        yield memoryview(carry)


def parse_chunks(chunks, source: str):
    """(qids, docnos, scores) over all blocks; line numbers in errors count from the top."""
    parts = []
    lines_before = 0
    for i, chunk in enumerate(chunks):
        if i == 0 and chunk[:3] == b"\xef\xbb\xbf":
            chunk = chunk[3:]
        buf = np.frombuffer(chunk, dtype=np.uint8)
        if len(buf) and buf.max() >= 0x80:
            try:
                bytes(chunk).decode("utf-8")
            except UnicodeDecodeError as exc:
                line = lines_before + bytes(chunk[: exc.start]).count(b"\n") + 1
                raise with_id("trec.not_unicode", DatasetError(
                    "the run file is not UTF-8 text", file=source, line=line,
                    fix="save it as UTF-8")) from exc
        columns = _trec_columns_fast(buf) if len(buf) else None
        if columns is None:
            columns = _trec_columns_by_line(bytes(chunk), source, lines_before)
        if len(columns[2]):
            parts.append(columns)
        lines_before += int(np.count_nonzero(buf == 0x0A))
    if not parts:
        raise with_id("trec.empty", DatasetError(
            "the run file is empty", file=source,
            fix="give a TREC run file: qid Q0 docno rank score tag"))
    if len(parts) == 1:
        return parts[0]
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))


def _trec_columns_fast(buf: np.ndarray):
    """(qids, docnos, scores) from the raw bytes, vectorized; None if unsure."""
    space = ascii_space(buf)
    if space is None:
        return None  # NUL or another control byte: let the line parser decide
    gaps = np.flatnonzero(space)
    if len(gaps) and not space[0] and np.all(np.diff(gaps) > 1):
        # The usual layout: words separated by single bytes (one space, one newline).
        starts = np.concatenate([[0], gaps + 1])
        ends = np.append(gaps, len(buf))
        if space[-1]:
            starts, ends = starts[:-1], ends[:-1]
        if len(starts) % 6:
            return None
        # Six words per line: the gap after every 6th word is a newline, no other gap is.
        newline_after = buf[ends[:-1]] == 0x0A
        expected = np.zeros(len(newline_after), dtype=bool)
        expected[5::6] = True
        if not np.array_equal(newline_after, expected):
            return None
    else:
        starts, ends = word_bounds(space)
        if len(starts) % 6:
            return None
        if not len(starts):
            return np.empty(0, dtype="S1"), np.empty(0, dtype="S1"), np.empty(0)
        if not records_on_own_lines(buf, starts, 6):
            return None
    fields = [gather_field(buf, starts[j::6], ends[j::6]) for j in (0, 2, 4)]
    if any(f is None for f in fields):
        return None
    qcol, dcol, score_text = fields
    scores = finite_numbers(score_text)
    if scores is None:
        return None
    return qcol, dcol, scores


def _trec_columns_by_line(data: bytes, source: str, lines_before: int = 0):
    """(qids, docnos, scores), line by line; a bad line raises a DatasetError naming it."""
    qcol, dcol, scores = [], [], []
    for n, line in enumerate(data.split(b"\n"), start=lines_before + 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            raise with_id("trec.columns", DatasetError(
                f"expected 6 columns (qid Q0 docno rank score tag), found {len(parts)}",
                file=source, line=n,
                fix="write one result per line as: qid Q0 docno rank score tag"), n=len(parts))
        if b"\0" in line:
            raise with_id("trec.nul", DatasetError(
                "the line contains a NUL byte", file=source, line=n,
                fix="give a text file, not a binary one"))
        try:
            score = float(parts[4])
        except ValueError:
            score = float("nan")
        if not np.isfinite(score):
            shown = repr(parts[4].decode("utf-8", "replace"))
            raise with_id("trec.bad_score", DatasetError(
                f"score {shown} is not a finite number", file=source, line=n,
                fix="the fifth column must be a number"), score=shown)
        qcol.append(parts[0])
        dcol.append(parts[2])
        scores.append(score)
    return (np.array(qcol, dtype=bytes), np.array(dcol, dtype=bytes),
            np.array(scores, dtype=np.float64))
