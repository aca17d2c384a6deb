"""Agreement with pytrec_eval (trec_eval's C code), per query, at every K, to 1e-9.

Oracles: pytrec_eval's ``recall``, ``P``, ``success``, ``ndcg_cut`` and ``map_cut`` at every
cutoff 1..Kmax; MRR@K against pytrec_eval's ``recip_rank`` on the run truncated to K, and
against a direct loop. Data: a real BM25 ranking of JSQuAD (Japanese, graded 1/2) and random
graded runs with ties, negative grades, queries without relevant documents, queries missing
from the run and runs shorter than K.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from paths import TESTS

from ragdash import Ranking
from ragdash.metrics import evaluate

#: JSQuAD validation split in BEIR layout, kept in the repository
JSQUAD = TESTS / "data" / "jsquad-valid"

TOL = 1e-9
PYTREC = {"recall": "recall", "precision": "P", "hit_rate": "success", "ndcg": "ndcg_cut",
          "map": "map_cut"}


def pytrec_table(qrels, run, ks, relevance_level=None):
    """pytrec_eval's per-query values: {family: {qid: array over ks}}, plus recip_rank."""
    cut = ",".join(map(str, ks))
    measures = {f"{m}.{cut}" for m in PYTREC.values()} | {"recip_rank"}
    kwargs = {} if relevance_level is None else {"relevance_level": int(relevance_level)}
    ev = pytrec_eval.RelevanceEvaluator(qrels, measures, **kwargs)
    res = ev.evaluate(run)
    out = {f: {q: np.array([r[f"{m}_{k}"] for k in ks]) for q, r in res.items()}
           for f, m in PYTREC.items()}
    out["recip_rank"] = {q: r["recip_rank"] for q, r in res.items()}
    return out


def pytrec_mrr_at(qrels, ranking: Ranking, k, relevance_level=None):
    kwargs = {} if relevance_level is None else {"relevance_level": int(relevance_level)}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, **kwargs)
    return {q: r["recip_rank"] for q, r in ev.evaluate(ranking.truncate(k).to_dict()).items()}


def assert_agrees(ranking: Ranking, qrels, ks, *, relevance_level=None, kmax=None):
    kmax = kmax or max(ks)
    table = evaluate(ranking, qrels, kmax=kmax, relevance_level=relevance_level)
    ref = pytrec_table(qrels, ranking.to_dict(), ks, relevance_level)
    # pytrec_eval evaluates the queries in both run and qrels, as evaluate() does by default
    assert sorted(table.query_ids) == sorted(ref["recall"])
    cols = np.asarray(ks) - 1
    for fam in PYTREC:
        ours = table.values[fam][:, cols]
        theirs = np.array([ref[fam][q] for q in table.query_ids])
        diff = np.abs(ours - theirs)
        worst = np.unravel_index(diff.argmax(), diff.shape) if diff.size else None
        assert diff.max(initial=0) <= TOL, (
            f"{fam}@{ks[worst[1]]} query {table.query_ids[worst[0]]}: ours "
            f"{ours[worst]}, pytrec_eval {theirs[worst]}")
    # recip_rank has no cutoff: it is MRR@K for K at least the run depth
    depth = max(ranking.kmax, 1)
    if kmax >= depth:
        rr = np.array([ref["recip_rank"][q] for q in table.query_ids])
        assert np.abs(table.value(f"mrr@{kmax}") - rr).max(initial=0) <= TOL
    for k in sorted({1, 2, 3, min(ks[-1], 10), ks[-1]}):
        want = pytrec_mrr_at(qrels, ranking, k, relevance_level)
        got = dict(zip(table.query_ids, table.value(f"mrr@{k}")))
        assert max((abs(got[q] - want[q]) for q in got), default=0) <= TOL, f"mrr@{k}"
    return table


# -- real data: BM25 over JSQuAD -----------------------------------------------------------
@pytest.fixture(scope="module")
def jsquad_bm25():
    from ragdash.loaders import load_dataset
    from ragdash.retrieval import BM25Retriever

    ds = load_dataset(JSQUAD)
    queries = ds.evaluated_queries(limit=300)
    ranking = BM25Retriever().rank(ds, queries, kmax=100)
    qrels = {q.id: {d: int(g) for d, g in ds.qrels[q.id].items()} for q in queries}
    return ranking, qrels


