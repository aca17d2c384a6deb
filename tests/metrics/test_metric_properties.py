"""Property tests over random runs and qrels (hypothesis), plus independent oracles:
pytrec_eval for the trec_eval measures and a direct loop for exponential-gain nDCG."""

from __future__ import annotations

from math import log2

import numpy as np
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragdash import Ranking
from ragdash.metrics import FAMILY_NAMES, QUALITY_NAMES, evaluate

DOCS = [f"d{i}" for i in range(12)] + ["日本", "Z", "a b"[:1]]
QIDS = ["q1", "q2", "q3", "q4", "10", "9"]

runs = st.dictionaries(
    st.sampled_from(QIDS),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0]),
                    min_size=1, max_size=12),
    max_size=6)
qrels_st = st.dictionaries(
    st.sampled_from(QIDS),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from([-1, 0, 1, 2, 3]), max_size=8),
    max_size=6)

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(runs, qrels_st, st.integers(1, 15))
def test_values_are_in_unit_interval_and_monotone_where_they_must_be(run, qrels, kmax):
    table = evaluate(Ranking.from_dict(run), qrels, kmax=kmax)
    for fam in FAMILY_NAMES:
        v = table.values[fam]
        assert v.shape == (len(table), kmax)
        assert ((v >= 0) & (v <= 1 + 1e-12)).all(), fam
    for fam in ("recall", "hit_rate", "mrr", "map", "bpref"):
        assert (np.diff(table.values[fam], axis=1) >= -1e-15).all(), fam
    # relevant found in the top K = P@K * K: whole numbers, non-decreasing, at most K
    found = table.values["precision"] * np.arange(1, kmax + 1)
    assert np.allclose(found, np.round(found))
    assert (np.diff(found, axis=1) >= -1e-9).all()
    # a hit whenever anything relevant was found; recall never above the hit rate
    assert (table.values["hit_rate"] >= table.values["recall"]).all()
    assert (table.values["hit_rate"] >= table.values["mrr"]).all()
    # queries without a relevant document score 0 on every quality metric (Judged@K measures
    # the labels, not the ranking)
    for fam in QUALITY_NAMES:
        assert (table.values[fam][table.no_relevant] == 0).all()


@SETTINGS
@given(qrels_st, st.integers(1, 12), st.sampled_from(["linear", "exponential"]))
def test_ndcg_of_the_ideal_ranking_is_one(qrels, kmax, gain):
    # rank every judged document by its grade: no ordering can do better
    ideal = {q: {d: float(g) for d, g in judged.items()} for q, judged in qrels.items()
             if judged}
    table = evaluate(Ranking.from_dict(ideal), qrels, kmax=kmax, gain=gain)
    has_gain = np.array([any(g > 0 for g in qrels[q].values()) for q in table.query_ids],
                        dtype=bool)
    assert np.allclose(table.values["ndcg"][has_gain], 1.0)
    assert (table.values["ndcg"][~has_gain] == 0).all()
    # and every relevant document is found once K covers them
    for i, q in enumerate(table.query_ids):
        n_rel = sum(g > 0 for g in qrels[q].values())
        if 0 < n_rel <= kmax:
            assert table.values["recall"][i, n_rel - 1] == 1.0
            assert table.values["map"][i, -1] == 1.0


@SETTINGS
@given(runs, qrels_st, st.sampled_from([None, 1, 2, 3]))
def test_random_runs_agree_with_pytrec_eval(run, qrels, level):
    ranking = Ranking.from_dict(run)
    kmax = 13
    table = evaluate(ranking, qrels, kmax=kmax, relevance_level=level)
    ks = ",".join(map(str, range(1, kmax + 1)))
    kw = {} if level is None else {"relevance_level": level}
    ev = pytrec_eval.RelevanceEvaluator(
        qrels, {f"recall.{ks}", f"P.{ks}", f"success.{ks}", f"ndcg_cut.{ks}",
                f"map_cut.{ks}", "recip_rank"}, **kw)
    ref = ev.evaluate(ranking.to_dict())
    # the same queries: in both the run and the qrels (a query with no judgement is not)
    assert sorted(table.query_ids) == sorted(ref)
    names = {"recall": "recall", "precision": "P", "hit_rate": "success",
             "ndcg": "ndcg_cut", "map": "map_cut"}
    for i, q in enumerate(table.query_ids):
        for fam, m in names.items():
            want = [ref[q][f"{m}_{k}"] for k in range(1, kmax + 1)]
            assert np.allclose(table.values[fam][i], want, rtol=0, atol=1e-9), (q, fam)
        assert abs(table.values["mrr"][i, -1] - ref[q]["recip_rank"]) <= 1e-9


def direct_exp_ndcg(docs: list[str], judged: dict[str, float], k: int) -> float:
    """nDCG@k with gain 2^g - 1 (negative grades as 0), written out the slow way."""
    def gain(g):
        return 2.0 ** max(g, 0) - 1.0
    dcg = sum(gain(judged.get(d, 0)) / log2(r + 1) for r, d in enumerate(docs[:k], 1))
    best = sorted((gain(g) for g in judged.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / log2(r + 1) for r, g in enumerate(best, 1))
    return dcg / idcg if idcg > 0 else 0.0


@SETTINGS
@given(runs, qrels_st)
def test_exponential_gain_matches_a_direct_computation(run, qrels):
    ranking = Ranking.from_dict(run)
    kmax = 12
    table = evaluate(ranking, qrels, kmax=kmax, gain="exponential")
    for i, q in enumerate(table.query_ids):
        docs, _ = ranking.get(q)
        for k in range(1, kmax + 1):
            want = direct_exp_ndcg(docs, qrels[q], k)
            assert abs(table.values["ndcg"][i, k - 1] - want) <= 1e-12


@SETTINGS
@given(runs, qrels_st)
def test_query_order_does_not_change_values(run, qrels):
    ranking = Ranking.from_dict(run)
    table = evaluate(ranking, qrels, kmax=10)
    reversed_run = Ranking.from_dict(dict(reversed(list(run.items()))))
    other = evaluate(reversed_run, qrels, kmax=10).select(table.query_ids)
    for fam in FAMILY_NAMES:
        np.testing.assert_array_equal(table.values[fam], other.values[fam])


def test_fractional_grades_match_pytrec_eval_after_scaling_for_binary_metrics():
    """pytrec_eval takes integer grades only; fractional grades > 0 are relevant, so the binary
    metrics equal pytrec_eval's with every such grade mapped to 1."""
    rng = np.random.default_rng(5)
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 4)) for j in rng.choice(30, 10, False)}
           for i in range(30)}
    qrels = {q: {f"d{j}": float(rng.choice([0.0, 0.3, 0.8, 0.9, 1.0]))
                 for j in rng.choice(30, 6, False)} for q in run}
    table = evaluate(Ranking.from_dict(run), qrels, kmax=10)
    binary = {q: {d: int(g > 0) for d, g in j.items()} for q, j in qrels.items()}
    ref = pytrec_eval.RelevanceEvaluator(binary, {"recall.5,10", "P.5,10", "map_cut.10"}) \
        .evaluate(run)
    for i, q in enumerate(table.query_ids):
        assert abs(table.value("recall@5")[i] - ref[q]["recall_5"]) <= 1e-12
        assert abs(table.value("precision@10")[i] - ref[q]["P_10"]) <= 1e-12
        assert abs(table.value("map@10")[i] - ref[q]["map_cut_10"]) <= 1e-12
