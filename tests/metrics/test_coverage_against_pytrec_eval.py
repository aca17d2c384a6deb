"""Judged@K, bpref and condensed lists against pytrec_eval (trec_eval's C code), per query.

Oracles: Judged@K is P@K with every judged document counted relevant, so pytrec_eval's ``P``
on qrels whose every grade is set to 1 gives it; ``bpref`` is pytrec_eval's ``bpref``;
condensed lists are pytrec_eval with ``judged_docs_only_flag=True`` (trec_eval ``-J``).
Data: a real BM25 ranking of JSQuAD with half its judgements dropped and some of the run's
unjudged documents judged 0 (as a pool of another system would), and random graded runs.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from test_against_pytrec_eval import JSQUAD, random_case

from ragdash import Ranking
from ragdash.metrics import evaluate

TOL = 1e-9
#: pytrec_eval's names of the families compared on condensed lists (with a cutoff)
CUT = {"recall": "recall", "precision": "P", "hit_rate": "success", "ndcg": "ndcg_cut",
       "map": "map_cut"}


def pytrec(qrels, run, measures, **kwargs):
    return pytrec_eval.RelevanceEvaluator(qrels, measures, **kwargs).evaluate(run)


def assert_close(table, fam_values: dict, what: str):
    ours = np.array([fam_values[q][0] for q in table.query_ids])
    theirs = np.array([fam_values[q][1] for q in table.query_ids])
    diff = np.abs(ours - theirs)
    assert diff.max(initial=0) <= TOL, (
        f"{what}: query {table.query_ids[int(diff.argmax())]} ours "
        f"{ours[int(diff.argmax())]}, pytrec_eval {theirs[int(diff.argmax())]}")


def assert_coverage_agrees(ranking: Ranking, qrels, ks):
    """Judged@K, bpref and the condensed families against pytrec_eval; returns both tables."""
    kmax = max(max(ks), ranking.kmax)  # bpref has no cutoff: compare it at the run's depth
    run = ranking.to_dict()
    table = evaluate(ranking, qrels, kmax=kmax)
    cut = ",".join(map(str, ks))
    all_judged = {q: dict.fromkeys(docs, 1) for q, docs in qrels.items()}
    ref = pytrec(all_judged, run, {f"P.{cut}"})
    assert sorted(ref) == sorted(table.query_ids)
    for k in ks:
        assert_close(table, {q: (v, ref[q][f"P_{k}"]) for q, v in
                             zip(table.query_ids, table.value(f"judged@{k}"))}, f"judged@{k}")
    ref = pytrec(qrels, run, {"bpref"})
    assert_close(table, {q: (v, ref[q]["bpref"]) for q, v in
                         zip(table.query_ids, table.value(f"bpref@{kmax}"))}, "bpref")

    condensed = evaluate(ranking, qrels, kmax=kmax, judged_only=True)
    assert condensed.judged_only
    measures = {f"{m}.{cut}" for m in CUT.values()} | {"recip_rank", "bpref"}
    ref = pytrec(qrels, run, measures, judged_docs_only_flag=True)
    assert sorted(ref) == sorted(condensed.query_ids)
    for fam, m in CUT.items():
        for k in ks:
            assert_close(condensed, {q: (v, ref[q][f"{m}_{k}"]) for q, v in
                                     zip(condensed.query_ids, condensed.value(f"{fam}@{k}"))},
                         f"condensed {fam}@{k}")
    for fam, m in (("mrr", "recip_rank"), ("bpref", "bpref")):
        assert_close(condensed, {q: (v, ref[q][m]) for q, v in
                                 zip(condensed.query_ids, condensed.value(f"{fam}@{kmax}"))},
                     f"condensed {fam}")
    # Judged@K describes the ranking as retrieved, condensed or not
    np.testing.assert_array_equal(condensed.values["judged"], table.values["judged"])
    return table, condensed


@pytest.fixture(scope="module")
def jsquad_half_judged():
    """BM25 over JSQuAD (200 queries); half the judgements dropped at random, and a fifth of
    the unjudged documents in each top 20 judged 0."""
    from ragdash.loaders import load_dataset
    from ragdash.retrieval import BM25Retriever

    ds = load_dataset(JSQUAD)
    queries = ds.evaluated_queries(limit=200)
    ranking = BM25Retriever().rank(ds, queries, kmax=50)
    rng = np.random.default_rng(22)
    qrels = {}
    for q in queries:
        judged = {d: int(g) for d, g in ds.qrels[q.id].items() if rng.random() < 0.5}
        docs, _ = ranking.get(q.id)
        for d in docs[:20]:
            if d not in judged and d not in ds.qrels[q.id] and rng.random() < 0.2:
                judged[d] = 0
        if judged:
            qrels[q.id] = judged
    return ranking, qrels


def test_jsquad_half_judged_matches_pytrec_eval(jsquad_half_judged):
    ranking, qrels = jsquad_half_judged
    table, condensed = assert_coverage_agrees(ranking, qrels, [1, 2, 3, 5, 10, 20, 50])
    # the real shape of an incomplete pool: the top 10 is far from fully judged, and
    # dropping the unjudged documents raises nDCG@10 (relevant ones move up)
    assert 0.05 < table.mean("judged@10") < 0.6
    assert condensed.mean("ndcg@10") > table.mean("ndcg@10")
    assert (table.values["bpref"] > 0).any()


@pytest.mark.parametrize("seed", range(6))
def test_random_graded_runs_match_pytrec_eval(seed):
    ranking, qrels = random_case(200 + seed)
    assert_coverage_agrees(ranking, qrels, list(range(1, 31)))


# -- hand-worked -----------------------------------------------------------------------------
# ranking b c a d n2 e; qrels b:2 a:0 d:1 x:3 n2:0 n3:0 -> R = 3 (b d x), N = 3 (a n2 n3);
# c and e unjudged.
HAND_RUN = {"q": {"b": 6.0, "c": 5.0, "a": 4.0, "d": 3.0, "n2": 2.0, "e": 1.0}}
HAND_QRELS = {"q": {"b": 2, "a": 0, "d": 1, "x": 3, "n2": 0, "n3": 0}}


def test_hand_worked_bpref_judged_and_condensed():
    table = evaluate(Ranking.from_dict(HAND_RUN), HAND_QRELS, kmax=6)
    # b: nothing judged non-relevant above -> 1; d: a above -> 1 - min(1, 3) / min(3, 3)
    np.testing.assert_allclose(table.values["bpref"][0],
                               [1 / 3, 1 / 3, 1 / 3, 5 / 9, 5 / 9, 5 / 9], atol=1e-12)
    # judged by rank: 1 0 1 1 1 0
    np.testing.assert_allclose(table.values["judged"][0],
                               [1, 1 / 2, 2 / 3, 3 / 4, 4 / 5, 4 / 6], atol=1e-12)
    condensed = evaluate(Ranking.from_dict(HAND_RUN), HAND_QRELS, kmax=6, judged_only=True)
    # condensed: b a d n2 -> relevant by rank 1 0 1 0; P@K still divides by K
    np.testing.assert_allclose(condensed.values["precision"][0],
                               [1, 1 / 2, 2 / 3, 2 / 4, 2 / 5, 2 / 6], atol=1e-12)
    np.testing.assert_allclose(condensed.values["recall"][0],
                               [1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3], atol=1e-12)
    # bpref skips unjudged documents anyway: over the whole list condensing does not change
    # it (at a cutoff it reaches deeper: bpref@3 now sees d)
    assert condensed.value("bpref@6")[0] == pytest.approx(table.value("bpref@6")[0])
    assert condensed.value("bpref@3")[0] == pytest.approx(5 / 9)
    np.testing.assert_array_equal(condensed.values["judged"], table.values["judged"])


def test_a_negative_grade_is_a_judgement_of_not_relevant():
    """trec_eval reads grade -1 as 'not in the pool' (skipped by bpref, dropped by -J);
    ragdash reads any negative grade as a judged, non-relevant document, as grade 0 — the
    one place where these measures differ from trec_eval (docs/judgments.md)."""
    run = Ranking.from_dict({"q": {"n": 2.0, "r": 1.0}})
    neg = evaluate(run, {"q": {"n": -1, "r": 1}}, kmax=2)
    zero = evaluate(run, {"q": {"n": 0, "r": 1}}, kmax=2)
    for fam in ("bpref", "judged", "ndcg"):
        np.testing.assert_array_equal(neg.values[fam], zero.values[fam])
    assert neg.mean("bpref@2") == 0.0 and neg.mean("judged@2") == 1.0


def test_condensing_reaches_below_kmax():
    """The condensed top K comes from below the original top K (the cut is after removal)."""
    run = {"q": {f"u{i}": 10.0 - i for i in range(5)} | {"r": 1.0}}
    table = evaluate(Ranking.from_dict(run), {"q": {"r": 1}}, kmax=1, judged_only=True)
    assert table.mean("ndcg@1") == 1.0 and table.mean("judged@1") == 0.0
    assert evaluate(Ranking.from_dict(run), {"q": {"r": 1}}, kmax=1).mean("ndcg@1") == 0.0
