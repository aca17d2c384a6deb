"""Ranking: for each query, the retrieved doc ids and scores, in canonical order.

Canonical order is trec_eval's: score descending, ties broken by doc id descending (byte
order; for str this is code-point order, which equals UTF-8 byte order). The rank column of a
TREC run file is ignored, as trec_eval ignores it.

Storage is columnar so metrics can be vectorized: ``query_ids`` (Q,), ``offsets`` (Q+1,),
and flat ``doc_ids`` / ``scores`` of length ``offsets[-1]``; query ``i`` owns the slice
``offsets[i]:offsets[i+1]``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from .formats import trec_run
from .formats.words import as_column, decode_all
from .i18n import dataset_error


class Ranking:
    __slots__ = ("_doc_ids", "_doc_vocab", "_index", "name", "offsets", "query_ids", "scores")

    def __init__(self, query_ids: Iterable[str], offsets: np.ndarray, doc_ids: np.ndarray | None,
                 scores: np.ndarray, *, name: str = "run", canonical: bool = False,
                 vocab: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        self.query_ids: list[str] = [str(q) for q in query_ids]
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.scores = np.asarray(scores, dtype=np.float64)
        self.name = name
        self._index: dict[str, int] | None = None
        # (distinct doc ids, code of each row) when the parser knows them: metrics join doc
        # ids with qrels once per distinct id, and the per-row ``doc_ids`` array is made only
        # when something reads it (``score`` never does). Dropped when doc_ids is assigned.
        self._doc_vocab: tuple[np.ndarray, np.ndarray] | None = vocab
        self._doc_ids = None if doc_ids is None else np.asarray(doc_ids, dtype=object)
        rows = len(vocab[1]) if doc_ids is None and vocab is not None else len(self._doc_ids)
        if len(self.offsets) != len(self.query_ids) + 1:
            raise ValueError("offsets must have one more entry than query_ids")
        if rows != len(self.scores) or self.offsets[-1] != len(self.scores):
            raise ValueError("doc_ids, scores and offsets disagree in length")
        if not canonical:
            self._canonicalize()

    @property
    def doc_ids(self) -> np.ndarray:
        """Every row's doc id (an object array of ``str``), query by query."""
        if self._doc_ids is None:
            words, codes = self._doc_vocab
            self._doc_ids = words[codes]
        return self._doc_ids

    @doc_ids.setter
    def doc_ids(self, value) -> None:
        self._doc_ids = np.asarray(value, dtype=object)
        self._doc_vocab = None

    # -- construction --------------------------------------------------------------------
    @classmethod
    def from_dict(cls, run: Mapping[str, Mapping[str, float]], *, name: str = "run") -> Ranking:
        """From ``{qid: {doc_id: score}}`` (pytrec_eval's shape); query order is kept."""
        qids = [str(q) for q in run]
        counts = np.fromiter((len(run[q]) for q in run), dtype=np.int64, count=len(qids))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        docs = np.empty(int(offsets[-1]), dtype=object)
        scores = np.empty(int(offsets[-1]), dtype=np.float64)
        for i, q in enumerate(run):
            lo, hi = offsets[i], offsets[i + 1]
            docs[lo:hi] = [str(d) for d in run[q]]
            scores[lo:hi] = list(run[q].values())
        return cls(qids, offsets, docs, scores, name=name)

    @classmethod
    def from_topk(cls, query_ids: list[str], corpus_doc_ids: list[str] | np.ndarray,
                  indices: np.ndarray, scores: np.ndarray, *, name: str = "run") -> Ranking:
        """From a top-k result: ``indices`` (Q, k) into ``corpus_doc_ids``; -1 means no hit."""
        indices = np.asarray(indices)
        scores = np.asarray(scores, dtype=np.float64)
        corpus = np.asarray(corpus_doc_ids, dtype=object)
        valid = indices >= 0
        counts = valid.sum(axis=1)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        return cls(query_ids, offsets, corpus[indices[valid]], scores[valid], name=name)

    def _in_canonical_order(self) -> bool:
        """True when every query's slice already runs score descending, ties by doc id
        descending: an O(n) check that compares strings only where scores tie. Retrievers
        hand over rankings in this order, and sorting 400k string ids costs far more."""
        n = len(self.scores)
        s = self.scores
        within = np.ones(n - 1, dtype=bool)
        ends = self.offsets[1:-1] - 1  # last position of each query but the final one
        within[ends[(ends >= 0) & (ends < n - 1)]] = False
        if (within & (s[1:] > s[:-1])).any():
            return False
        ties = np.flatnonzero(within & (s[1:] == s[:-1]))
        d = self.doc_ids
        return all(str(d[i]) > str(d[i + 1]) for i in ties.tolist())

    def _canonicalize(self) -> None:
        n = len(self.doc_ids)
        if n == 0 or self._in_canonical_order():
            return
        counts = np.diff(self.offsets)
        qpos = np.repeat(np.arange(len(self.query_ids)), counts)
        # Rank doc ids by string order once, then sort (query asc, score desc, doc desc).
        _, inverse = np.unique(self.doc_ids.astype(str), return_inverse=True)
        order = np.lexsort((-inverse, -self.scores, qpos))
        self.doc_ids = self.doc_ids[order]
        self.scores = self.scores[order]

    # -- access --------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.query_ids)

    def __contains__(self, qid: object) -> bool:
        return qid in self.index

    @property
    def index(self) -> dict[str, int]:
        if self._index is None:
            self._index = {q: i for i, q in enumerate(self.query_ids)}
        return self._index

    @property
    def kmax(self) -> int:
        return int(np.diff(self.offsets).max()) if len(self.query_ids) else 0

    def get(self, qid: str) -> tuple[list[str], np.ndarray]:
        """Doc ids and scores for one query, canonical order; empty if the query is absent."""
        i = self.index.get(qid)
        if i is None:
            return [], np.empty(0)
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return list(self.doc_ids[lo:hi]), self.scores[lo:hi]

    def items(self):
        for q in self.query_ids:
            yield q, *self.get(q)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {doc_id: score}}``, the shape pytrec_eval takes."""
        return {q: dict(zip(docs, map(float, scores))) for q, docs, scores in self.items()}

    def truncate(self, k: int) -> Ranking:
        """The top ``k`` of every query."""
        counts = np.minimum(np.diff(self.offsets), k)
        keep = np.concatenate([np.arange(lo, lo + c) for lo, c in zip(self.offsets[:-1], counts)]) \
            if len(counts) else np.empty(0, dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        return Ranking(self.query_ids, offsets, self.doc_ids[keep], self.scores[keep],
                       name=self.name, canonical=True)

    def subset(self, qids: Iterable[str]) -> Ranking:
        """Only ``qids`` (in that order); a query absent here gets an empty list."""
        qids = list(qids)
        parts_d, parts_s, counts = [], [], []
        for q in qids:
            i = self.index.get(q)
            if i is None:
                counts.append(0)
                continue
            lo, hi = self.offsets[i], self.offsets[i + 1]
            parts_d.append(self.doc_ids[lo:hi])
            parts_s.append(self.scores[lo:hi])
            counts.append(hi - lo)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        docs = np.concatenate(parts_d) if parts_d else np.empty(0, dtype=object)
        scores = np.concatenate(parts_s) if parts_s else np.empty(0)
        return Ranking(qids, offsets, docs, scores, name=self.name, canonical=True)

    # -- TREC run files ------------------------------------------------------------------
    @classmethod
    def read_trec(cls, path: str | os.PathLike, *, name: str | None = None) -> Ranking:
        """Read ``qid Q0 docno rank score tag`` lines (whitespace separated)."""
        path = Path(path)
        try:
            columns = trec_run.read_columns(path, str(path))
        except OSError as exc:
            raise dataset_error("run.cannot_read", file=str(path), reason=exc.strerror) from exc
        return cls._from_columns(*columns, source=str(path), name=name or path.stem)

    @classmethod
    def parse_trec(cls, raw: bytes | str, *, source: str = "run", name: str = "run") -> Ranking:
        """Parse TREC run text: one ``qid Q0 docno rank score tag`` per line.

        Columns are split on ASCII whitespace (as trec_eval does), so ids may contain any
        other character. The text is read in blocks of whole lines, each parsed vectorized
        over its raw bytes; a block that path is unsure about (odd control bytes, very long
        ids, a bad line) goes line by line, and a bad line raises a DatasetError naming it.
        """
        data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        columns = trec_run.parse_columns(data, source)
        return cls._from_columns(*columns, source=source, name=name)

    @classmethod
    def _from_columns(cls, qcol: np.ndarray, dcol: np.ndarray, scores: np.ndarray, *,
                      source: str, name: str) -> Ranking:
        """From parallel columns (UTF-8 bytes: numpy ``S`` arrays, or object arrays of
        ``bytes``) in file order.

        Queries keep the order of their first line. Rows already in canonical order (the
        usual case: a run written by a search engine) are not re-sorted. Each distinct doc id
        becomes one ``str`` shared by every row that names it.
        """
        qcol, dcol = _as_bytes_array(qcol), _as_bytes_array(dcol)
        scores = np.asarray(scores, dtype=np.float64)
        n = len(scores)
        # Queries: segments of equal consecutive ids, then order of first appearance.
        heads = np.concatenate([[0], np.flatnonzero(qcol[1:] != qcol[:-1]) + 1])
        uq, seg_first, seg_inv = np.unique(qcol[heads], return_index=True,
                                           return_inverse=True)
        appearance = np.argsort(seg_first, kind="stable")
        rank_of_u = np.empty(len(uq), dtype=np.int64)
        rank_of_u[appearance] = np.arange(len(uq))
        seg_len = np.diff(np.append(heads, n))
        qpos = np.repeat(rank_of_u[seg_inv], seg_len)
        # Docs: codes in byte order (trec_eval breaks score ties by strcmp, descending).
        vocab, dcode, by_doc = _byte_order_codes(dcol)
        twice = _first_duplicate(qpos, dcode, by_doc, len(vocab),
                                 contiguous=len(uq) == len(heads))
        if twice is not None:
            q = uq[appearance[twice[0]]].decode("utf-8")
            d = vocab[twice[1]].decode("utf-8")
            raise dataset_error("run.doc_twice", file=source, d=d, q=q)
        order = _canonical_order(qpos, scores, dcode, contiguous=len(uq) == len(heads))
        if order is not None:
            qpos, dcode, scores = qpos[order], dcode[order], scores[order]
        words = np.array(decode_all(vocab.tolist()) or [""], dtype=object)
        counts = np.bincount(qpos, minlength=len(uq))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        qids = decode_all(uq[appearance].tolist())
        return cls(qids, offsets, None, scores, name=name, canonical=True,
                   vocab=(words, dcode))

    def write_trec(self, dest: str | os.PathLike | io.TextIOBase, *,
                   tag: str | None = None) -> None:
        """Write ``qid Q0 docno rank score tag``; rank starts at 1. An id the format cannot
        hold (empty, or with whitespace: ``score`` would read more columns) is a DatasetError
        naming it, before anything is written."""
        tag = (tag or self.name or "ragdash").replace(" ", "_")
        self.check_trec_ids(file=None if isinstance(dest, io.TextIOBase) else str(dest))
        lines = []
        for q, docs, scores in self.items():
            for r, (d, s) in enumerate(zip(docs, scores), start=1):
                lines.append(f"{q} Q0 {d} {r} {float(s)!r} {tag}\n")
        text = "".join(lines)
        if isinstance(dest, io.TextIOBase):
            dest.write(text)
        else:
            Path(dest).write_text(text, encoding="utf-8")

    def trec_id_problem(self) -> tuple[str, str] | None:
        """``(kind, id)`` of the first query or document id a TREC run cannot hold, or None."""
        bad = trec_run.first_unsafe_id(self.query_ids)
        if bad is not None:
            return "query", bad
        bad = trec_run.first_unsafe_id(dict.fromkeys(self.doc_ids.tolist()))
        return None if bad is None else ("document", bad)

    def check_trec_ids(self, *, file: str | None = None) -> None:
        problem = self.trec_id_problem()
        if problem is not None:
            raise trec_run.unsafe_id_error(*problem, file=file)

    def to_trec_string(self, *, tag: str | None = None) -> str:
        buf = io.StringIO()
        self.write_trec(buf, tag=tag)
        return buf.getvalue()

    # -- JSON (run store) ----------------------------------------------------------------
    def to_json_obj(self) -> dict:
        return {"name": self.name,
                "queries": {q: [[d, float(s)] for d, s in zip(docs, scores)]
                            for q, docs, scores in self.items()}}

    @classmethod
    def from_json_obj(cls, obj: Mapping) -> Ranking:
        run = {q: {d: s for d, s in pairs} for q, pairs in obj["queries"].items()}
        return cls.from_dict(run, name=obj.get("name", "run"))


def _canonical_order(qpos: np.ndarray, scores: np.ndarray, dcode: np.ndarray, *,
                     contiguous: bool) -> np.ndarray | None:
    """The permutation to (query, score desc, doc desc) order; None if already in it.

    Runs written by search engines are usually sorted by score already and only ties may be
    out of trec_eval's order, so when scores are non-increasing within each query, only the
    rows in tie groups are sorted.
    """
    same_q = qpos[1:] == qpos[:-1]
    if contiguous and np.all(~same_q | (scores[:-1] >= scores[1:])):
        tie = same_q & (scores[:-1] == scores[1:])
        if not np.any(tie & (dcode[:-1] < dcode[1:])):
            return None
        rows = np.flatnonzero(np.concatenate([tie, [False]]) | np.concatenate([[False], tie]))
        starts_group = np.concatenate([[True], ~tie[rows[1:] - 1]])
        group = np.cumsum(starts_group)
        order = np.arange(len(qpos))
        order[rows] = rows[np.lexsort((-dcode[rows], group))]
        return order
    return np.lexsort((-dcode, -scores, qpos))


def _as_bytes_array(col) -> np.ndarray:
    col = np.asarray(col)
    if col.dtype.kind == "S" or (col.dtype == object
                                 and all(type(v) is bytes for v in col.tolist())):
        return col
    return as_column([str(v).encode("utf-8") for v in col.tolist()])


#: odd 64-bit multipliers of the hash that groups ids longer than 8 bytes
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9))


def _byte_order_codes(col: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Sorted distinct values (byte order), each row's index into them, and an order of the
    rows that keeps each value's rows together in file order (None for an object column).

    Ids are compared as integers, far faster than as strings: each byte position keeps only
    the values it holds, ranked (a column of ``d000123`` ids: 'd' takes no bit, each digit
    4), and the ranks packed most significant first give an integer in byte order; when they
    take more than 64 bits, ids of up to 8 bytes are their big-endian bytes, and longer ones
    are grouped by a 64-bit hash of their bytes, every row checked against its group's first
    (a collision falls back to comparing strings), only the distinct ids put in byte order.
    """
    n = len(col)
    if col.dtype.kind != "S" or not n:
        vocab, codes = np.unique(col, return_inverse=True)
        return vocab, codes.ravel().astype(np.int64), None
    width = col.dtype.itemsize
    keys = _packed_keys(col.view(np.uint8).reshape(n, width))
    words = 1 if keys is not None else -(-width // 8)
    if keys is None:
        padded = np.zeros((n, words * 8), dtype=np.uint8)
        padded[:, :width] = col.view(np.uint8).reshape(n, width)
        big = padded.view(np.uint64)  # (n, words), each word in byte order once swapped
        if np.little_endian:
            big.byteswap(inplace=True)  # in place: no second copy of a column of 100M ids
        if words == 1:
            keys = big[:, 0]
        else:
            keys = np.zeros(n, dtype=np.uint64)
            for j in range(words):
                keys = (keys ^ big[:, j]) * _MIX[0]
                keys ^= keys >> np.uint64(31)
            keys *= _MIX[1]
    by_value = _stable_order(keys)
    sorted_keys = keys[by_value]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new[1:])
    codes = np.empty(n, dtype=np.int64)
    codes[by_value] = np.cumsum(new) - 1
    vocab = col[by_value[new]]
    if words > 1:
        if not np.array_equal(col, vocab[codes]):  # a hash collision: compare strings
            vocab, codes = np.unique(col, return_inverse=True)
            return vocab, codes.ravel().astype(np.int64), None
        order = np.lexsort(big[by_value[new]].T[::-1])  # the distinct ids in byte order
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        vocab, codes = vocab[order], rank[codes]
    return vocab, codes, by_value


