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

from .errors import DatasetError


class Ranking:
    __slots__ = ("_index", "doc_ids", "name", "offsets", "query_ids", "scores")

    def __init__(self, query_ids: Iterable[str], offsets: np.ndarray, doc_ids: np.ndarray,
                 scores: np.ndarray, *, name: str = "run", canonical: bool = False) -> None:
        self.query_ids: list[str] = [str(q) for q in query_ids]
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.doc_ids = np.asarray(doc_ids, dtype=object)
        self.scores = np.asarray(scores, dtype=np.float64)
        self.name = name
        self._index: dict[str, int] | None = None
        if len(self.offsets) != len(self.query_ids) + 1:
            raise ValueError("offsets must have one more entry than query_ids")
        if len(self.doc_ids) != len(self.scores) or self.offsets[-1] != len(self.scores):
            raise ValueError("doc_ids, scores and offsets disagree in length")
        if not canonical:
            self._canonicalize()

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

    def _canonicalize(self) -> None:
        n = len(self.doc_ids)
        if n == 0:
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
            raw = path.read_bytes()
        except OSError as exc:
            raise DatasetError(f"cannot read the run file ({exc.strerror})", file=str(path),
                               fix="check the path") from exc
        return cls.parse_trec(raw, source=str(path), name=name or path.stem)

    @classmethod
    def parse_trec(cls, raw: bytes | str, *, source: str = "run", name: str = "run") -> Ranking:
        if isinstance(raw, bytes):
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = raw[: exc.start].count(b"\n") + 1
                raise DatasetError("the run file is not UTF-8 text", file=source, line=line,
                                   fix="save it as UTF-8") from exc
        else:
            text = raw
        tokens = text.split()
        if not tokens:
            raise DatasetError("the run file is empty", file=source,
                               fix="give a TREC run file: qid Q0 docno rank score tag")
        if len(tokens) % 6 == 0:
            table = np.array(tokens, dtype=object).reshape(-1, 6)
            try:
                scores = table[:, 4].astype(np.float64)
            except ValueError:
                scores = None
        else:
            table, scores = None, None
        if table is None or scores is None or not np.isfinite(scores).all():
            # Slow path only to name the bad line.
            _raise_bad_trec_line(text, source)
        qcol, dcol = table[:, 0], table[:, 2]
        return cls._from_columns(qcol, dcol, scores, source=source, name=name)

    @classmethod
    def _from_columns(cls, qcol: np.ndarray, dcol: np.ndarray, scores: np.ndarray, *,
                      source: str, name: str) -> Ranking:
        # Query order: first appearance in the file.
        uq, first, qinv = np.unique(qcol.astype(str), return_index=True, return_inverse=True)
        appearance = np.argsort(first, kind="stable")
        rank_of_u = np.empty(len(uq), dtype=np.int64)
        rank_of_u[appearance] = np.arange(len(uq))
        qpos = rank_of_u[qinv]
        ud, dinv = np.unique(dcol.astype(str), return_inverse=True)
        order = np.lexsort((-dinv, -scores, qpos))
        qpos_s, dinv_s = qpos[order], dinv[order]
        dup = (qpos_s[1:] == qpos_s[:-1]) & (dinv_s[1:] == dinv_s[:-1])
        if dup.any():
            j = int(np.flatnonzero(dup)[0]) + 1
            q, d = uq[appearance[qpos_s[j]]], ud[dinv_s[j]]
            raise DatasetError(f"document {d!r} appears twice for query {q!r}", file=source,
                               fix="keep one line per (query, document) pair")
        counts = np.bincount(qpos, minlength=len(uq))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        qids = [str(uq[i]) for i in appearance]
        return cls(qids, offsets, dcol[order], scores[order], name=name, canonical=True)

    def write_trec(self, dest: str | os.PathLike | io.TextIOBase, *,
                   tag: str | None = None) -> None:
        """Write ``qid Q0 docno rank score tag``; rank starts at 1."""
        tag = (tag or self.name or "ragdash").replace(" ", "_")
        lines = []
        for q, docs, scores in self.items():
            for r, (d, s) in enumerate(zip(docs, scores), start=1):
                lines.append(f"{q} Q0 {d} {r} {float(s)!r} {tag}\n")
        text = "".join(lines)
        if isinstance(dest, io.TextIOBase):
            dest.write(text)
        else:
            Path(dest).write_text(text, encoding="utf-8")

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


def _raise_bad_trec_line(text: str, source: str) -> None:
    for n, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            raise DatasetError(f"expected 6 columns (qid Q0 docno rank score tag), found "
                               f"{len(parts)}", file=source, line=n,
                               fix="write one result per line as: qid Q0 docno rank score tag")
        try:
            s = float(parts[4])
        except ValueError:
            s = float("nan")
        if not np.isfinite(s):
            raise DatasetError(f"score {parts[4]!r} is not a finite number", file=source,
                               line=n, fix="the fifth column must be a number")
    raise DatasetError("cannot read the run file", file=source,
                       fix="write one result per line as: qid Q0 docno rank score tag")
