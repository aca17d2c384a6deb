"""Byte-level word splitting shared by the vectorized readers of whitespace-separated files
(TREC run files in :mod:`ragdash.formats.trec_run`, qrels in :mod:`ragdash.formats.qrels`).

Words are split on ASCII whitespace (space, tab, line feed, vertical tab, form feed, carriage
return), as trec_eval splits them. Everything works on the whole file as a numpy ``uint8``
array, with no Python loop per line; each function says "not sure" (``None`` / ``False``)
rather than guess, so the caller can fall back to a line-by-line reader that names the line.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_FIELD_BYTES", "ascii_space", "finite_numbers", "gather_field",
           "records_on_own_lines", "word_bounds"]


def ascii_space(buf: np.ndarray) -> np.ndarray | None:
    """A bool mask of the whitespace bytes of ``buf``, or ``None`` when ``buf`` holds another
    byte <= 0x20 (NUL or another control byte: a line reader decides what that means)."""
    space = buf <= 0x20
    if np.count_nonzero(space) != (np.count_nonzero(buf == 0x20)
                                   + np.count_nonzero((buf >= 0x09) & (buf <= 0x0D))):
        return None
    return space


def word_bounds(space: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, ends)``: the byte offsets of every word, from a non-empty whitespace mask
    (:func:`ascii_space`); word ``i`` is ``buf[starts[i]:ends[i]]``."""
    # Every place the byte class flips is a boundary: start, end, start, end, ...
    edges = np.flatnonzero(space[1:] != space[:-1]) + 1
    if not space[0]:
        edges = np.concatenate([[0], edges])
    if not space[-1]:
        edges = np.append(edges, len(space))
    return edges[0::2], edges[1::2]


def records_on_own_lines(buf: np.ndarray, starts: np.ndarray, ncols: int) -> bool:
    """Whether the words (``starts`` from :func:`word_bounds`) form records of ``ncols`` words,
    each record on one line and every record on a later line than the one before."""
    if len(starts) % ncols:
        return False
    newlines = np.flatnonzero(buf == 0x0A)
    first = np.searchsorted(newlines, starts[0::ncols])
    return bool(np.array_equal(first, np.searchsorted(newlines, starts[ncols - 1::ncols]))
                and np.all(first[1:] > first[:-1]))


def finite_numbers(words: np.ndarray) -> np.ndarray | None:
    """A column of words (a numpy ``S`` array) as float64, or ``None`` when one of them is not
    a number or not finite (``nan``, ``inf``)."""
    try:
        values = words.astype(np.float64)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


#: the fast path gives up on an id column wider than this many bytes x rows
MAX_FIELD_BYTES = 1 << 28


def gather_field(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """Words ``buf[starts[i]:ends[i]]`` as a numpy ``S`` array (None if too wide)."""
    lengths = ends - starts
    width = int(lengths.max())
    if width * len(starts) > MAX_FIELD_BYTES:
        return None
    out = np.zeros((len(starts), width), dtype=np.uint8)
    last = len(buf) - 1
    for j in range(width):
        out[:, j] = np.where(lengths > j, buf[np.minimum(starts + j, last)], 0)
    return out.view(f"S{width}").ravel()
