"""Byte-level word splitting shared by the vectorized readers of whitespace-separated files
(TREC run files in :mod:`ragdash.formats.trec_run`, qrels in :mod:`ragdash.formats.qrels`).

Words are split on ASCII whitespace (space, tab, line feed, vertical tab, form feed, carriage
return), as trec_eval splits them. Everything works on a block of the file as a numpy
``uint8`` array, with no Python loop per line nor per byte; each function says "not sure"
(``None`` / ``False``) rather than guess, so the caller can fall back to a line-by-line reader
that names the line.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "as_column",
    "ascii_space",
    "decimal_numbers",
    "decode_all",
    "finite_numbers",
    "gather_field",
    "records_on_own_lines",
    "word_bounds",
]


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
    """A column of words (a numpy ``S`` or object array of bytes) as float64, or ``None`` when
    one of them is not a number or not finite (``nan``, ``inf``)."""
    try:
        values = words.astype(np.float64)
    except (ValueError, TypeError):
        return None
    return values if np.isfinite(values).all() else None


#: a padded ``S`` column may take this many times the bytes of its words (plus a floor);
#: wider (one long id among short ones) it is an object array of bytes instead
_PAD_FACTOR = 4
_PAD_FLOOR = 1 << 20


def fits_padded(width: int, count: int, total: int) -> bool:
    """Whether ``count`` words of ``total`` bytes, the longest ``width``, may be held as a
    fixed-width ``S`` array (``width * count`` bytes)."""
    return width * count <= _PAD_FACTOR * total + _PAD_FLOOR


def gather_field(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Words ``buf[starts[i]:ends[i]]`` as a numpy ``S`` array, or as an object array of
    ``bytes`` when padding every word to the longest would take far more memory than the
    words (time and memory stay linear in the words' bytes either way)."""
    lengths = ends - starts
    n = len(starts)
    if not n:
        return np.empty(0, dtype="S1")
    width = max(int(lengths.max()), 1)
    total = int(lengths.sum())
    if not fits_padded(width, n, total):
        data = buf.tobytes()
        return _objects([data[s:e] for s, e in zip(starts.tolist(), ends.tolist())])
    if width <= 24:  # one pass per byte position, each over all words
        return np.ascontiguousarray(_byte_columns(buf, starts, lengths).T).view(
            f"S{width}").ravel()
    # wider: every byte once, word i's bytes to row i from column 0
    out = np.zeros((n, width), dtype=np.uint8)
    row = np.repeat(np.arange(n), lengths)
    first = np.cumsum(lengths) - lengths
    col = np.arange(total) - np.repeat(first, lengths)
    out[row, col] = buf[np.repeat(starts, lengths) + col]
    return out.view(f"S{width}").ravel()


