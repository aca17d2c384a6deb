"""run_evaluation: the evaluated queries, the metric table over exactly those, and the record."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import pytrec_eval
from paths import JSQUAD

from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import Cancelled, RetrievalError
from ragdash.loaders import load_dataset
from ragdash.metrics import evaluate
from ragdash.pipeline import run_evaluation
from ragdash.ranking import Ranking
from ragdash.retrieval import make_retriever
from ragdash.run import Run
from ragdash.samples import load_sample


class FixedRetriever:
    """A retriever that returns a given run, to test the pipeline alone."""

    name = "fixed"

    def __init__(self, run):
        self.run = run
        self.usage = {"requests": 3, "prompt_tokens": 120, "embedded_texts": 7,
                      "cached_texts": 2}
        self.calls = []

    def config(self):
        return {"retriever": "fixed", "depth": 2}

    def rank(self, dataset, queries, kmax, *, progress=None, cancel=None):
        self.calls.append(([q.id for q in queries], kmax))
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        if progress is not None:
            progress({"stage": "ranking", "done": len(queries), "total": len(queries),
                      "calls": 0, "tokens": 0})
        if self.run is None:  # every query, empty
            return Ranking.from_dict({q.id: {} for q in queries})
        return Ranking.from_dict({q.id: self.run[q.id] for q in queries if q.id in self.run})


def small_dataset():
    docs = [Document(f"d{i}", f"text {i}") for i in range(4)]
    queries = [Query("q0", "a"), Query("q1", "b"), Query("q2", "c"), Query("q3", "d")]
    qrels = {"q0": {"d0": 2.0}, "q2": {"d1": 1.0, "d3": 1.0}, "q3": {"d2": 1.0}}
    return Dataset(docs, queries, qrels, name="small")


def test_evaluates_judged_queries_in_order_and_counts_queries_without_hits():
    ds = small_dataset()
    # q3 has qrels but the retriever returns nothing for it: it must count as 0.
    retriever = FixedRetriever({"q0": {"d0": 0.9, "d1": 0.5}, "q1": {"d2": 0.3},
                                "q2": {"d3": 0.8, "d0": 0.1}})
    result = run_evaluation(ds, retriever, kmax=2)
    assert isinstance(result, Run)
    assert retriever.calls == [(["q0", "q2", "q3"], 2)]       # q1 has no qrels
    assert result.query_ids == ["q0", "q2", "q3"]
    assert list(result.table().query_ids) == ["q0", "q2", "q3"]
    ndcg = result.table().value("ndcg@2")
    assert ndcg[2] == 0.0
    assert result.table().mean("recall@2") == pytest.approx((1 + 0.5 + 0) / 3)
    assert result.retriever == "fixed" and result.config == {"retriever": "fixed", "depth": 2}
    assert result.usage["requests"] == 3 and result.seconds >= 0 and result.kmax == 2
    info = result.dataset_info()
    assert info == {"name": "small", "source": "", "fingerprint": ds.fingerprint(),
                    "documents": 4, "queries": 4, "evaluated_queries": 3}
    assert result.created_at.endswith("Z") and result.source == "evaluation"
    assert result.id is None and result.parents == []  # unsaved, first-stage
    assert result.timings == {"retrieval": result.seconds}


def test_limit_queries_takes_the_first_judged_ones():
    ds = small_dataset()
    retriever = FixedRetriever(None)
    retriever = FixedRetriever(None)
    result = run_evaluation(ds, retriever, kmax=5, limit_queries=2)
    assert result.query_ids == ["q0", "q2"]
    assert result.table().mean("ndcg@5") == 0.0


def test_article_sample_with_bm25():
    ds = load_sample("article-ja")
    result = run_evaluation(ds, make_retriever("bm25"), kmax=10)
    assert len(result.query_ids) == 3
    again = evaluate(result.ranking, ds.qrels, kmax=10, queries=result.query_ids)
    assert result.table().summary([1, 5, 10]) == again.summary([1, 5, 10])
    assert 0 < result.table().mean("ndcg@10") <= 1
    assert result.usage == {"requests": 0, "prompt_tokens": 0, "embedded_texts": 0,
                            "cached_texts": 0}


def test_jsquad_valid_matches_pytrec_eval():
    ds = load_dataset(JSQUAD)
    result = run_evaluation(ds, make_retriever("bm25"), kmax=20, limit_queries=150)
    expected_ids = [q.id for q in ds.evaluated_queries()][:150]
    assert result.query_ids == expected_ids
    qrels = {q: {d: int(g) for d, g in ds.qrels[q].items()} for q in expected_ids}
    run = result.ranking.to_dict()
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.20", "recip_rank"})
    ref = ev.evaluate(run)
    for name, key in (("ndcg@10", "ndcg_cut_10"), ("recall@20", "recall_20")):
        want = np.array([ref[q][key] if q in ref else 0.0 for q in expected_ids])
        np.testing.assert_allclose(result.table().value(name), want, atol=1e-12)
    assert result.table().mean("ndcg@10") > 0.8


def test_progress_and_cancel_reach_the_retriever():
    ds = small_dataset()
    events = []
    run_evaluation(ds, FixedRetriever(None), progress=events.append)
    assert events and events[-1]["stage"] == "ranking"
    event = threading.Event()
    event.set()
    with pytest.raises(Cancelled):
        run_evaluation(ds, FixedRetriever(None), cancel=event)


@pytest.mark.parametrize("kwargs,match", [
    ({"kmax": 0}, "kmax"), ({"kmax": 2.5}, "kmax"), ({"kmax": True}, "kmax"),
    ({"limit_queries": 0}, "limit_queries"), ({"limit_queries": "x"}, "limit_queries"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(RetrievalError, match=match):
        run_evaluation(small_dataset(), FixedRetriever(None), **kwargs)


def test_nothing_to_evaluate():
    ds = small_dataset()
    no_qrels = Dataset(ds.documents, ds.queries, {}, name="x")
    with pytest.raises(RetrievalError, match="qrels"):
        run_evaluation(no_qrels, FixedRetriever(None))
    no_docs = Dataset([], ds.queries, ds.qrels, name="x")
    with pytest.raises(RetrievalError, match="no documents"):
        run_evaluation(no_docs, FixedRetriever(None))
