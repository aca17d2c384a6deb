"""AppTest: the Judge page — the pool of the chosen runs minus the human labels, one pair at a
time with the query's words marked, grades saved as given (set person:<rater>), back and change,
skip and can't tell, a second browser continuing, two raters' agreement, the qrels download."""

from __future__ import annotations

import pytest
from app_support import frame_with, new_app, open_page, plain, save_bm25_run, texts

from ragdash.i18n import t
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


# -- signed in: a rater writes, counts, moves and downloads only their own labels ----------
def _signed_in(email: str, **query):
    at = new_app(**query)
    at.user = {"is_logged_in": True, "email": email}
    return at


def _owned_run(dataset, owner: str) -> str:
    """A BM25 run saved by ``owner`` (the first run on the dataset: its owner)."""
    from ragdash.retrieval.bm25 import BM25Retriever
    from ragdash.run import Run

    retriever = BM25Retriever()
    queries = dataset.evaluated_queries()
    return get_store().save(Run(dataset=dataset, ranking=retriever.rank(dataset, queries, 20),
                                query_ids=[q.id for q in queries], kmax=20, name="alice's",
                                config=retriever.config(), retriever="bm25"), owner=owner)


def _pairs(store, fp, name):
    return {(lb.query_id, lb.doc_id): lb.grade for lb in store.load_judgments(fp, name)}


def _agreement_options(at) -> list[str]:
    return list(at.multiselect(key="judge_agree_sets").options)


def test_signed_in_typing_another_persons_name_never_touches_their_labels(sample):
    store, fp = get_store(), sample.fingerprint()
    run = _owned_run(sample, "alice@example.com")
    alice = open_page(_signed_in("alice@example.com", run=run), "judge")
    assert not [w for w in alice.text_input if w.label == "Your name (as a rater)"]
    assert "person:alice@example.com" in texts(alice)        # said where her labels go
    queue = pool_queue([store.load(run).ranking], 10, sample.qrels)
    for grade in (2, 3, 1):
        alice.button(key=f"judge_g{grade}").click().run()
    hers = _pairs(store, fp, "person:alice@example.com")
    assert list(hers) == [p.key for p in queue[:3]]

    # bob, by her link, types her name: his labels go to his own set, with hers as a suffix
    bob = open_page(_signed_in("bob@example.com", run=run), "judge")
    bob.text_input(key="w:rd_judge_rater").set_value("alice@example.com").run()
    assert "person:bob@example.com/alice@example.com" in texts(bob)
    assert bob.get("progress")[0].proto.text.startswith("0 labeled")   # not her progress
    assert shown_pair(bob) == queue[0].key
    bob.button(key="judge_g0").click().run()
    assert shown_pair(bob) == queue[1].key
    bob.button(key="judge_unsure").click().run()            # "can't tell" on a pair she labeled
    assert _pairs(store, fp, "person:alice@example.com") == hers
    assert store.load_judgments(fp, "unsure:alice@example.com").get(*queue[1].key) is None
    assert _pairs(store, fp, "person:bob@example.com/alice@example.com") == {queue[0].key: 0.0}
    assert store.load_judgments(fp, "unsure:bob@example.com/alice@example.com").get(
        *queue[1].key) is not None
    (download, _) = bob.get("download_button")
    assert "Download your 1 label" in download.label
    # the agreement view: bob sees his own sets, not hers (he does not own the dataset)
    options = _agreement_options(bob)
    assert "person:bob@example.com/alice@example.com" in options
    assert "person:alice@example.com" not in options
    assert t("raters.others_hidden", "en") in texts(bob)

    # nor do the pages that fill the gaps with stored sets offer him her set
    results = open_page(_signed_in("bob@example.com", run=run), "results")
    results.radio(key="w:rd_labels_mode").set_value("filled").run()
    offered = list(results.multiselect(key="w:rd_labels_sets").options)
    assert offered == ["person:bob@example.com/alice@example.com"]

    # typing his own name (or nothing) is his plain set
    bob.text_input(key="w:rd_judge_rater").set_value("bob@example.com").run()
    bob.button(key="judge_g3").click().run()
    assert len(_pairs(store, fp, "person:bob@example.com")) == 1
    assert _pairs(store, fp, "person:alice@example.com") == hers

    # alice owns the dataset (the first run on it is hers): she sees every rater
    alice.run()
    options = _agreement_options(alice)
    assert {"person:alice@example.com", "person:bob@example.com",
            "person:bob@example.com/alice@example.com"} <= set(options)
    assert t("raters.others_hidden", "en") not in texts(alice)
    results = open_page(_signed_in("alice@example.com", run=run), "results")
    results.radio(key="w:rd_labels_mode").set_value("filled").run()
    assert "person:bob@example.com" in results.multiselect(key="w:rd_labels_sets").options
    alice.multiselect(key="judge_agree_sets").set_value(
        ["person:alice@example.com", "person:bob@example.com/alice@example.com"]).run()
    assert not alice.exception


def test_a_dataset_whose_first_run_is_shared_shows_no_one_the_others(sample, runs):
    store, fp = get_store(), sample.fingerprint()
    for email in ("alice@example.com", "bob@example.com"):
        at = open_page(_signed_in(email, run=runs[0]), "judge")
        at.button(key="judge_g1").click().run()
    assert {s["name"] for s in store.judgment_sets(fp)} == {"person:alice@example.com",
                                                          "person:bob@example.com"}
    options = _agreement_options(at)
    assert "person:bob@example.com" in options and "person:alice@example.com" not in options
