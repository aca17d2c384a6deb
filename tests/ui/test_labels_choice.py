"""AppTest: the choice of labels (human only / human + filled judgment sets, condensed lists)
on Results and Compare — the numbers follow it, every view says which labels it shows,
Judged@K stands beside the metrics and the verdict says when the top 10 is thinly judged."""

from __future__ import annotations

import pytest
from app_support import frame_with, new_app, open_page, save_bm25_run, texts

from ragdash.judgments import JudgmentSet, fill
from ragdash.runs import get_store
from ragdash.ui import labels

SET = "llm:m@umbrela-1"


@pytest.fixture
def runs_and_set(sample):
    a = save_bm25_run(sample, name="bm25 default", kmax=20)
    b = save_bm25_run(sample, name="bm25 k1=0.5 b=0.3", kmax=20, k1=0.5, b=0.3)
    store = get_store()
    run = store.load(a)
    jset = JudgmentSet(SET)
    for q in run.query_ids[:100]:  # the LLM judged a's top 3 of 100 queries: relevant
        for d in run.ranking.get(q)[0][:3]:
            jset.add(q, d, 1, SET, "2026-12-01")
    store.save_judgments(run.dataset_fingerprint, jset)
    return a, b, jset


def _summary_judged(at):
    grid = frame_with(at, "@10")
    return grid.loc["Judged", "@10"], grid.loc["nDCG", "@10"]


def test_results_follow_the_chosen_labels_and_say_which(runs_and_set):
    a, _, jset = runs_and_set
    at = open_page(new_app(run=a), "results")
    run = get_store().load(a)
    human = run.table()
    judged, ndcg = _summary_judged(at)
    assert judged == pytest.approx(human.mean("judged@10"))
    assert ndcg == pytest.approx(human.mean("ndcg@10"))
    assert "labels: the human qrels only" in texts(at)
    # human + the stored set: the numbers are those of fill(), and the page says so
    at.radio(key="w:" + labels.MODE).set_value("filled").run()
    assert not at.exception, [e.value for e in at.exception]
    filled = run.table(fill(run.dataset.qrels, jset))
    judged, ndcg = _summary_judged(at)
    assert judged == pytest.approx(filled.mean("judged@10"))
    assert judged > human.mean("judged@10")
    assert ndcg == pytest.approx(filled.mean("ndcg@10"))
    assert f"labels: the human qrels, gaps filled from {SET}" in texts(at).replace("\\", "")
    # the drill-down shows the filled grades: the LLM's relevant documents are listed
    q0 = run.query_ids[0]
    at.selectbox(key="w:rd_drill_query").set_value(q0).run()
    merged = fill(run.dataset.qrels, jset).qrels[q0]
    rel = frame_with(at, "Rank retrieved", "Grade")  # the query's relevant documents
    assert len(rel) == sum(g > 0 for g in merged.values()) > \
        sum(g > 0 for g in run.dataset.qrels[q0].values())
    # condensed lists
    at.toggle(key="w:" + labels.CONDENSED).set_value(True).run()
    judged, ndcg = _summary_judged(at)
    assert ndcg == pytest.approx(run.table(fill(run.dataset.qrels, jset),
                                           judged_only=True).mean("ndcg@10"))
    assert "condensed lists" in texts(at)


def test_compare_verdict_says_the_top_10_is_thinly_judged(runs_and_set):
    a, _, _ = runs_and_set
    at = open_page(new_app(run=a), "compare")
    said = texts(at)
    assert "Judged@10, the share of each run's top 10 that has a label" in said
    assert "judge the gaps before deciding" in said  # jsquad-mini: few labels per query
    assert "labels: the human qrels only" in said
    row = frame_with(at, "Judged@10 A", "Judged@10 B").iloc[0]
    store = get_store()
    assert row["Judged@10 A"] == pytest.approx(store.load(a).table().mean("judged@10"))
