"""The judging pool: the union of the top ``depth`` of several runs (TREC's pooling).

For every run, the documents at ranks 1..depth of each query (canonical order: score
descending, ties by doc id descending) are taken; the pool is the set of distinct (query,
document) pairs over all runs. Pairs the human qrels already judge are marked ``judged``
(they are not sent to the judge, except as calibration pairs); the rest are ``to judge``.
Pairs whose query or document the dataset does not have cannot be judged (there is no text to
show) and are counted apart.

Vectorized: the top ``depth`` rows of each run are cut with one mask over its flat columns;
query ids get codes from the runs' query lists, document ids from one ``pandas.factorize``
over all runs' kept rows; a pair is
an int64 key ``query_code × n_docs + doc_code``; the pool is ``np.unique`` of the keys, a
run's membership a ``searchsorted`` of its keys in the pool, and the human judgements are
looked up the same way. No Python loop runs over pairs (``bench/bench_judge.py`` pools 10 runs
× 10,000 queries × depth 20).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import pandas as pd

from ..ranking import Ranking

__all__ = ["Pool", "build_pool", "top_depth"]


def top_depth(ranking: Ranking, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """(query row of each kept entry, doc id) for ranks 1..``depth`` of every query."""
    counts = np.diff(ranking.offsets)
    n = int(ranking.offsets[-1])
    rank = np.arange(n, dtype=np.int64) - np.repeat(ranking.offsets[:-1], counts)
    keep = rank < int(depth)
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)[keep]
    return rows, ranking.doc_ids[keep]


@dataclass
class Pool:
    """Distinct (query, document) pairs of the runs' top ``depth``, grouped by query (queries
    and, within one, documents in order of first appearance across the runs).

    ``member[p, r]``: pair ``p`` is in run ``r``'s top ``depth``. ``human[p]``: the human
    grade where the qrels judge the pair, else nan (``judged`` says which).
    """

    query_ids: np.ndarray          #: (pairs,) object
    doc_ids: np.ndarray            #: (pairs,) object
    human: np.ndarray              #: (pairs,) float, nan where not judged
    member: np.ndarray             #: (pairs, runs) bool
    run_names: list[str]
    depth: int
    #: pairs left out because the dataset lacks the query's or the document's text
    unknown_queries: int = 0
    unknown_docs: int = 0
    unknown_examples: dict = field(default_factory=dict)

    @property
    def judged(self) -> np.ndarray:
        return ~np.isnan(self.human)

    def __len__(self) -> int:
        return len(self.doc_ids)

    def per_run(self) -> list[dict]:
        """For each run: pairs in its top ``depth``, of which judged and to judge."""
        judged = self.judged
        out = []
        for r, name in enumerate(self.run_names):
            m = self.member[:, r]
            total = int(m.sum())
            done = int((m & judged).sum())
            out.append({"run": name, "pairs": total, "already_judged": done,
                        "to_judge": total - done,
                        "only_here": int((m & ~judged & (self.member.sum(axis=1) == 1)).sum())})
        return out


def _codes(values: np.ndarray, vocab: pd.Index) -> np.ndarray:
    return vocab.get_indexer(values).astype(np.int64)


def _distinct(ids: Sequence[str]) -> pd.Index:
    """An index of ``ids`` once each (a dataset may name an id twice; validation says so)."""
    return pd.Index(pd.unique(np.asarray(ids, dtype=object)), dtype=object)


def build_pool(rankings: Sequence[Ranking], depth: int, qrels: Mapping[str, Mapping],
               *, known_queries: Sequence[str] | None = None,
               known_docs: Sequence[str] | None = None,
               names: Sequence[str] | None = None) -> Pool:
    """The pool of ``rankings``' top ``depth`` against the human ``qrels``.

    ``known_queries`` / ``known_docs``: the ids the dataset has texts for (None: all known);
    pairs outside them are counted in ``unknown_queries`` / ``unknown_docs`` and left out.
    """
    names = list(names) if names is not None else [r.name for r in rankings]
    # query codes come from the runs' query lists (thousands), not from their rows (millions)
    q_vocab = pd.Index(pd.unique(np.concatenate(
        [np.asarray(r.query_ids, dtype=object) for r in rankings]
        or [np.empty(0, dtype=object)])), dtype=object)
    q_parts, d_parts, counts = [], [], []
    for ranking in rankings:
        rows, docs = top_depth(ranking, depth)
        q_parts.append(_codes(np.asarray(ranking.query_ids, dtype=object), q_vocab)[rows])
        d_parts.append(docs)
        counts.append(len(rows))
    qc = np.concatenate(q_parts) if q_parts else np.empty(0, dtype=np.int64)
    ds = np.concatenate(d_parts) if d_parts else np.empty(0, dtype=object)
    del q_parts, d_parts
    runs = np.repeat(np.arange(len(rankings), dtype=np.int32), counts)

    unknown_q = unknown_d = 0
    examples: dict[str, str] = {}
    keep = np.ones(len(ds), dtype=bool)
    if known_queries is not None:
        ok_vocab = _distinct(known_queries).get_indexer(q_vocab) >= 0
        ok = ok_vocab[qc] if len(qc) else np.ones(0, dtype=bool)
        if not ok.all():
            examples["query"] = str(q_vocab[qc[~ok][0]])
            unknown_q = len(np.unique(qc[~ok]))
        keep &= ok
    if known_docs is not None:
        ok = _distinct(known_docs).get_indexer(ds) >= 0
        if not ok.all():
            examples["document"] = str(ds[~ok][0])
            unknown_d = len(pd.unique(ds[~ok]))
        keep &= ok
    if not keep.all():
        qc, ds, runs = qc[keep], ds[keep], runs[keep]

    d_codes, d_vocab = pd.factorize(ds)
    d_vocab = pd.Index(d_vocab, dtype=object)
    n_docs = max(len(d_vocab), 1)
    keys = qc * n_docs + d_codes
    del qc, d_codes, ds
    pool_keys, inverse = np.unique(keys, return_inverse=True)
    del keys
    member = np.zeros((len(pool_keys), len(rankings)), dtype=bool)
    member[inverse, runs] = True

    human = np.full(len(pool_keys), np.nan)
    judged_q = [q for q in qrels if qrels[q]]
    if judged_q and len(pool_keys):
        per_query = [qrels[q] for q in judged_q]
        lengths = np.fromiter(map(len, per_query), dtype=np.int64, count=len(per_query))
        hq = _codes(np.asarray(judged_q, dtype=object), q_vocab)
        hq = np.repeat(hq, lengths)
        hd = _codes(np.fromiter(chain.from_iterable(per_query), dtype=object,
                                count=int(lengths.sum())), d_vocab)
        grades = np.fromiter(chain.from_iterable(d.values() for d in per_query),
                             dtype=np.float64, count=int(lengths.sum()))
        inside = (hq >= 0) & (hd >= 0)
        hkeys = hq[inside] * n_docs + hd[inside]
        at = np.searchsorted(pool_keys, hkeys)
        at_ok = at < len(pool_keys)
        hit = np.zeros(len(hkeys), dtype=bool)
        hit[at_ok] = pool_keys[at[at_ok]] == hkeys[at_ok]
        human[at[hit]] = grades[inside][hit]

    return Pool(query_ids=q_vocab.values[pool_keys // n_docs],
                doc_ids=d_vocab.values[pool_keys % n_docs], human=human, member=member,
                run_names=names, depth=int(depth), unknown_queries=unknown_q,
                unknown_docs=unknown_d, unknown_examples=examples)
