"""AppTest: the Compare page — overlaid curves with bands, the significance table and verdict,
the A/B scatter whose points open a drill-down, disagreements, and TREC runs from elsewhere."""

from __future__ import annotations

import numpy as np
import pytest
from app_support import (
    array,
    chart,
    frame_with,
    new_app,
    open_page,
    plain,
    save_bm25_run,
    texts,
)

from ragdash.ranking import Ranking
from ragdash.run import Run
from ragdash.runs import get_store
from ragdash.ui import keys


@pytest.fixture
def two_runs(sample):
    a = save_bm25_run(sample, name="bm25 default")
    b = save_bm25_run(sample, name="bm25 k1=0.5 b=0.3", k1=0.5, b=0.3)
    return a, b


def test_curves_with_bands_and_the_significance_table(two_runs):
    a, b = two_runs
    at = open_page(new_app(run=a), "compare")
    store = get_store()
    ta, tb = store.load(a).table(), store.load(b).table()
    traces = chart(at, "cmp_curves")["data"]
    curves = [t for t in traces if t["meta"]["kind"] == "curve"]
    bands = [t for t in traces if t["meta"]["kind"] == "band"]
    assert [t["meta"]["run"] for t in curves] == ["bm25 default", "bm25 k1=0.5 b=0.3"]
    np.testing.assert_allclose(array(curves[0]["y"]), ta.curve("ndcg"))
    np.testing.assert_allclose(array(curves[1]["y"]), tb.curve("ndcg"))
    assert len(bands) == 2
    for curve, band in zip(curves, bands):
        y = array(curve["y"])
        low, high = np.array(band["meta"]["low"]), np.array(band["meta"]["high"])
        assert np.all(low <= y + 1e-12) and np.all(y <= high + 1e-12)
    table = frame_with(at, "Mean A", "Mean B", "p (Holm)")
    assert len(table) == 1
    row = table.iloc[0]
    assert row["Mean A"] == pytest.approx(ta.mean("ndcg@10"))
    assert row["Mean B"] == pytest.approx(tb.mean("ndcg@10"))
    assert row["B − A"] == pytest.approx(tb.mean("ndcg@10") - ta.mean("ndcg@10"))
    p = row["p (Holm)"]  # as the sentence writes it: "< 0.001" or "0.041", never a bare 0
    assert p == "< 0.001" or 0.001 <= float(p) <= 1
    assert row["Verdict"] in ("B better", "B worse", "no clear difference", "identical")
    sentence = [s for s in texts(at).splitlines() if "bm25 k1=0.5 b=0.3" in s and "p " in s]
    assert sentence and (f"p {p}" if p.startswith("<") else f"p = {p}") in sentence[0]
    # the scatter's title is above the chart, where it wraps, not cut inside it
    assert "Per query: bm25 default against bm25 k1=0.5 b=0.3" in texts(at)
    assert not chart(at, "cmp_scatter")["layout"]["title"].get("text")


def test_p_text_is_the_sentences_p_without_the_p():
    from ragdash.ui.compare import p_text

    assert p_text(0.0, 0.05) == "< 0.001" and p_text(0.0004, 0.05) == "< 0.001"
    assert p_text(0.041, 0.05) == "0.041" and p_text(0.0496, 0.05) == "0.0496"


