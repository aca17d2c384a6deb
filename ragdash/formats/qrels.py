"""A vectorized reader for the two plain qrels layouts (used by ``ragdash score`` for speed).

``qid iter docno grade`` (TREC) and ``query-id corpus-id score`` (BEIR .tsv, header
optional), split on any ASCII whitespace as trec_eval does. It reads the whole file as numpy
byte arrays, with no Python loop per line. Anything it is not sure about — another layout, a
bad line, a non-numeric grade, a pair judged twice, undecodable bytes — makes it return
``None``, and the caller falls back to :func:`ragdash.loaders.load_qrels`, which reads every
format and names the file and line of a problem. So this module never decides what an error
says, and where both read a file they give the same qrels, in the same order (tested).
"""

from __future__ import annotations

import os

import numpy as np

from .files import regular_file_error
from .words import (
    ascii_space,
    decimal_numbers,
    decode_all,
    gather_field,
    records_on_own_lines,
    word_bounds,
)

__all__ = ["read_qrels_fast"]

#: header words of a BEIR qrels .tsv (first column), in lower case
_HEADER_FIRST = (b"query-id", b"query_id", b"qid", b"query")


def _read(path: str | os.PathLike) -> bytes | None:
    if regular_file_error(path) is not None:
        return None  # the loader refuses it in words
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def read_qrels_fast(path: str | os.PathLike) -> dict[str, dict[str, float]] | None:
    data = _read(path)
    if data is None:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    buf = np.frombuffer(data, dtype=np.uint8)
    if not len(buf):
        return None
    if buf.max() >= 0x80:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    space = ascii_space(buf)
    if space is None:
        return None
    starts, ends = word_bounds(space)
    if not len(starts):
        return None
    # Column count from the first line; every non-empty line must have exactly that many.
    line_end = data.find(b"\n", int(starts[0]))
    ncols = len(starts) if line_end < 0 else int(np.searchsorted(starts, line_end))
    if ncols not in (3, 4) or not records_on_own_lines(buf, starts, ncols):
        return None
    qcol, dcol = (gather_field(buf, starts[j::ncols], ends[j::ncols]) for j in (0, ncols - 2))
    first = 0
    if ncols == 3 and qcol[0].lower() in _HEADER_FIRST:
        qcol, dcol, first = qcol[1:], dcol[1:], 1
        if not len(qcol):
            return None
    grades = decimal_numbers(buf, starts[ncols - 1::ncols][first:], ends[ncols - 1::ncols][first:])
    if grades is None:
        return None
    uq, qfirst, qinv = np.unique(qcol, return_index=True, return_inverse=True)
    ud, dinv = np.unique(dcol, return_inverse=True)
    pairs = np.sort(qinv.astype(np.int64) * len(ud) + dinv)
    if np.any(pairs[1:] == pairs[:-1]):
        return None  # judged twice: the loader's duplicate policy decides
    appearance = np.argsort(qfirst, kind="stable")
    rank = np.empty(len(uq), dtype=np.int64)
    rank[appearance] = np.arange(len(uq))
    order = np.argsort(rank[qinv], kind="stable")
    counts = np.bincount(rank[qinv], minlength=len(uq))
    bounds = np.concatenate([[0], np.cumsum(counts)]).tolist()
    try:
        words = decode_all(ud.tolist())
        qids = decode_all(uq[appearance].tolist())
    except UnicodeDecodeError:
        return None
    docs = np.array(words, dtype=object)[dinv[order]].tolist()
    values = grades[order].tolist()
    return {q: dict(zip(docs[lo:hi], values[lo:hi]))
            for q, lo, hi in zip(qids, bounds[:-1], bounds[1:])}
