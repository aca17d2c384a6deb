"""Fusion against independent oracles: ``ranx.fuse`` (RRF, CombSUM, CombMNZ, weighted sum /
hybrid α, over min-max, z-score and rank normalization) and Qdrant's own client code for DBSF,
on BM25 runs of tests/data/jsquad-valid and on random runs (ties, missing documents, one-doc
queries, queries missing from a run)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from paths import JSQUAD

from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import RetrievalError
from ragdash.ranking import Ranking
from ragdash.retrieval import BM25Retriever
from ragdash.retrieval.fusion import fuse, normalized_scores, shallow_inputs

ranx = pytest.importorskip("ranx")
warnings.filterwarnings("ignore", category=Warning, module="numba")

ALL = 10**9  # keep the whole union, as ranx does


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def bm25_runs():
    docs = [Document(o["_id"], o["text"], o.get("title", ""))
            for o in read_jsonl(JSQUAD / "corpus.jsonl")]
    queries = [Query(o["_id"], o["text"]) for o in read_jsonl(JSQUAD / "queries.jsonl")][:200]
    ds = Dataset(docs, queries, {q.id: {} for q in queries}, name="jsquad")
    a = BM25Retriever().rank(ds, queries, 30)
    b = BM25Retriever(k1=0.6, b=0.2).rank(ds, queries, 40)
    a.name, b.name = "bm25", "bm25-flat"
    return a, b


def random_run(rng, nq=40, ndocs=60, *, ties=False, name="r", drop=()):
    run = {}
    for q in range(nq):
        if q in drop:
            continue
        n = int(rng.integers(1, 25))
        docs = rng.choice(ndocs, n, replace=False)
        scores = rng.normal(3.0, 2.0, n)
        if ties:
            scores = np.round(scores)
        run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores)}
    return Ranking.from_dict(run, name=name)


def as_ranx(ranking: Ranking, *, rank_scores: bool = False):
    """A ranx Run; with ``rank_scores`` the scores are replaced by n − position, so ranx sees
    ragdash's canonical order (its own sort orders tied scores its own way)."""
    d = {}
    for q, docs, scores in ranking.items():
        vals = np.arange(len(docs), 0, -1, dtype=float) if rank_scores else scores
        d[q] = dict(zip(docs, map(float, vals)))
    return ranx.Run(d)


def assert_same(ours: Ranking, theirs, tol=1e-9):
    t = theirs.to_dict()
    o = ours.to_dict()
    assert set(o) == set(t)
    n = 0
    for q in o:
        assert set(o[q]) == set(t[q]), q
        for d, s in o[q].items():
            assert abs(s - t[q][d]) <= tol, (q, d, s, t[q][d])
            n += 1
    assert n > 0
    # canonical order: score descending, ties by doc id descending
    for _, docs, scores in ours.items():
        for i in range(len(docs) - 1):
            assert scores[i] > scores[i + 1] or (scores[i] == scores[i + 1]
                                                 and docs[i] > docs[i + 1])


def ranx_fuse(runs, norm, method, params=None, rank_scores=False):
    return ranx.fuse([as_ranx(r, rank_scores=rank_scores) for r in runs], norm=norm,
                     method=method, params=params or {})


CASES = [  # (ours, ranx norm, ranx method, rank-based?)
    (dict(method="rrf"), None, "rrf", True),
    (dict(method="combsum", norm="minmax"), "min-max", "sum", False),
    (dict(method="combsum", norm="zscore"), "zmuv", "sum", False),
    (dict(method="combsum", norm="rank"), "rank", "sum", True),
    (dict(method="combmnz", norm="minmax"), "min-max", "mnz", False),
    (dict(method="combmnz", norm="zscore"), "zmuv", "mnz", False),
    (dict(method="combmnz", norm="rank"), "rank", "mnz", True),
]


@pytest.mark.parametrize("ours,norm,method,by_rank", CASES)
def test_agrees_with_ranx_on_bm25_runs(bm25_runs, ours, norm, method, by_rank):
    fused = fuse(bm25_runs, depth=ALL, **ours)
    assert_same(fused, ranx_fuse(bm25_runs, norm, method, rank_scores=by_rank))


