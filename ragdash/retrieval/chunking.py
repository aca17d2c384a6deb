"""Chunking: long documents cut into chunks by tokens, retrieved, folded back to documents.

    chunks = chunk_dataset(dataset, size=256, overlap=32)      # a ChunkSet
    retriever = ChunkedRetriever(make_retriever("bm25"), size=256, overlap=32)
    run = run_evaluation(dataset, retriever)                   # a document-level run

**Tokens** are the cost tokenizer's (:mod:`ragdash.cost.tokens`): cl100k via tiktoken when it
loads offline, else the script-aware estimate, each piece (a CJK character, a Latin word, a
digit run, punctuation, spaces) priced at its estimated tokens. ``method`` says which.

**Cutting** a document's text (its title is put before every chunk, as the retriever sees the
whole document): a chunk holds at most ``size`` tokens; it ends at the last sentence end
(after 。！？, or after ``.``, ``!``, ``?`` followed by a space or the end of the text) that
leaves it at least half full, else at the last word boundary before the limit (a Latin word or
number is never cut; CJK text may be cut between any two characters), else at the limit. The
next chunk starts ``overlap`` tokens before the previous one ended, moved forward to the first
sentence that starts within those tokens when there is one (so the overlap repeats whole
sentences), else to the start of a word; always after the previous start. A text within
``size`` tokens is one chunk.

**Folding** a ranking of chunks back into a ranking of documents (``aggregate``):

- ``max`` (MaxP, the default): a document scores as its best chunk;
- ``first`` (FirstP): only each document's first chunk is indexed; it scores as that chunk;
- ``mean2``: the mean of the document's two best chunks; a document with a single chunk scores
  as that chunk; when only one of its chunks was retrieved, the second counts as the lowest
  chunk score retrieved for the query (the most it could have scored).

Chunks are retrieved ``min(chunks, kmax × min(most chunks per document, 10))`` deep, so that
the folded ranking can hold ``kmax`` documents. Qrels stay at document level. Which chunk
matched is kept per ranked document (:attr:`ChunkedRetriever.resources`, the run's
``resources["chunks"]``), and :func:`chunk_text` gives its text back for the drill-down.

Identical chunk texts get identical chunk documents, so the embeddings cache (keyed by text)
serves them again across chunk sizes and overlaps.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import params
from ..dataset import Dataset, Document, Query
from ..errors import RetrievalError
from ..i18n import error
from ..ranking import Ranking

__all__ = ["AGGREGATES", "MIN_CHUNK_SIZE", "ChunkSet", "ChunkedRetriever", "check_chunking",
           "chunk_dataset", "chunk_spans", "chunk_text", "fold", "matched_chunk"]

#: how chunk scores fold into a document score, in the order help texts list them
AGGREGATES = params.AGGREGATES
#: the smallest chunk size accepted (tokens)
MIN_CHUNK_SIZE = int(params.CHUNKING["size"].low)
#: chunk retrieval depth is kmax × min(most chunks per document, this)
_DEPTH_FACTOR = 10

_SENTENCE_END = re.compile(r"[。！？]+[」』）)\"']*|[.!?]+[\"')\]]*(?=\s|$)")
_WORD = re.compile(r"[0-9A-Za-z\u00C0-\u024F]")
_PIECES = re.compile(r"[0-9]+|[A-Za-z\u00C0-\u024F]+|\s+|[^\sA-Za-z0-9\u00C0-\u024F]")


def check_chunking(size, overlap=0, aggregate: str = "max") -> tuple[int, int, str]:
    """``(size, overlap, aggregate)`` checked, or one sentence saying what is wrong."""
    try:
        size_i, overlap_i = int(size), int(overlap or 0)
    except (TypeError, ValueError):
        raise error(RetrievalError, "chunk.not_whole", size=size, overlap=overlap) from None
    if size_i != size or (overlap is not None and overlap_i != overlap):
        raise error(RetrievalError, "chunk.not_whole", size=size, overlap=overlap)
    if size_i < MIN_CHUNK_SIZE:
        raise error(RetrievalError, "chunk.too_small", size=size_i, least=MIN_CHUNK_SIZE)
    if overlap_i < 0 or overlap_i >= size_i:
        raise error(RetrievalError, "chunk.bad_overlap", size=size_i,
                    overlap=overlap_i, example=size_i // 8)
    if aggregate not in AGGREGATES:
        raise error(RetrievalError, "chunk.unknown_aggregate", aggregate=aggregate,
                    names=", ".join(AGGREGATES))
    return size_i, overlap_i, aggregate


# -- token boundaries ----------------------------------------------------------------------
def _token_ends(text: str) -> tuple[list[int], str]:
    """Character positions where tokens end (non-decreasing: a character made of two tokens
    ends two of them; the last is len(text)) and the tokenizer's method name."""
    from ..cost.tokens import METHOD_ESTIMATE, METHOD_TIKTOKEN, estimate_tokens, load_cl100k

    if not text:
        return [], METHOD_TIKTOKEN
    enc = load_cl100k()
    if enc is not None:
        byte_ends = np.cumsum([len(enc.decode_single_token_bytes(t))
                               for t in enc.encode_ordinary(text)])
        char_bytes = np.cumsum([len(c.encode("utf-8")) for c in text])
        # a token that ends inside a character ends with that character
        ends = np.searchsorted(char_bytes, byte_ends, side="left") + 1
        return [int(e) for e in np.minimum(ends, len(text))], METHOD_TIKTOKEN
    ends: list[int] = []
    acc = 0.0
    count = 0
    for m in _PIECES.finditer(text):
        acc += estimate_tokens(m.group()) if not m.group().isspace() else (
            1.0 if len(m.group()) > 1 else 0.0)
        whole = round(acc)
        if whole > count:  # the piece spans (whole - count) tokens; split it evenly
            n = whole - count
            lo, hi = m.start(), m.end()
            for i in range(1, n + 1):
                e = lo + max(1, round((hi - lo) * i / n))
                if not ends or e > ends[-1]:
                    ends.append(min(e, hi))
            count = whole
    if not ends or ends[-1] != len(text):
        ends.append(len(text))
    return ends, METHOD_ESTIMATE