def test_bm25_jsquad_every_k_matches_pytrec_eval(jsquad_bm25):
    ranking, qrels = jsquad_bm25
    table = assert_agrees(ranking, qrels, list(range(1, 101)))
    # The ranking is real and decent (data README: nDCG@10 about 0.87 over all queries).
    assert len(table) == 300
    assert 0.6 < table.mean("ndcg@10") <= 1.0
    assert table.mean("recall@100") > table.mean("recall@10") > table.mean("recall@1") > 0


@pytest.mark.parametrize("level", [1, 2])
def test_bm25_jsquad_relevance_levels_match_pytrec_eval(jsquad_bm25, level):
    ranking, qrels = jsquad_bm25
    table = assert_agrees(ranking, qrels, [1, 2, 3, 5, 10, 20, 50, 100], relevance_level=level)
    if level == 2:  # only the paragraph the question was written on counts
        assert (table.num_relevant == 1).all()


def test_bm25_jsquad_grades_as_strings_after_json_round_trip(jsquad_bm25):
    """The article's bug: after JSON, relevance keys are strings — NDCG must not drop to 0."""
    import json

    ranking, qrels = jsquad_bm25
    direct = evaluate(ranking, qrels, kmax=10)
    again = evaluate(Ranking.from_json_obj(json.loads(json.dumps(ranking.to_json_obj()))),
                     json.loads(json.dumps(qrels)), kmax=10)
    assert again.mean("ndcg@10") == pytest.approx(direct.mean("ndcg@10"), abs=1e-12)
    assert again.mean("ndcg@10") > 0.5


# -- random graded runs --------------------------------------------------------------------
def random_case(seed: int, *, n_queries=40, n_docs=60, max_depth=30, grades=(0, 1, 2, 3),
                negative=False):
    """A run with many score ties and short lists, and qrels with unretrieved relevant docs,
    queries judged only 0, queries absent from the run, run queries absent from the qrels."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:03d}" for i in range(n_docs)]
    run, qrels = {}, {}
    for qi in range(n_queries):
        q = f"q{qi}"
        kind = qi % 8
        if kind != 0:  # kind 0: in the qrels only
            depth = int(rng.integers(0 if kind == 1 else 1, max_depth + 1))
            chosen = rng.choice(n_docs, size=depth, replace=False)
            scores = rng.integers(0, 6, size=depth).astype(float) / 2  # lots of ties
            run[q] = {docs[d]: float(s) for d, s in zip(chosen, scores)}
        if kind == 2:  # judged, but nothing relevant
            qrels[q] = {docs[d]: 0 for d in rng.choice(n_docs, size=4, replace=False)}
        elif kind == 3:  # in the run only
            continue
        else:
            judged = rng.choice(n_docs, size=int(rng.integers(1, 15)), replace=False)
            pool = list(grades) + ([-1] if negative else [])
            qrels[q] = {docs[d]: int(rng.choice(pool)) for d in judged}
    run = {q: r for q, r in run.items() if r}  # pytrec_eval cannot take an empty ranking
    return Ranking.from_dict(run), qrels


@pytest.mark.parametrize("seed", range(8))
def test_random_graded_runs_with_ties_match_pytrec_eval(seed):
    ranking, qrels = random_case(seed, negative=seed % 2 == 1)
    table = assert_agrees(ranking, qrels, list(range(1, 41)))  # deeper than any run (30)
    assert table.no_relevant.any()


@pytest.mark.parametrize("level", [1, 2, 3])
def test_random_runs_relevance_level_matches_pytrec_eval(level):
    ranking, qrels = random_case(100 + level)
    assert_agrees(ranking, qrels, [1, 2, 3, 4, 5, 7, 10, 15, 20, 30], relevance_level=level)


def test_big_random_run_matches_pytrec_eval():
    """Enough queries that every code path (ties in the run file, many lengths) is hit."""
    ranking, qrels = random_case(7, n_queries=600, n_docs=400, max_depth=100)
    text = ranking.to_trec_string()
    parsed = Ranking.parse_trec(text)
    assert parsed.to_dict() == ranking.to_dict()
    assert_agrees(parsed, qrels, list(range(1, 101)))


def test_mrr_matches_a_direct_loop():
    ranking, qrels = random_case(11)
    table = evaluate(ranking, qrels, kmax=35)
    for i, q in enumerate(table.query_ids):
        docs, _ = ranking.get(q)
        first = next((r for r, d in enumerate(docs, 1) if qrels[q].get(d, 0) > 0), None)
        for k in (1, 2, 5, 10, 35):
            want = 1.0 / first if first is not None and first <= k else 0.0
            assert table.value(f"mrr@{k}")[i] == want
