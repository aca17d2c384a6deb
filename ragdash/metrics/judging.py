"""Judging a ranking against qrels: the queries × Kmax matrices the kernels need.

The join of retrieved (query, doc id) pairs with the judged pairs is vectorized: judged doc
ids get integer codes from one dict, every retrieved doc id is looked up once (a C-level
``map``), and the (query, doc) pairs become int64 keys matched with ``searchsorted``. There
is no Python loop over (query, document) pairs of the run.

Ids are compared as strings. Qrels whose keys are not strings (ints from a Python literal,
or ``relevance_scores`` that went through JSON and came back as strings while the run kept
ints — the bug that made every NDCG 0 in the article this project grew from) are normalised
with ``str()``, on both sides, before the join.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import chain, repeat

import numpy as np

from .. import params
from ..errors import MetricError
from ..i18n import error
from .kernels import Judged

GAINS = params.GAINS


def is_relevant(grades, level: float | None = None):
    """The relevance rule, stated once: a grade counts as relevant when it is > 0, or ≥
    ``level`` when a relevance level is given. ``grades`` is one number or a numpy array (then
    the answer is a bool array of the same shape). NDCG's gains do not use this rule: they are
    the grades themselves."""
    return grades > 0 if level is None else grades >= level


def flatten_qrels(qrels: Mapping, qids: list[str]):
    """Judgements of ``qids`` as flat arrays: (query row, doc id, grade).

    Keys are normalised with ``str()``; grades must be finite numbers.
    """
    if not isinstance(qrels, Mapping):
        raise MetricError(f"qrels must be a mapping query id -> {{doc id: grade}}, "
                          f"not {type(qrels).__name__}")
    by_str = _str_keyed(qrels)
    rows, per_query = [], []
    for i, q in enumerate(qids):
        judged = by_str.get(q)
        if judged:
            if not isinstance(judged, Mapping):
                raise MetricError(f"qrels for query {q!r} must be a mapping doc id -> grade, "
                                  f"not {type(judged).__name__}")
            rows.append(i)
            per_query.append(judged)
    counts = np.fromiter(map(len, per_query), dtype=np.int64, count=len(per_query))
    qrow = np.repeat(np.asarray(rows, dtype=np.int64), counts)
    docs = list(chain.from_iterable(per_query))
    if not all(type(d) is str for d in docs):
        docs = [str(d) for d in docs]
    try:
        grades = np.fromiter(chain.from_iterable(d.values() for d in per_query),
                             dtype=np.float64, count=len(docs))
        ok = bool(np.isfinite(grades).all())
    except (TypeError, ValueError):
        ok = False
    if not ok:
        _raise_bad_grade(per_query, [qids[r] for r in rows])
    return qrow, docs, grades


def _str_keyed(qrels: Mapping) -> Mapping:
    if all(type(q) is str for q in qrels):
        return qrels
    out: dict[str, Mapping] = {}
    for q, judged in qrels.items():
        key = str(q)
        if key in out:
            raise MetricError(f"qrels name query {key!r} twice (as {q!r} and as another key "
                              f"with the same text); keep one")
        out[key] = judged
    return out


def _raise_bad_grade(per_query: list[Mapping], qids: list[str]) -> None:
    for q, judged in zip(qids, per_query):
        for d, g in judged.items():
            try:
                ok = math.isfinite(float(g))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise MetricError(f"qrels: grade {g!r} of document {str(d)!r} for query {q!r} "
                                  f"is not a finite number; grades must be numbers such as 0, "
                                  f"1, 2 (or 0.8)")
    raise MetricError("qrels: a grade is not a finite number")


def judge(ranking, qrels: Mapping, qids: list[str], kmax: int, *,
          relevance_level: float | None = None, gain: str = "linear",
          judged_only: bool = False):
    """The :class:`Judged` matrices of ``qids`` (in that order), and which were in the run.

    ``judged_only``: condensed lists (trec_eval's ``-J``, Sakai's nDCG′/AP′): each ranking
    loses its unjudged documents before it is cut at Kmax, so the documents below move up.
    Judged@K still counts the ranking as retrieved.
    """
    if gain not in GAINS:
        raise error(MetricError, "metric.unknown_gain", gain=gain, names=", ".join(GAINS))
    level = _check_level(relevance_level)
    nq = len(qids)
    qrow, jdocs, grades = flatten_qrels(qrels, qids)
    code_of = {d: i for i, d in enumerate(dict.fromkeys(jdocs))}
    ndocs = max(len(code_of), 1)
    jkeys, jgrades = _judged_keys(qrow, jdocs, grades, code_of, qids)
    row, col, rcodes, in_run = _retrieved(ranking, qids, None if judged_only else kmax,
                                          code_of)

    # the join: (query row, doc code) keys of the run looked up among the judged ones
    is_judged = np.zeros(len(row), dtype=bool)
    grade_of = np.zeros(len(row), dtype=np.float64)
    hit = np.flatnonzero(rcodes >= 0)
    if len(hit) and len(jkeys):
        rkeys = row[hit] * ndocs + rcodes[hit]
        pos = np.searchsorted(jkeys, rkeys)
        pos_ok = pos < len(jkeys)
        matched = np.zeros(len(hit), dtype=bool)
        matched[pos_ok] = jkeys[pos[pos_ok]] == rkeys[pos_ok]
        is_judged[hit[matched]] = True
        grade_of[hit[matched]] = jgrades[pos[matched]]

    coverage = np.zeros((nq, kmax), dtype=bool)
    top = col < kmax
    coverage[row[top], col[top]] = is_judged[top]
    if judged_only:
        row, grade_of = row[is_judged], grade_of[is_judged]
        col = np.arange(len(row), dtype=np.int64) - np.searchsorted(row, row, side="left")
        is_judged = np.ones(len(row), dtype=bool)
        top = col < kmax
    grade_matrix = np.zeros((nq, kmax), dtype=np.float64)
    judged = np.zeros((nq, kmax), dtype=bool)
    grade_matrix[row[top], col[top]] = grade_of[top]
    judged[row[top], col[top]] = is_judged[top]

    relevant, judged_relevant = is_relevant(grade_matrix, level), is_relevant(grades, level)
    num_relevant = np.bincount(qrow, weights=judged_relevant, minlength=nq).astype(np.float64)
    num_judged = np.bincount(qrow, minlength=nq).astype(np.float64)
    gains = _gain(grade_matrix, gain)
    ideal = _ideal(qrow, _gain(grades, gain), nq, kmax)
    return Judged(relevant, gains, ideal, num_relevant, judged, num_judged - num_relevant,
                  coverage), in_run


def _check_level(level) -> float | None:
    if level is None:
        return None
    try:
        value = float(level)
    except (TypeError, ValueError):
        raise error(MetricError, "metric.level_not_number", level=level) from None
    if not value > 0 or not math.isfinite(value):
        raise error(MetricError, "metric.level_not_positive", level=level)
    return value


def _judged_keys(qrow, jdocs, grades, code_of, qids):
    """Sorted int64 keys ``query row * ndocs + doc code`` of the judgements, and grades."""
    ndocs = max(len(code_of), 1)
    jcodes = np.fromiter(map(code_of.__getitem__, jdocs), dtype=np.int64, count=len(jdocs))
    jkeys = qrow * ndocs + jcodes
    order = np.argsort(jkeys, kind="stable")
    jkeys, jgrades = jkeys[order], grades[order]
    twice = np.flatnonzero(jkeys[1:] == jkeys[:-1])
    if len(twice):  # only after str(): a dict cannot hold one key twice
        k = int(jkeys[twice[0]])
        doc = next(d for d, c in code_of.items() if c == k % ndocs)
        raise MetricError(f"qrels judge document {doc!r} twice for query {qids[k // ndocs]!r} "
                          f"(keys that differ only in type, like 7 and '7'); keep one")
    return jkeys, jgrades


def _retrieved(ranking, qids, kmax, code_of):
    """The top Kmax (``None``: all) of each query, flattened: row, column (rank - 1), judged
    doc code (-1 if unjudged); and which queries the run has at all."""
    nq = len(qids)
    index = ranking.index
    rrow = np.fromiter((index.get(q, -1) for q in qids), dtype=np.int64, count=nq)
    in_run = rrow >= 0
    offsets = ranking.offsets
    safe = np.where(in_run, rrow, 0)
    if len(ranking.query_ids):
        starts, ends = offsets[safe], offsets[safe + 1]
    else:  # an empty run: every query is absent (offsets is just [0])
        starts = ends = np.zeros(nq, dtype=np.int64)
    depth = ends - starts if kmax is None else np.minimum(ends - starts, kmax)
    lens = np.where(in_run, depth, 0)
    total = int(lens.sum())
    base = np.cumsum(lens) - lens
    col = np.arange(total, dtype=np.int64) - np.repeat(base, lens)
    row = np.repeat(np.arange(nq, dtype=np.int64), lens)
    whole = total == int(ranking.offsets[-1]) and np.array_equal(starts, base)
    flat = None if whole else col + np.repeat(starts, lens)
    vocab = getattr(ranking, "_doc_vocab", None)
    if vocab is not None:  # the parser's distinct doc ids: look each up once
        words, codes = vocab
        rcodes = _codes_of(words.tolist(), code_of)[codes if whole else codes[flat]]
    else:
        docs = ranking.doc_ids if whole else ranking.doc_ids[flat]
        rcodes = _codes_of(docs.tolist(), code_of)
    return row, col, rcodes, in_run


def _codes_of(doc_ids: list, code_of: dict[str, int]) -> np.ndarray:
    """Code of each doc id in ``code_of``, -1 if unjudged; non-string ids compare as str()."""
    out = np.fromiter(map(code_of.get, doc_ids, repeat(-1)), dtype=np.int64,
                      count=len(doc_ids))
    if not set(map(type, doc_ids)) <= {str}:
        out = np.fromiter((code_of.get(str(d), -1) for d in doc_ids), dtype=np.int64,
                          count=len(doc_ids))
    return out


def _gain(grades: np.ndarray, gain: str) -> np.ndarray:
    g = np.maximum(grades, 0.0)
    return g if gain == "linear" else np.exp2(g) - 1.0


def _ideal(qrow: np.ndarray, gains: np.ndarray, nq: int, kmax: int) -> np.ndarray:
    """Per query, the gains of all judged documents sorted descending, cut at Kmax."""
    ideal = np.zeros((nq, kmax), dtype=np.float64)
    pos = gains > 0
    q, g = qrow[pos], gains[pos]
    if len(g) == 0:
        return ideal
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    first = np.searchsorted(q, q, side="left")
    rank = np.arange(len(q)) - first
    keep = rank < kmax
    ideal[q[keep], rank[keep]] = g[keep]
    return ideal


def query_list(ranking, qrels: Mapping, queries: Iterable | None) -> list[str]:
    """The evaluated query ids: given ones (as strings), else run ∩ qrels in run order.

    As in trec_eval, a query is "in the qrels" when it has at least one judgement: an empty
    ``{}`` entry does not count.
    """
    if queries is None:
        if not isinstance(qrels, Mapping):
            raise MetricError(f"qrels must be a mapping query id -> {{doc id: grade}}, "
                              f"not {type(qrels).__name__}")
        keys = {str(q) for q, judged in qrels.items() if judged}
        return [q for q in ranking.query_ids if q in keys]
    if isinstance(queries, str):
        raise MetricError("queries must be a list of query ids, not one string")
    qids = [str(q) for q in queries]
    if len(set(qids)) != len(qids):
        seen: set[str] = set()
        dup = next(q for q in qids if q in seen or seen.add(q))
        raise MetricError(f"query {dup!r} is listed twice in queries; list each once")
    return qids
