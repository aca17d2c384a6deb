"""The HTML report says which labels it shows and how thinly the top K is judged: in the
summary, after every verdict and after the frontier's recommendation."""

from __future__ import annotations

import html

import pytest

from ragdash.judgments import JudgmentSet, fill
from ragdash.present.report import build_report
from ragdash.retrieval.bm25 import BM25Retriever
from ragdash.run import Run


@pytest.fixture(scope="module")
def runs(sample):
    queries = sample.evaluated_queries()[:60]
    out = []
    for name, params in (("bm25", {}), ("bm25 k1=0.5", {"k1": 0.5, "b": 0.3})):
        ranking = BM25Retriever(**params).rank(sample, queries, 20)
        out.append(Run(dataset=sample, ranking=ranking, query_ids=[q.id for q in queries],
                       kmax=20, name=name, retriever="bm25"))
    return out


def _text(page: str) -> str:
    return html.unescape(page)


def test_one_run_human_labels(runs):
    page = _text(build_report(runs[:1], include_text=False, bands=False))
    judged = runs[0].table().mean("judged@10")
    assert judged < 0.8  # jsquad-mini: a few labels per query
    assert (f"bm25's top 10 is {round(100 * (1 - judged))}% unjudged: bm25's nDCG@10 is a "
            "lower bound; judge the gaps before deciding.") in page
    assert "labels: the human qrels only" in page


def test_two_runs_on_filled_labels(runs):
    jset = JudgmentSet("llm:m@1")
    for run in runs:
        for q in run.query_ids:
            for d in run.ranking.get(q)[0][:10]:
                jset.add(q, d, 0, "llm:m@1", "2026-12-01")
    filled = fill(runs[0].dataset.qrels, jset)
    page = _text(build_report(runs, include_text=False, bands=False, n_resamples=1000,
                              table_of=lambda r: r.table(filled)))
    assert "labels: the human qrels, gaps filled from llm:m@1" in page
    assert "unjudged" not in page  # every top 10 is judged now: no sentence anywhere
    page = _text(build_report(runs, include_text=False, bands=False, n_resamples=1000))
    # the verdict and the frontier's recommendation carry the sentence too
    assert page.count("judge the gaps before deciding") >= 3