def _inside_word(text: str, pos: int) -> bool:
    return 0 < pos < len(text) and bool(_WORD.match(text[pos - 1])) and bool(
        _WORD.match(text[pos]))


def chunk_spans(text: str, size: int, overlap: int = 0) -> tuple[list[tuple[int, int, int]],
                                                                  str]:
    """The chunks of ``text`` as ``(start, end, tokens)`` character spans, and the tokenizer
    method (rules: the module docstring)."""
    ends, method = _token_ends(text)
    n = len(text)
    total = len(ends)
    if total <= size:
        return ([(0, n, total)] if text.strip() else []), method
    sentence_ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    sentence_starts = [e + (len(text[e:]) - len(text[e:].lstrip())) for e in sentence_ends]

    def tokens_before(c: int) -> int:  # tokens wholly inside text[:c]
        return bisect.bisect_right(ends, c)

    spans = []
    start = 0
    while start < n:
        t0 = tokens_before(start)
        limit_tok = t0 + size
        if limit_tok >= total:
            spans.append((start, n, total - t0))
            break
        limit = ends[limit_tok - 1]
        half = ends[t0 + size // 2 - 1]
        i = bisect.bisect_right(sentence_ends, limit) - 1
        if i >= 0 and sentence_ends[i] >= half and sentence_ends[i] > start:
            end = sentence_ends[i]
        else:
            end = limit
            while end > start and _inside_word(text, end):
                end -= 1
            if end <= start:  # one word longer than a chunk: cut it at the limit
                end = limit
        spans.append((start, end, tokens_before(end) - t0))
        t_next = max(tokens_before(end) - overlap, t0 + 1)
        nxt = ends[t_next - 1] if t_next > 0 else 0
        # the overlap starts at a sentence when one starts within it, else at a word
        j = bisect.bisect_left(sentence_starts, nxt)
        if overlap and j < len(sentence_starts) and sentence_starts[j] < end:
            nxt = sentence_starts[j]
        while nxt < end and _inside_word(text, nxt):
            nxt += 1
        while nxt < n and text[nxt].isspace():
            nxt += 1
        if nxt <= start:
            nxt = end
        start = nxt
        if text[start:].strip() == "":
            break
    return spans, method


# -- the chunk dataset ----------------------------------------------------------------------
@dataclass(frozen=True)
class ChunkSet:
    """A dataset's chunks: ``dataset`` (one :class:`Document` per chunk, id ``c<n>``, the
    original queries and no qrels), and for chunk ``n`` its document's position ``doc[n]``,
    its number within the document ``number[n]`` and its span ``spans[n]`` in the text."""

    dataset: Dataset
    doc: np.ndarray
    number: np.ndarray
    spans: tuple[tuple[int, int], ...]
    tokens: int
    method: str
    size: int
    overlap: int

    @property
    def count(self) -> int:
        return len(self.doc)

    @property
    def most_per_document(self) -> int:
        return int(self.number.max()) + 1 if len(self.number) else 0

    def summary(self) -> dict:
        """``{"chunks", "tokens", "token_method", "size", "overlap", "documents_cut"}``."""
        cut = int(np.count_nonzero(self.number == 1)) if len(self.number) else 0
        return {"chunks": self.count, "tokens": self.tokens, "token_method": self.method,
                "size": self.size, "overlap": self.overlap, "documents_cut": cut,
                "most_per_document": self.most_per_document}


def chunk_dataset(dataset: Dataset, size: int, overlap: int = 0, *,
                  first_only: bool = False) -> ChunkSet:
    """Cut every document of ``dataset`` (see :func:`chunk_spans`); with ``first_only`` keep
    each document's first chunk only (FirstP)."""
    size, overlap, _ = check_chunking(size, overlap)
    docs, owner, number, spans = [], [], [], []
    tokens, method = 0, ""
    for i, d in enumerate(dataset.documents):
        cut, method = chunk_spans(d.text, size, overlap)
        if not cut:  # an empty text stays one (empty) chunk, as the retriever saw it
            cut = [(0, len(d.text), 0)]
        for j, (s, e, n) in enumerate(cut[:1] if first_only else cut):
            docs.append(Document(id=f"c{len(docs)}", text=d.text[s:e].strip(), title=d.title))
            owner.append(i)
            number.append(j)
            spans.append((s, e))
            tokens += n
    chunk_ds = Dataset(documents=docs,
                       queries=[Query(q.id, q.text) for q in dataset.queries],
                       qrels={}, name=f"{dataset.name} (chunks of {size})",
                       source=dataset.source)
    return ChunkSet(chunk_ds, np.asarray(owner, dtype=np.int64),
                    np.asarray(number, dtype=np.int64), tuple(spans), tokens,
                    method or "tiktoken cl100k_base", size, overlap)


def chunk_text(dataset: Dataset, doc_id: str, number: int, size: int, overlap: int = 0) -> str:
    """The text of chunk ``number`` of document ``doc_id`` (for the drill-down)."""
    doc = dataset.documents[dataset.doc_index[str(doc_id)]]
    spans, _ = chunk_spans(doc.text, size, overlap)
    if not 0 <= number < max(len(spans), 1):
        raise RetrievalError(f"document {doc_id!r} has {len(spans)} chunks of {size} tokens, "
                             f"not a chunk {number}")
    return doc.text[spans[number][0]:spans[number][1]].strip() if spans else doc.text


# -- folding --------------------------------------------------------------------------------
def fold(chunks: Ranking, chunk_set: ChunkSet, doc_ids: Sequence[str], *,
         aggregate: str = "max", kmax: int | None = None) -> tuple[Ranking, list[int]]:
    """A document ranking from a ranking of chunks (rules: the module docstring), cut at
    ``kmax``, and for each of its rows the number of the chunk that matched (the best one)."""
    check_chunking(chunk_set.size, chunk_set.overlap, aggregate)
    doc_ids = np.asarray(doc_ids, dtype=object)
    n_docs = max(len(doc_ids), 1)
    counts = np.diff(chunks.offsets)
    q = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    import pandas as pd

    chunk_index = pd.Index([d.id for d in chunk_set.dataset.documents])
    cidx = chunk_index.get_indexer(chunks.doc_ids)
    if (cidx < 0).any():
        raise RetrievalError("the chunk ranking names chunks that are not in the chunk set")
    owner = chunk_set.doc[cidx]
    keys = q * n_docs + owner
    # rows are query by query, best chunk first: a key's first row is its best chunk
    ukeys, first = np.unique(keys, return_index=True)
    score = chunks.scores[first].copy()
    if aggregate == "mean2":
        rest = np.ones(len(keys), dtype=bool)
        rest[first] = False
        k2, second = np.unique(keys[rest], return_index=True)
        second_score = np.full(len(ukeys), np.nan)
        second_score[np.searchsorted(ukeys, k2)] = chunks.scores[np.flatnonzero(rest)[second]]
        per_doc = np.bincount(chunk_set.doc, minlength=n_docs)
        single = per_doc[ukeys % n_docs] == 1
        lows = np.full(len(counts), np.nan)
        nonempty = counts > 0
        lows[nonempty] = np.minimum.reduceat(chunks.scores, chunks.offsets[:-1][nonempty]) \
            if nonempty.any() else lows[nonempty]
        missing = np.isnan(second_score)
        second_score[missing] = lows[ukeys[missing] // n_docs]
        score = np.where(single, score, (score + second_score) / 2.0)
    uq, ud = ukeys // n_docs, ukeys % n_docs
    number = chunk_set.number[cidx[first]]
    # canonical order (score descending, ties by doc id descending), query by query
    doc_rank = np.empty(len(doc_ids), dtype=np.int64)
    doc_rank[np.argsort(doc_ids.astype(str), kind="stable")] = np.arange(len(doc_ids))
    order = np.lexsort((-doc_rank[ud], -score, uq))
    uq, ud, score, number = uq[order], ud[order], score[order], number[order]
    per_q = np.bincount(uq, minlength=len(counts))
    starts = np.concatenate([[0], np.cumsum(per_q)])[:-1]
    depth = len(uq) if kmax is None else int(kmax)
    keep = (np.arange(len(uq)) - starts[uq]) < depth
    offsets = np.concatenate([[0], np.cumsum(np.minimum(per_q, depth))]).astype(np.int64)
    folded = Ranking(chunks.query_ids, offsets, doc_ids[ud[keep]], score[keep],
                     name=chunks.name, canonical=True)
    return folded, number[keep].tolist()


# -- the retriever --------------------------------------------------------------------------
class ChunkedRetriever:
    """Any retriever (BM25, dense) over the chunks of the documents, folded back to a
    document ranking. ``resources`` (after :meth:`rank`) holds the chunk summary and, per
    query, the number of the matched chunk of each ranked document."""

    def __init__(self, inner, *, size: int, overlap: int = 0, aggregate: str = "max") -> None:
        self.inner = inner
        self.size, self.overlap, self.aggregate = check_chunking(size, overlap, aggregate)
        self.name = f"{inner.name} · chunks {self.size}/{self.overlap} {self.aggregate}"
        self.resources: dict = {}
        self._sets: dict[str, ChunkSet] = {}

    @property
    def usage(self) -> dict:
        return self.inner.usage

    def chunks(self, dataset: Dataset) -> ChunkSet:
        """The chunk set of ``dataset`` (cut once per dataset)."""
        key = dataset.fingerprint()
        if key not in self._sets:
            self._sets[key] = chunk_dataset(dataset, self.size, self.overlap,
                                            first_only=self.aggregate == "first")
        return self._sets[key]

    def config(self) -> dict:
        inner = dict(self.inner.config())
        return {**inner, "chunking": {"size": self.size, "overlap": self.overlap,
                                      "aggregate": self.aggregate}}

    def rank(self, dataset: Dataset, queries: Sequence[Query], kmax: int, *, progress=None,
             cancel: threading.Event | None = None) -> Ranking:
        chunk_set = self.chunks(dataset)
        depth = min(chunk_set.count, kmax * max(1, min(chunk_set.most_per_document,
                                                         _DEPTH_FACTOR)))
        ranked = self.inner.rank(chunk_set.dataset, queries, max(depth, 1), progress=progress,
                                 cancel=cancel)
        folded, rows = fold(ranked, chunk_set, [d.id for d in dataset.documents],
                            aggregate=self.aggregate, kmax=kmax)
        matched = {qid: rows[lo:hi] for qid, lo, hi in
                   zip(folded.query_ids, folded.offsets[:-1], folded.offsets[1:])}
        # the inner retriever's index is over the chunks (index_bytes, vectors = chunks)
        self.resources = {**dict(getattr(self.inner, "resources", None) or {}),
                          "chunks": {**chunk_set.summary(), "aggregate": self.aggregate,
                                     "depth": depth, "matched": matched}}
        return folded


def matched_chunk(run_resources: dict, query_id: str, rank: int) -> int | None:
    """The number of the chunk that matched at 1-based ``rank`` of ``query_id``, from a run's
    ``resources`` (None when the run was not chunked)."""
    rows = ((run_resources or {}).get("chunks") or {}).get("matched", {}).get(str(query_id))
    if not rows or not 1 <= rank <= len(rows):
        return None
    return int(rows[rank - 1])