def test_scatter_points_are_queries_and_choosing_one_opens_its_drilldown(sample, two_runs):
    a, _ = two_runs
    at = open_page(new_app(run=a), "compare")
    points = chart(at, "cmp_scatter")["data"][0]
    qids = points["customdata"]
    assert sorted(qids) == sorted(q.id for q in sample.evaluated_queries())
    ta = get_store().load(a).table()
    x = array(points["x"])
    pos = {q: i for i, q in enumerate(ta.query_ids)}
    np.testing.assert_allclose(x, ta.value("ndcg@10")[[pos[q] for q in qids]])
    # the worst disagreement comes first in its table
    worst = frame_with(at, "Query id", "B − A")
    deltas = list(worst["B − A"].abs())
    assert deltas == sorted(deltas, reverse=True) and len(deltas) == 20
    # the numbers come before the query text, which is the widest column
    assert list(worst.columns) == ["Query id", "B − A", "bm25 default", "bm25 k1=0.5 b=0.3",
                                   "Query"]
    np.testing.assert_allclose(worst["B − A"],
                               worst["bm25 k1=0.5 b=0.3"] - worst["bm25 default"])
    # select a point (what a click does in the browser)
    target = qids[17]
    at.session_state["cmp_scatter"] = {"selection": {"points": [{"customdata": target}],
                                                     "point_indices": [17], "box": [],
                                                     "lasso": []}}
    at.run()
    assert at.session_state[keys.DRILL_QUERY] == target
    assert sample.query(target).text[:15] in texts(at)


def test_an_uploaded_trec_run_is_scored_and_compared(sample, two_runs):
    a, _ = two_runs
    ranking = get_store().load(a).ranking
    trec = ranking.to_trec_string(tag="elastic")
    # the same documents, each query's first two swapped: another ranking
    swapped = {q: dict(zip(ranking.get(q)[0], ranking.get(q)[1][::-1] if i % 2 else
                           ranking.get(q)[1])) for i, q in enumerate(ranking.query_ids)}
    other = Ranking.from_dict(swapped).to_trec_string(tag="vespa")
    at = open_page(new_app(run=a), "compare")
    at.file_uploader(key="cmp_files").set_value([
        ("elastic.trec", trec.encode(), "text/plain"),
        ("vespa.trec", other.encode(), "text/plain")]).run()
    at.button(key="cmp_upload").click().run()
    assert not at.exception
    names = [s.name for s in get_store().list()]
    assert "elastic" in names and "vespa" in names
    chosen = at.session_state[keys.COMPARE_IDS]
    assert len(chosen) == 4
    # elastic ranks every query as bm25 default does: one run, said under the picker
    assert ("elastic ranks every query exactly as bm25 default does: shown once, as bm25 "
            "default.") in texts(at)
    table = frame_with(at, "Mean A", "Mean B")
    assert len(table) == 3  # three runs, three pairs (not six: Holm over three)
    assert "elastic" not in set(table["A"]) | set(table["B"])
    assert {"bm25 default", "vespa"} <= set(table["A"]) | set(table["B"])


def test_the_same_trec_file_added_twice_is_one_run_and_one_sentence(two_runs):
    """The same file added twice is one saved run and one sentence (no StatsError box)."""
    a, _ = two_runs
    trec = get_store().load(a).ranking.to_trec_string(tag="elastic").encode()
    at = open_page(new_app(run=a), "compare")
    for files in ([("elastic.trec", trec, "text/plain")] * 2,
                  [("elastic.trec", trec, "text/plain")]):
        at.file_uploader(key="cmp_files").set_value(files).run()
        at.button(key="cmp_upload").click().run()
        assert not at.exception and not at.error
        assert ("elastic.trec: the same ranking is already saved, as “elastic”; not added "
                "again.") in texts(at)
    assert [s.name for s in get_store().list()].count("elastic") == 1
    chosen = at.session_state[keys.COMPARE_IDS]
    assert len(chosen) == len(set(chosen)) == 3
    # only the file and its twin (bm25 default ranks alike) picked: one sentence, no table
    elastic = next(s.id for s in get_store().list() if s.name == "elastic")
    at.multiselect(key="w:" + keys.COMPARE_IDS).set_value([a, elastic]).run()
    assert not at.exception and not at.error
    assert "there is nothing to compare" in texts(at)
    assert not [d for d in at.dataframe if "Mean A" in d.value.columns]


