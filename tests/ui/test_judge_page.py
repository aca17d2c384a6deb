"""AppTest: the Judge page — the pool of the chosen runs minus the human labels, one pair at a
time with the query's words marked, grades saved as given (set person:<rater>), back and change,
skip and can't tell, a second browser continuing, two raters' agreement, the qrels download."""

from __future__ import annotations

import pytest
from app_support import frame_with, new_app, open_page, plain, save_bm25_run, texts

from ragdash.judge.queue import pool_queue, rater_agreement
from ragdash.runs import get_store


@pytest.fixture
def runs(sample):
    return (save_bm25_run(sample, name="bm25 default"),
            save_bm25_run(sample, name="bm25 k1=0.5 b=0.3", k1=0.5, b=0.3))


def shown_pair(at) -> tuple[str, str]:
    line = next(c.value for c in at.caption if c.value.startswith("query "))
    q, d = plain(line).removeprefix("query ").split(" · document ")
    return q, d


def test_grading_back_skip_and_cant_tell_are_saved_as_given(sample, runs):
    a, b = runs
    store = get_store()
    fp = sample.fingerprint()
    at = open_page(new_app(run=a), "judge")
    assert "Type your name" in texts(at)
    at.text_input[0].set_value("hana").run()
    chosen = at.multiselect(key="judge_runs").value
    assert sorted(chosen) == sorted([a, b])
    queue = pool_queue([store.load(i).ranking for i in chosen], 10, sample.qrels)
    assert queue and all(d not in (sample.qrels.get(q) or {}) for q, d in
                         (p.key for p in queue))
    assert shown_pair(at) == queue[0].key
    assert "<mark>" in "".join(h.proto.body for h in at.get("html"))

    at.button(key="judge_g2").click().run()
    labels = store.load_judgments(fp, "person:hana")
    assert [(lb.query_id, lb.doc_id, lb.grade, lb.source) for lb in labels] == \
        [(*queue[0].key, 2.0, "person:hana")]
    assert shown_pair(at) == queue[1].key
    assert at.get("progress")[0].proto.text.startswith("1 labeled")

    at.button(key="judge_back").click().run()           # back to the first: change it
    assert shown_pair(at) == queue[0].key
    assert "Your label: 2" in texts(at)
    at.button(key="judge_g3").click().run()
    assert store.load_judgments(fp, "person:hana").get(*queue[0].key).grade == 3.0
    assert shown_pair(at) == queue[1].key

    at.button(key="judge_skip").click().run()            # skipped: this session only
    assert shown_pair(at) == queue[2].key
    at.button(key="judge_unsure").click().run()          # can't tell: kept apart
    assert store.load_judgments(fp, "unsure:hana").get(*queue[2].key) is not None
    assert store.load_judgments(fp, "person:hana").get(*queue[2].key) is None
    # the marks are not a judgment set: no page offers them for scoring
    assert [s["name"] for s in store.judgment_sets(fp)] == ["person:hana"]
    assert "unsure:hana" in [s["name"] for s in store.judgment_sets(fp, unsure=True)]
    assert shown_pair(at) == queue[3].key

    # another browser of the same rater continues: the skipped pair is back, the rest done
    other = open_page(new_app(run=a), "judge")
    other.text_input[0].set_value("hana").run()
    assert shown_pair(other) == queue[1].key


def test_two_raters_agreement_and_the_download(sample, runs):
    a, _ = runs
    store = get_store()
    fp = sample.fingerprint()
    grades = {"hana": [3, 0, 2, 1], "ken": [2, 0, 2, 0]}
    for rater, given in grades.items():
        at = open_page(new_app(run=a), "judge")
        at.text_input[0].set_value(rater).run()
        for g in given:
            at.button(key=f"judge_g{g}").click().run()
    at.multiselect(key="judge_agree_sets").set_value(["person:hana", "person:ken"]).run()
    assert not at.exception
    expected = rater_agreement({
        name: {(lb.query_id, lb.doc_id): lb.grade for lb in store.load_judgments(fp, name)}
        for name in ("person:hana", "person:ken")})
    (table,) = [tb.value for tb in at.table]
    kappa = table.loc["Cohen's κ (grades)", "value"]
    assert kappa == pytest.approx(expected.cohen.value)
    assert expected.items == 4
    disagreements = frame_with(at, "query", "document", "person:hana", "person:ken")
    assert len(disagreements) == 2  # 3 vs 2 and 1 vs 0
    confusion = frame_with(at, "person:ken 0", "person:ken 3")
    assert int(confusion.to_numpy().sum()) == 4
    assert any("Download your 4 labels" in b.label for b in at.get("download_button"))
