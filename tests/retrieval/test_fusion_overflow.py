"""Fusion of huge scores: DBSF with scores of 1e155 (their squares overflow) and CombSUM /
CombMNZ / α over min-max with ±1e308 (their spread overflows) give finite scores — the very
scores, and so the ranking, of the same runs scaled down, which ranx (and Qdrant's client
for DBSF) compute without overflow; what cannot be made finite is refused with a sentence."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from paths import ROOT

from ragdash.cli import main
from ragdash.errors import RetrievalError
from ragdash.ranking import Ranking
from ragdash.retrieval.fusion import fuse, normalized_scores

ranx = pytest.importorskip("ranx")
warnings.filterwarnings("ignore", category=Warning, module="numba")

ALL = 10**9
SCALE = 2.0**1000  # exact: scaling by a power of two changes no digit of the mantissa


def small_runs(seed: int = 5, nq: int = 12):
    """Two runs with scores in [-1.7, 1.7] (so × 2^1000 reaches ±1.7e301 and ×2^1023 ±1.5e308)
    and one in [0.5, 1.3] (× 2^514 ≈ 1e155)."""
    rng = np.random.default_rng(seed)
    runs = []
    for name, lo, hi in (("a", -1.7, 1.7), ("b", 0.5, 1.3)):
        run = {}
        for q in range(nq):
            n = int(rng.integers(2, 15))
            docs = rng.choice(40, n, replace=False)
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, rng.uniform(lo, hi, n))}
        runs.append(Ranking.from_dict(run, name=name))
    return runs


def scaled(ranking: Ranking, factor: float) -> Ranking:
    return Ranking.from_dict({q: {d: s * factor for d, s in r.items()}
                              for q, r in ranking.to_dict().items()}, name=ranking.name)


def as_ranx(ranking: Ranking):
    return ranx.Run({q: dict(r) for q, r in ranking.to_dict().items()})


def assert_same_scores(ours: Ranking, theirs: dict, tol: float = 1e-9):
    o = ours.to_dict()
    assert o.keys() == theirs.keys()
    for q in o:
        assert o[q].keys() == theirs[q].keys(), q
        for d, s in o[q].items():
            assert math.isfinite(s) and abs(s - theirs[q][d]) <= tol, (q, d, s, theirs[q][d])


@pytest.mark.parametrize("method, kwargs, norm, ranx_method, params", [
    ("combsum", {"norm": "minmax"}, "min-max", "sum", {}),
    ("combmnz", {"norm": "minmax"}, "min-max", "mnz", {}),
    ("combsum", {"norm": "zscore"}, "zmuv", "sum", {}),
    ("alpha", {"alpha": 0.3}, "min-max", "wsum", {"weights": [0.3, 0.7]}),
])
def test_plus_minus_1e308_fuse_to_what_ranx_gives_the_runs_scaled_down(method, kwargs, norm,
                                                                     ranx_method, params):
    a, b = small_runs()
    huge = [scaled(a, 2.0**1023), scaled(b, 2.0**1023)]
    assert max(abs(s) for r in huge for s in r.scores) > 1.4e308
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # not even an overflow on the way
        fused = fuse(huge, method, depth=ALL, **kwargs)
    theirs = ranx.fuse([as_ranx(a), as_ranx(b)], norm=norm, method=ranx_method,
                       params=params).to_dict()
    assert_same_scores(fused, theirs)
    # the old formula on the huge runs: nan everywhere (ranx's too)
    with np.errstate(all="ignore"):
        spread = huge[0].scores.max() - huge[0].scores.min()
    assert not math.isfinite(spread)


def test_dbsf_of_1e155_scores_is_qdrants_dbsf_of_the_runs_scaled_down():
    from qdrant_client.http import models
    from qdrant_client.hybrid.fusion import distribution_based_score_fusion

    a, b = small_runs()
    huge = [scaled(a, 2.0**514), scaled(b, 2.0**514)]
    assert min(abs(s) for s in huge[1].scores) > 1e154
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fused = fuse(huge, "dbsf", depth=ALL)
    theirs = {}
    for q in fused.query_ids:
        responses = []
        for r in (a, b):
            if q in r:
                docs, scores = r.get(q)
                responses.append([models.ScoredPoint(id=int(d[1:]), version=0, score=float(s))
                                  for d, s in zip(docs, scores)])
        theirs[q] = {f"d{p.id}": p.score
                     for p in distribution_based_score_fusion(responses, 10**6)}
    assert_same_scores(fused, theirs)


def test_a_query_with_infinite_scores_is_normalized_by_rank():
    run = Ranking.from_dict({"q1": {"d1": math.inf, "d2": 5.0, "d3": -math.inf},
                             "q2": {"d1": 3.0, "d2": 1.0}}, name="x")
    for norm in ("minmax", "zscore", "dbsf"):
        got = normalized_scores(run, norm)
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got[:3], normalized_scores(run, "rank")[:3])


def test_weights_that_overflow_are_refused_with_a_sentence():
    a, b = small_runs()
    with pytest.raises(RetrievalError) as caught:
        fuse([a, b], "combsum", norm="zscore", weights=[1.7e308, 1.7e308])
    said = str(caught.value)
    assert "CombSUM cannot give" in said and "finite fused score" in said
    assert "smaller weights" in said and "\n" not in said


QRELS = ROOT / "ragdash" / "data" / "samples" / "jsquad-mini" / "qrels" / "test.tsv"


@pytest.fixture(scope="module")
def huge_run_files(tmp_path_factory):
    """A BM25 run of the sample with its scores × 2^514 (≈1e155: DBSF's squares overflow) and
    the same ranking scored from +1.7e308 down to −1.7e308 (the min-max spread overflows)."""
    folder = tmp_path_factory.mktemp("huge")
    small = folder / "small.run"
    assert main(["evaluate", str(QRELS.parent.parent), "--kmax", "20", "--k", "10",
                 "--save-run", str(small), "--format", "json"]) == 0
    bm25 = Ranking.read_trec(small)
    huge_a, huge_c = folder / "a.run", folder / "c.run"
    scaled(bm25, 2.0**514).write_trec(huge_a)
    Ranking.from_dict({q: {d: 1.7e308 * (1 - 2 * i / max(len(r) - 1, 1))
                           for i, d in enumerate(r)} for q, r in bm25.to_dict().items()},
                      name="c").write_trec(huge_c)
    return huge_a, huge_c


@pytest.mark.parametrize("method", ["dbsf", "combsum", "combmnz", "alpha"])
def test_fuse_command_writes_finite_scores_that_score_reads(huge_run_files, tmp_path, capsys,
                                                            method):
    out = tmp_path / "fused.run"
    capsys.readouterr()
    assert main(["fuse", str(QRELS), *map(str, huge_run_files), "--method", method,
                 "--save-run", str(out), "--k", "10", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    fused = Ranking.read_trec(out)
    assert np.isfinite(fused.scores).all() and len(fused.scores) > 100
    assert main(["score", str(QRELS), str(out), "--k", "10", "--format", "json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["metrics"]["ndcg@10"] == pytest.approx(report["metrics"]["ndcg@10"])
    # both inputs rank alike, so the fusion is as good as they are (the bug gave 0.02)
    assert report["metrics"]["ndcg@10"] >= 0.9 * min(i["metrics"]["ndcg@10"]
                                                     for i in report["inputs"])
