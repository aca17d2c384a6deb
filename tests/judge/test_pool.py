"""The judging pool: the union of the runs' top depth minus the human judgements, against a
plain set computation."""

from __future__ import annotations

import numpy as np

from ragdash.judge.pool import build_pool
from ragdash.ranking import Ranking


def test_pool_by_hand():
    a = Ranking.from_dict({"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d9": 1}}, name="A")
    b = Ranking.from_dict({"q1": {"d3": 9, "d4": 8, "d1": 1}, "q3": {"dx": 1}}, name="B")
    qrels = {"q1": {"d1": 2, "d4": 0}, "q2": {"d7": 1}}
    pool = build_pool([a, b], 2, qrels, known_queries=["q1", "q2"],
                      known_docs=["d1", "d2", "d3", "d4", "d9"])
    pairs = dict(zip(zip(pool.query_ids.tolist(), pool.doc_ids.tolist()), pool.human.tolist()))
    # A's top 2 of q1: d1, d2; B's: d3, d4; q2: d9; q3 is not in the dataset
    assert set(pairs) == {("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("q1", "d4"), ("q2", "d9")}
    assert pairs[("q1", "d1")] == 2 and pairs[("q1", "d4")] == 0
    assert np.isnan(pairs[("q1", "d2")])
    assert int(pool.judged.sum()) == 2
    assert pool.unknown_queries == 1 and pool.unknown_examples["query"] == "q3"
    per = {r["run"]: r for r in pool.per_run()}
    assert per["A"] == {"run": "A", "pairs": 3, "already_judged": 1, "to_judge": 2,
                        "only_here": 2}
    assert per["B"]["pairs"] == 2 and per["B"]["to_judge"] == 1 and per["B"]["only_here"] == 1


def test_pool_matches_set_union_on_random_runs():
    rng = np.random.default_rng(3)
    runs = []
    for r in range(4):
        run = {f"q{i}": {f"d{j}": float(rng.random()) for j in rng.integers(0, 60, 25)}
               for i in range(40) if rng.random() < 0.9}
        runs.append(Ranking.from_dict(run, name=f"r{r}"))
    qrels = {f"q{i}": {f"d{j}": float(rng.integers(0, 3)) for j in rng.integers(0, 60, 8)}
             for i in range(40)}
    pool = build_pool(runs, 7, qrels)
    want = set()
    for run in runs:
        for q, docs, _ in run.truncate(7).items():
            want.update((q, d) for d in docs)
    got = list(zip(pool.query_ids.tolist(), pool.doc_ids.tolist()))
    assert len(got) == len(set(got)) and set(got) == want
    for (q, d), h in zip(got, pool.human.tolist()):
        assert (d in qrels.get(q, {})) == (not np.isnan(h))
        if not np.isnan(h):
            assert h == qrels[q][d]


def test_a_dataset_naming_an_id_twice_still_pools():
    a = Ranking.from_dict({"q1": {"d1": 3, "d2": 2, "dx": 1}}, name="A")
    pool = build_pool([a], 3, {}, known_queries=["q1", "q1"], known_docs=["d1", "d2", "d1"])
    assert sorted(pool.doc_ids.tolist()) == ["d1", "d2"] and pool.unknown_docs == 1