@pytest.mark.parametrize("ours,norm,method,by_rank", CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_ranx_on_random_runs(seed, ours, norm, method, by_rank):
    rng = np.random.default_rng(seed)
    runs = [random_run(rng, name="a", ties=not by_rank), random_run(rng, name="b"),
            random_run(rng, name="c", ties=not by_rank)][: 2 + seed % 2]
    fused = fuse(runs, depth=ALL, **ours)
    assert_same(fused, ranx_fuse(runs, norm, method, rank_scores=by_rank))


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.5, 1.0])
def test_alpha_is_ranx_weighted_sum_over_min_max(bm25_runs, alpha):
    fused = fuse(bm25_runs, "alpha", alpha=alpha, depth=ALL)
    theirs = ranx_fuse(bm25_runs, "min-max", "wsum", {"weights": [alpha, 1 - alpha]})
    assert_same(fused, theirs)


def test_weighted_rrf_and_combsum_agree_with_ranx():
    from numba.typed import List as TypedList
    from ranx.fusion.rrf import _rrf_score_parallel

    rng = np.random.default_rng(7)
    runs = [random_run(rng, name="a"), random_run(rng, name="b")]
    w = [0.3, 1.7]
    # ranx's own RRF scores per run, then ranx's weighted sum
    per_run = []
    for r in runs:
        rr = ranx.Run()
        rr.run = _rrf_score_parallel(as_ranx(r).run, 60)
        per_run.append(rr)
    theirs = ranx.fuse(per_run, norm=None, method="wsum", params={"weights": TypedList(w)})
    assert_same(fuse(runs, "rrf", weights=w, depth=ALL), theirs)
    theirs = ranx_fuse(runs, "zmuv", "wsum", {"weights": w})
    assert_same(fuse(runs, "combsum", norm="zscore", weights=w, depth=ALL), theirs)


def test_rrf_k_changes_scores_as_ranx():
    rng = np.random.default_rng(3)
    runs = [random_run(rng, name="a"), random_run(rng, name="b")]
    assert_same(fuse(runs, "rrf", rrf_k=5, depth=ALL),
                ranx_fuse(runs, None, "rrf", {"k": 5}))


def test_dbsf_agrees_with_qdrant_client():
    from qdrant_client.http import models
    from qdrant_client.hybrid.fusion import distribution_based_score_fusion

    rng = np.random.default_rng(11)
    runs = [random_run(rng, name="a", ties=True), random_run(rng, name="b"),
            random_run(rng, name="c")]
    fused = fuse(runs, "dbsf", depth=ALL)
    n = 0
    for q in fused.query_ids:
        responses = []
        for r in runs:
            docs, scores = r.get(q)
            responses.append([models.ScoredPoint(id=int(d[1:]), version=0, score=float(s))
                              for d, s in zip(docs, scores)])
        theirs = {f"d{p.id}": p.score for p in distribution_based_score_fusion(responses, 10**6)}
        docs, scores = fused.get(q)
        assert dict(zip(docs, scores)).keys() == theirs.keys()
        for d, s in zip(docs, scores):
            assert s == pytest.approx(theirs[d], abs=1e-9)
            n += 1
    assert n > 100


def test_dbsf_flat_and_single_document_queries_score_half():
    a = Ranking.from_dict({"q": {"x": 2.0, "y": 2.0}, "p": {"z": 7.0}})
    assert normalized_scores(a, "dbsf").tolist() == [0.5, 0.5, 0.5]


def test_queries_missing_from_one_run_and_depth():
    rng = np.random.default_rng(5)
    a = random_run(rng, name="a", drop={0, 1})
    b = random_run(rng, name="b", drop={2})
    fused = fuse([a, b], "rrf")
    assert set(fused.query_ids) == set(a.query_ids) | set(b.query_ids)
    # q0 comes from b alone: same order as b
    assert fused.get("q0")[0] == b.get("q0")[0]
    # the fused depth is the inputs' depth
    assert fused.kmax == max(a.kmax, b.kmax)
    assert fuse([a, b], "rrf", depth=3).kmax == 3
    assert fuse([a, b], "rrf", depth=ALL).kmax > max(a.kmax, b.kmax)


