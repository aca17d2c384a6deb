"""TREC run files (``qid Q0 docno rank score tag``) as byte columns, read vectorized.

:func:`read_columns` (a file) and :func:`parse_columns` (bytes in memory) return three
parallel columns in file order: query ids and doc ids as numpy ``S`` arrays (UTF-8 bytes) and
scores as float64 (an id column is an object array of ``bytes`` instead when one id is
far longer than the rest, so that nothing is padded to it). :class:`ragdash.Ranking` turns
them into a ranking in trec_eval's order.

The text is read in blocks of whole lines (4 MB), each parsed over its raw bytes with no
Python loop per line nor per byte: word boundaries from a whitespace mask, the id columns
gathered once, the scores read by :func:`~ragdash.formats.words.decimal_numbers` (exactly as
``strtod``). A block the fast path is unsure about (odd control bytes, a bad line) goes line
by line, and a bad line raises a :class:`~ragdash.errors.DatasetError` naming it.

Limits (:mod:`ragdash.formats.limits`), checked while reading so that time and memory stay
linear in the file's size: the file at most ``RAGDASH_MAX_RUN_MB`` (4,096 MB), one line (and
so one id) at most ``RAGDASH_MAX_LINE_MB`` (16 MB); a NUL byte is refused in the block that
holds it. Each is one sentence naming the file and line.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ..errors import DatasetError, Said, with_id
from .files import require_regular_file
from .limits import (
    MAX_LINE_ENV,
    MAX_RUN_ENV,
    MB,
    max_line_bytes,
    max_run_bytes,
    shown_mb,
    suggest_mb,
)
from .words import (
    as_column,
    ascii_space,
    decimal_numbers,
    fits_padded,
    gather_field,
    records_on_own_lines,
    word_bounds,
)

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
    path that is not a regular file (a FIFO would wait forever) is a DatasetError, as is a
    file past the limits (:mod:`ragdash.formats.limits`)."""
    source = source or str(path)
    require_regular_file(path)
    _check_size(os.stat(path).st_size, source)
    longest = max_line_bytes()
    with open(path, "rb") as f:
        return parse_chunks(file_chunks(f, source, longest), source)


def parse_columns(data: bytes, source: str = "run"):
    """``(qids, docnos, scores)`` of run text held in memory."""
    _check_size(len(data), source)
    return parse_chunks(memory_chunks(data, source, max_line_bytes()), source)


#: bytes per block when parsing run files (whole lines; a longer line makes a longer block)
CHUNK_BYTES = 4 << 20


def _check_size(size: int, source: str) -> None:
    cap = max_run_bytes()
    if size > cap:
        mb, limit = shown_mb(size), shown_mb(cap)
        raise with_id("trec.too_big", DatasetError(
            f"the run file is {mb} MB, over the limit of {limit} MB for a run file",
            file=source, fix=f"if the run really is this large, raise the limit, e.g. "
                             f"{MAX_RUN_ENV}={suggest_mb(size)} (megabytes)"),
            mb=mb, limit=limit, env=MAX_RUN_ENV, suggest=suggest_mb(size))


def _too_long(source: str, line: int, longest: int) -> DatasetError:
    mb, suggest = shown_mb(longest), int(longest / MB * 4)
    return with_id("load.line_too_long", DatasetError(
        f"this line is longer than {mb} MB, the limit on one line (a file cut wrongly, or not "
        f"line-based text)", file=source, line=line,
        fix=f"check the file; if its lines really are this long, raise the limit, e.g. "
            f"{MAX_LINE_ENV}={suggest} (megabytes)"), mb=mb, env=MAX_LINE_ENV, suggest=suggest)


def _nul(source: str, line: int) -> DatasetError:
    return with_id("trec.nul", DatasetError("the line contains a NUL byte", file=source,
                                            line=line, fix="give a text file, not a binary one"))


def _check_lines(chunk, lines_before: int, longest: int, source: str) -> None:
    """A DatasetError naming the first line of ``chunk`` longer than ``longest`` bytes (its
    line feed included), if any."""
    buf = np.frombuffer(chunk, dtype=np.uint8)
    ends = np.append(np.flatnonzero(buf == 0x0A) + 1, len(buf))
    lengths = np.diff(ends, prepend=0)
    over = np.flatnonzero(lengths > longest)
    if len(over):
        raise _too_long(source, lines_before + int(over[0]) + 1, longest)