def _byte_columns(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(longest, words) uint8: row ``j`` holds byte ``j`` of every word (0 past its end)."""
    width = max(int(lengths.max()), 1) if len(lengths) else 1
    out = np.empty((width, len(starts)), dtype=np.uint8)
    index = starts.copy()
    last = len(buf) - 1
    for j in range(width):
        if j:
            index += 1
        np.take(buf, np.minimum(index, last) if j else index, out=out[j])
        out[j] *= lengths > j  # 0 past the word's end
    return out


#: a fixed-point column of at most this many digits is summed in float64 exactly (< 2**53)
_FIXED_DIGITS = 15


def _fixed_point(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The common case of :func:`decimal_numbers`, in a few passes: every word is an optional
    ``-``, digits and the point at the same distance from its end (``12.345``, ``-0.500``,
    ``7.000``: a score column printed with one format), at most 15 digits; None otherwise.

    Right-aligned, each byte position has one weight (a power of ten, 0 at the point), so
    the digits' integer is a weighted sum of the byte rows; its terms and partial sums are
    integers below 2**53, exact in float64 whatever the order, and dividing by the power of
    ten of the fraction rounds correctly, as strtod."""
    negative = buf[starts] == 0x2D
    first = starts + negative
    lengths = ends - first
    width, shortest = int(lengths.max()), int(lengths.min())
    sample = buf[first[0]:ends[0]].tobytes()
    point = sample.rfind(b".")
    fraction = len(sample) - 1 - point if point >= 0 else 0
    # every word has a digit, and the point (when there is one) inside it
    if shortest < max(fraction + 1, 1 + (point >= 0)) or width - (point >= 0) > _FIXED_DIGITS:
        return None
    cols = np.empty((width, len(starts)), dtype=np.uint8)  # right-aligned, 0 before the word
    for j in range(width):
        at = ends - width + j
        np.take(buf, np.maximum(at, 0), out=cols[j])
        cols[j] *= at >= first
    exponent = np.arange(width - 1, -1, -1)
    if point >= 0:
        dot_row = width - 1 - fraction
        if not (cols[dot_row] == 0x2E).all():
            return None
        cols[dot_row] = 0x30
        exponent = np.where(exponent > fraction, exponent - 1, exponent)
    values = cols - np.uint8(0x30)
    inside = cols != 0
    if not ((values < 10) | ~inside).all():
        return None
    values *= inside
    weights = 10.0 ** exponent
    if point >= 0:
        weights[dot_row] = 0.0
    out = np.zeros(len(starts), dtype=np.float64)
    for j in np.flatnonzero(weights).tolist():  # not a BLAS product: threads cost more here
        out += values[j] * weights[j]
    if fraction:
        out /= _POW10[fraction]
    np.negative(out, out=out, where=negative)
    return out


def decode_all(values: list[bytes]) -> list[str]:
    """UTF-8 words (no line feed in any: they were split on whitespace) as ``str``, in one
    decode of their join rather than one call per word; UnicodeDecodeError as ``decode``."""
    if not values:
        return []
    return b"\n".join(values).decode("utf-8").split("\n")


def as_column(values: list[bytes]) -> np.ndarray:
    """A list of ``bytes`` as an ``S`` array, or an object array when padding would take far
    more memory than the values (see :func:`gather_field`)."""
    if not values:
        return np.empty(0, dtype="S1")
    width = max(map(len, values))
    if fits_padded(width, len(values), sum(map(len, values))):
        return np.array(values, dtype=bytes)
    return _objects(values)


def _objects(values: list[bytes]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


#: 10**0 .. 10**22 are exact doubles (Clinger's fast path)
_POW10 = 10.0 ** np.arange(23)
#: the longest plain decimal read vectorized: sign, 19 digits and a point
_PLAIN_WIDTH = 21


def decimal_numbers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """Words ``buf[starts[i]:ends[i]]`` as float64, exactly as ``float()`` (C's ``strtod``)
    reads them; ``None`` when one is not a finite number.

    Plain decimals (``-12.345``, ``+7``, ``.5``: a sign, digits, at most one point, at most 19
    digits whose value is below 2**53) are read vectorized: the digits as one integer ``m``
    and ``f`` digits after the point give ``m / 10**f``, the quotient of two exact doubles,
    which IEEE division rounds correctly, so the result equals strtod's (Clinger's fast
    path). Anything else (exponents, more digits, ``inf``, text) goes through numpy's
    parser, word by word.
    """
    n = len(starts)
    if not n:
        return np.empty(0, dtype=np.float64)
    fixed = _fixed_point(buf, starts, ends)
    if fixed is not None:
        return fixed
    out = np.empty(n, dtype=np.float64)
    lengths = ends - starts
    rows = np.flatnonzero(lengths <= _PLAIN_WIDTH)
    good = np.zeros(n, dtype=bool)
    if len(rows):
        cols = _byte_columns(buf, starts[rows], lengths[rows])  # (width, rows), 0-padded
        digit_value = cols - np.uint8(0x30)
        digit = digit_value < 10
        dot = cols == 0x2E
        first = cols[0]
        allowed = digit | dot | (cols == 0)  # 0 is padding: a NUL never reaches here
        allowed[0] |= (first == 0x2D) | (first == 0x2B)
        ndigits = np.count_nonzero(digit, axis=0)
        dots = np.count_nonzero(dot, axis=0)
        ok = allowed.all(axis=0) & (dots <= 1) & (ndigits >= 1) & (ndigits <= 19)
        # the digits as one integer: m = m * 10 + digit, position by position
        add = np.where(digit, digit_value, 0).astype(np.uint64)
        times = np.where(digit, np.uint64(10), np.uint64(1))
        mantissa = add[0].copy()
        for j in range(1, len(cols)):
            mantissa *= times[j]
            mantissa += add[j]
        ok &= mantissa < np.uint64(1 << 53)
        # on a valid word every byte after the point is a digit
        dot_at = np.zeros(len(rows), dtype=np.int64)
        for j in range(1, len(cols)):
            dot_at += dot[j] * np.int64(j)
        after_point = np.where(dots == 1, lengths[rows] - 1 - dot_at, 0)
        value = mantissa.astype(np.float64) / _POW10[np.minimum(after_point, 22)]
        np.negative(value, out=value, where=first == 0x2D)
        out[rows] = value
        good[rows] = ok
    rest = np.flatnonzero(~good)
    if len(rest):
        other = finite_numbers(gather_field(buf, starts[rest], ends[rest]))
        if other is None:
            return None
        out[rest] = other
    return out