def test_shallow_inputs_warn():
    a = Ranking.from_dict({"q": {f"d{i}": float(-i) for i in range(5)}}, name="short")
    b = Ranking.from_dict({"q": {f"d{i}": float(i) for i in range(20)}}, name="long")
    msgs = shallow_inputs([a, b], 10)
    assert len(msgs) == 1 and "'short'" in msgs[0] and "5" in msgs[0]
    assert shallow_inputs([a, b], 5) == []


@pytest.mark.parametrize("kwargs,words", [
    (dict(method="nope"), "unknown fusion method"),
    (dict(method="combsum", norm="l2"), "unknown normalization"),
    (dict(method="rrf", weights=[1.0]), "1 weights for 2 runs"),
    (dict(method="rrf", weights=[1.0, -1.0]), "≥ 0"),
    (dict(method="alpha", alpha=1.5), "between 0 and 1"),
    (dict(method="rrf", norm="zscore"), "--norm applies to combsum and combmnz"),
])
def test_bad_arguments_are_one_sentence(kwargs, words):
    a = Ranking.from_dict({"q": {"x": 1.0}})
    b = Ranking.from_dict({"q": {"y": 1.0}})
    with pytest.raises(RetrievalError, match=words):
        fuse([a, b], **kwargs)
    with pytest.raises(RetrievalError, match="at least two"):
        fuse([a])


def test_alpha_zero_and_one_reproduce_the_inputs_order(bm25_runs):
    a, b = bm25_runs
    one = fuse([a, b], "alpha", alpha=1.0, depth=a.kmax)
    # documents only in b get 0 from a, as does a's lowest: the rest come first, in a's order
    checked = 0
    for q in a.query_ids[:50]:
        docs, scores = a.get(q)
        top = [d for d, s in zip(docs, scores) if s > scores.min()]
        assert one.get(q)[0][: len(top)] == top
        checked += len(top)
    assert checked > 100


def test_split_queries_is_seeded_disjoint_and_refuses_what_cannot_be_split():
    from ragdash.retrieval.fusion import split_queries

    ids = [f"q{i}" for i in range(101)]
    tune, test = split_queries(ids, seed=3)
    assert (tune, test) == split_queries(ids, seed=3)
    assert len(tune) == 50 and sorted(tune + test) == sorted(ids)
    assert tune == [q for q in ids if q in set(tune)]  # each half keeps the given order
    assert split_queries(ids, seed=4)[0] != tune
    assert len(split_queries(ids, tune_fraction=0.2)[0]) == 20
    with pytest.raises(RetrievalError, match="1 query cannot be split"):
        split_queries(["q"])
    with pytest.raises(RetrievalError, match="strictly between 0 and 1"):
        split_queries(ids, tune_fraction=1.0)


@pytest.mark.parametrize("method, norm", [("rrf", None), ("combsum", "zscore"), ("dbsf", None)])
def test_weight_sweep_of_any_method_is_its_weighted_fusion_scored(bm25_runs, method, norm):
    from ragdash.metrics import evaluate
    from ragdash.retrieval.fusion import weight_sweep

    a, b = bm25_runs
    rng = np.random.default_rng(1)
    qrels = {q: {str(d): 1 for d in rng.choice(list(a.get(q)[0]) or ["x"], 1)}
             for q in a.query_ids}
    sweep = weight_sweep(a, b, qrels, metric="mrr@10", method=method, norm=norm, seed=3)
    assert sweep.values.shape == (len(qrels), 11)
    for j, alpha in enumerate(sweep.alphas):
        fused = fuse([a, b], method, norm=norm, weights=[alpha, 1 - alpha])
        want = evaluate(fused, qrels, kmax=40, queries=list(sweep.query_ids)).value("mrr@10")
        np.testing.assert_allclose(sweep.values[:, j], want, atol=1e-12)
    assert sweep.tune.sum() == 100 and sweep.chosen_alpha in sweep.alphas
    assert sweep.test_value == pytest.approx(sweep.values[~sweep.tune, sweep.chosen].mean())