def test_a_bad_trec_file_is_one_message(two_runs):
    a, _ = two_runs
    at = open_page(new_app(run=a), "compare")
    at.file_uploader(key="cmp_files").set_value([("bad.trec", b"q1 Q0 d1 1\n",
                                                  "text/plain")]).run()
    at.button(key="cmp_upload").click().run()
    (error,) = at.error
    assert "bad.trec" in plain(error.value) and "line 1" in plain(error.value)


def test_a_bad_trec_line_is_explained_in_japanese_with_its_file_and_line(two_runs):
    a, _ = two_runs
    at = new_app(run=a).run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    at = open_page(at, "compare")
    at.file_uploader(key="cmp_files").set_value([("bad.trec", b"q1 Q0 d1 1 2 t\nq1 Q0 d2 x\n",
                                                  "text/plain")]).run()
    at.button(key="cmp_upload").click().run()
    (error,) = at.error
    said = plain(error.value)
    assert "bad.trec、2 行目: 6 列(qid Q0 docno rank score tag)のはずが 4 列です" in said, said
    assert "1 行に 1 件ずつ" in said and "expected" not in said


def test_two_runs_that_never_disagree_say_so(sample):
    a = save_bm25_run(sample, name="first")
    # another ranking (the last document of every query dropped) that scores the same at 10
    ranking = get_store().load(a).ranking.truncate(99)
    b = get_store().save(Run.of_ranking(sample, ranking, kmax=100, name="again",
                                        query_ids=get_store().load(a).query_ids))
    assert b != a
    at = open_page(new_app(run=a), "compare")
    assert "every query the same nDCG@10" in texts(at)
    assert not [d for d in at.dataframe if "Query id" in d.value.columns
                and "B − A" in d.value.columns]


def test_the_current_run_is_compared_by_default(sample):
    first = save_bm25_run(sample, name="first")
    mine = save_bm25_run(sample, name="mine", k1=0.5)
    save_bm25_run(sample, name="newest", k1=2.0)
    at = open_page(new_app(run=mine), "compare")
    # the run opened (by link, or last on the Results page) and the newest other one
    assert at.session_state[keys.COMPARE_IDS] == [mine, get_store().list()[0].id]
    assert first not in at.session_state[keys.COMPARE_IDS]


def test_compare_needs_two_runs(sample):
    a = save_bm25_run(sample, name="only one")
    at = open_page(new_app(run=a), "compare")
    assert "needs two" in texts(at)


def test_the_half_width_drilldowns_wrap_instead_of_cutting(sample, two_runs):
    """A grid in a half-width column would cut titles, texts and "rank 66 (below t": the
    drill-downs are tables that wrap."""
    a, _ = two_runs
    at = open_page(new_app(run=a), "compare")
    assert not at.exception
    tables = at.get("table")
    assert len(tables) == 4  # relevant documents and top K, for each run
    frames = [tbl.value for tbl in tables]
    relevant, top = frames[0], frames[1]
    assert "Rank it got" in relevant.columns or any("rank" in c.lower() for c in relevant.columns)
    cells = " ".join(str(v) for f in frames for v in f.to_numpy().ravel())
    assert "None" not in cells
    # every text is there in full up to the limit, ending in … only when longer
    from ragdash.ui.results import NARROW_TEXT

    text_cols = [c for c in top.columns if top[c].astype(str).str.len().max() > 40]
    assert text_cols and all(len(plain(v).split(" — ")[-1]) <= NARROW_TEXT
                             for v in top[text_cols[-1]])
    assert "Title" not in top.columns  # the title leads its text: one wide column
    assert "Relevant" not in top.columns  # ✓ beside the rank instead
    if any("✓" in str(v) for f in frames[1::2] for v in f.iloc[:, 0]):
        assert all(str(v).split(" ")[0].isdigit() for v in top.iloc[:, 0])
    # the query text is body text, not a grey blockquote
    assert not [m.value for m in at.markdown if m.value.startswith("> ")]