def _packed_keys(matrix: np.ndarray) -> np.ndarray | None:
    """One uint64 per row of a (rows, width) byte matrix, in the rows' byte order: each
    column's values replaced by their rank among the values it holds, the ranks packed most
    significant first; None when they need more than 64 bits. (Padding NULs rank lowest, so
    a prefix sorts first, as in byte order.)"""
    keys = np.zeros(len(matrix), dtype=np.uint64)
    total = 0
    for j in range(matrix.shape[1]):
        column = matrix[:, j]
        present = np.bincount(column, minlength=256) > 0
        count = int(np.count_nonzero(present))
        if count <= 1:
            continue
        bits = (count - 1).bit_length()
        total += bits
        if total > 64:
            return None
        rank = (np.cumsum(present) - 1).astype(np.uint64)
        keys <<= np.uint64(bits)
        keys |= rank[column]
    return keys


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of uint64 keys, as a radix sort: one stable pass
    per 16-bit digit, least significant first (numpy sorts 16-bit keys by counting), digits
    that never vary skipped (ids of one shape share most of their bytes)."""
    order = None
    for shift in (0, 16, 32, 48):
        digit = ((keys >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.uint16)
        if digit.min() == digit.max():
            continue
        order = (np.argsort(digit, kind="stable") if order is None
                 else order[np.argsort(digit[order], kind="stable")])
    return np.arange(len(keys)) if order is None else order


def _first_duplicate(qpos: np.ndarray, dcode: np.ndarray, by_doc: np.ndarray | None,
                     ndocs: int, *, contiguous: bool) -> tuple[int, int] | None:
    """(query position, doc code) of a pair named on two lines, or None.

    With each query's lines together, ``qpos`` never decreases along the file, so in a stable
    sort of the rows by doc (``by_doc``) two lines of one pair are neighbours: no second sort.
    """
    if contiguous and by_doc is not None:
        d = dcode[by_doc]
        same = d[1:] == d[:-1]
        del d  # one gathered column at a time (memory)
        q = qpos[by_doc]
        same &= q[1:] == q[:-1]
        del q
        hit = np.flatnonzero(same)
        if not len(hit):
            return None
        row = by_doc[hit[0]]
        return int(qpos[row]), int(dcode[row])
    keys = np.sort(qpos * max(ndocs, 1) + dcode)
    hit = np.flatnonzero(keys[1:] == keys[:-1])
    if not len(hit):
        return None
    key = int(keys[hit[0]])
    return key // max(ndocs, 1), key % max(ndocs, 1)