def memory_chunks(data: bytes, source: str = "run", longest: int | None = None):
    """``(block, lines before it)``: blocks of whole lines of ``data``, as zero-copy
    memoryviews; a NUL byte or a line longer than ``longest`` is a DatasetError, found
    without reading past it."""
    longest = max_line_bytes() if longest is None else longest
    view = memoryview(data)
    pos, n, lines = 0, len(data), 0
    while pos < n:
        end = min(pos + CHUNK_BYTES, n)
        nul = data.find(b"\0", pos, end)
        if nul >= 0:  # said before a line's length: a NUL says "binary" better
            raise _nul(source, lines + data.count(b"\n", pos, nul) + 1)
        if end < n:
            cut = data.rfind(b"\n", pos, end)
            if cut < 0:  # one line longer than a block: look only as far as the limit
                stop = min(n, pos + longest + 1)
                cut = data.find(b"\n", end, stop)
                if cut < 0 and stop < n:
                    raise _too_long(source, lines + 1, longest)
            end = n if cut < 0 else cut + 1
        nul = data.find(b"\0", pos, end)
        if nul >= 0:
            raise _nul(source, lines + data.count(b"\n", pos, nul) + 1)
        if end - pos > longest:
            _check_lines(view[pos:end], lines, longest, source)
        yield view[pos:end], lines
        lines += data.count(b"\n", pos, end)
        pos = end


def file_chunks(f, source: str = "run", longest: int | None = None):
    """``(block, lines before it)``: blocks of whole lines read from binary file ``f``; a NUL
    byte or a line longer than ``longest`` is a DatasetError as soon as it is read, so a
    file of NULs or with no line feed is refused after one block or ``longest`` bytes."""
    longest = max_line_bytes() if longest is None else longest
    pieces: list[bytes] = []  # the start of a line that goes on in the next block
    held, lines = 0, 0
    while True:
        block = f.read(CHUNK_BYTES)
        if not block:
            break
        nul = block.find(b"\0")
        if nul >= 0:
            raise _nul(source, lines + block.count(b"\n", 0, nul) + 1)
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            pieces.append(block)
            held += len(block)
            if held > longest:
                raise _too_long(source, lines + 1, longest)
            continue
        if pieces:
            chunk = b"".join([*pieces, block[:cut]])
        else:
            chunk = memoryview(block)[:cut]
        if len(chunk) > longest:
            _check_lines(chunk, lines, longest, source)
        yield chunk, lines
        lines += block.count(b"\n", 0, cut)
        pieces = [block[cut:]] if cut < len(block) else []
        held = len(block) - cut
    if pieces:
        if held > longest:
            raise _too_long(source, lines + 1, longest)
        yield b"".join(pieces), lines


def parse_chunks(chunks, source: str):
    """(qids, docnos, scores) over all blocks; line numbers in errors count from the top."""
    parts = []
    for i, (chunk, lines_before) in enumerate(chunks):
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
            parts.append(list(columns))
    if not parts:
        raise with_id("trec.empty", DatasetError(
            "the run file is empty", file=source,
            fix="give a TREC run file: qid Q0 docno rank score tag"))
    if len(parts) == 1:
        return tuple(parts[0])
    out = []
    for j in range(3):  # a column at a time, its blocks dropped once joined (memory)
        column = [p[j] for p in parts]
        for p in parts:
            p[j] = None
        out.append(np.concatenate(column) if j == 2 else _joined(column))
        del column
    return tuple(out)


def _joined(columns: list[np.ndarray]) -> np.ndarray:
    """One column from the blocks' (``S`` arrays, or object arrays of bytes where ids were too
    uneven to pad): object when any block's is, or when padding all to the widest would
    take far more memory than the blocks do."""
    count = sum(map(len, columns))
    if all(c.dtype.kind == "S" for c in columns) and fits_padded(
            max(c.dtype.itemsize for c in columns), count, sum(c.nbytes for c in columns)):
        return np.concatenate(columns)
    out = np.empty(count, dtype=object)
    pos = 0
    for c in columns:
        out[pos:pos + len(c)] = c.tolist() if c.dtype.kind == "S" else c
        pos += len(c)
    return out


def _trec_columns_fast(buf: np.ndarray):
    """(qids, docnos, scores) from the raw bytes, vectorized; None if unsure."""
    space = ascii_space(buf)
    if space is None:
        return None  # another control byte: let the line parser decide
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
        if np.count_nonzero(newline_after) != len(starts) // 6 - 1 \
                or not newline_after[5::6].all():
            return None
    else:
        starts, ends = word_bounds(space)
        if len(starts) % 6:
            return None
        if not len(starts):
            return np.empty(0, dtype="S1"), np.empty(0, dtype="S1"), np.empty(0)
        if not records_on_own_lines(buf, starts, 6):
            return None
    scores = decimal_numbers(buf, starts[4::6], ends[4::6])
    if scores is None:
        return None
    return (gather_field(buf, starts[0::6], ends[0::6]),
            gather_field(buf, starts[2::6], ends[2::6]), scores)


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
            raise _nul(source, n)
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
    return as_column(qcol), as_column(dcol), np.array(scores, dtype=np.float64)
