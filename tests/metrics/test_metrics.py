"""Hand-worked cases, the registry, id normalisation and the MetricTable views."""

from __future__ import annotations

import json
from math import log2

import numpy as np
import pytest

from ragdash import Ranking
from ragdash.errors import MetricError
from ragdash.metrics import (
    DEFAULT_KS,
    FAMILIES,
    FAMILY_NAMES,
    QUALITY_NAMES,
    evaluate,
    family,
    metric_names,
    parse_metric,
)


def ranked(*docs: str, query: str = "q") -> Ranking:
    """A ranking of ``docs`` in this order (scores descending, no ties)."""
    return Ranking.from_dict({query: {d: float(len(docs) - i) for i, d in enumerate(docs)}})


# -- hand-worked ---------------------------------------------------------------------------
# One query; ranking a b c d e; qrels a:0 b:2 d:1 x:3 (x not retrieved).
# relevant (grade > 0): b, d, x -> R = 3; relevance by rank: 0 1 0 1 0.
HAND_RUN = ("a", "b", "c", "d", "e")
HAND_QRELS = {"q": {"a": 0, "b": 2, "d": 1, "x": 3}}

HAND_EXPECTED = {
    # found so far: 0 1 1 2 2, divided by R = 3
    "recall": [0, 1 / 3, 1 / 3, 2 / 3, 2 / 3],
    # found so far divided by K
    "precision": [0, 1 / 2, 1 / 3, 2 / 4, 2 / 5],
    "hit_rate": [0, 1, 1, 1, 1],
    # first relevant at rank 2
    "mrr": [0, 1 / 2, 1 / 2, 1 / 2, 1 / 2],
    # precision at the relevant ranks: P@2 = 1/2, P@4 = 2/4; summed so far, divided by R = 3
    "map": [0, (1 / 2) / 3, (1 / 2) / 3, (1 / 2 + 2 / 4) / 3, (1 / 2 + 2 / 4) / 3],
    # gains 0 2 0 1 0; ideal gains 3 2 1 (x, b, d) — x counts though it was not retrieved
    "ndcg": [
        0.0,
        (2 / log2(3)) / (3 + 2 / log2(3)),
        (2 / log2(3)) / (3 + 2 / log2(3) + 1 / log2(4)),
        (2 / log2(3) + 1 / log2(5)) / (3 + 2 / log2(3) + 1 / log2(4)),
        (2 / log2(3) + 1 / log2(5)) / (3 + 2 / log2(3) + 1 / log2(4)),
    ],
    # N = 1 (a), ranked above both relevant found: each adds 1 - min(1, 3) / min(3, 1) = 0
    "bpref": [0, 0, 0, 0, 0],
    # judged by rank: 1 1 0 1 0 (a grade 0 is a judgement)
    "judged": [1, 1, 2 / 3, 3 / 4, 3 / 5],
}


@pytest.mark.parametrize("fam", FAMILY_NAMES)
def test_hand_worked_every_family_every_k(fam):
    table = evaluate(ranked(*HAND_RUN), HAND_QRELS, kmax=5)
    np.testing.assert_allclose(table.values[fam][0], HAND_EXPECTED[fam], rtol=0, atol=1e-12)


def test_hand_worked_values_by_name():
    table = evaluate(ranked(*HAND_RUN), HAND_QRELS, kmax=5)
    # nDCG@5 = (2/1.58496 + 1/2.32193) / (3 + 2/1.58496 + 1/2) = 1.69254 / 4.76186 = 0.355436
    assert table.mean("ndcg@5") == pytest.approx(0.355436, abs=1e-6)
    assert table.mean("map@4") == pytest.approx(1 / 3)
    assert table.value("mrr")[0] == 0.5  # bare name: at Kmax


def test_hand_worked_exponential_gain():
    # gains 2^g - 1: b -> 3, d -> 1; ideal 7 (x), 3 (b), 1 (d)
    table = evaluate(ranked(*HAND_RUN), HAND_QRELS, kmax=5, gain="exponential")
    want = (3 / log2(3) + 1 / log2(5)) / (7 + 3 / log2(3) + 1 / log2(4))
    assert table.mean("ndcg@5") == pytest.approx(want, abs=1e-12)
    assert table.gain == "exponential"
    # binary metrics do not depend on the gain
    linear = evaluate(ranked(*HAND_RUN), HAND_QRELS, kmax=5)
    for fam in ("recall", "precision", "hit_rate", "mrr", "map"):
        np.testing.assert_array_equal(table.values[fam], linear.values[fam])


def test_hand_worked_relevance_level():
    # level 2: relevant are b (2) and x (3) -> R = 2; relevance by rank 0 1 0 0 0
    table = evaluate(ranked(*HAND_RUN), HAND_QRELS, kmax=5, relevance_level=2)
    np.testing.assert_allclose(table.values["recall"][0], [0, .5, .5, .5, .5])
    np.testing.assert_allclose(table.values["map"][0], [0, .25, .25, .25, .25])
    assert table.num_relevant[0] == 2
    # nDCG keeps using every grade as the gain
    np.testing.assert_allclose(table.values["ndcg"][0], HAND_EXPECTED["ndcg"], atol=1e-12)


def test_precision_divides_by_k_when_fewer_were_retrieved():
    # one document retrieved, relevant; K = 5 -> P@5 = 1/5, recall@5 = 1
    table = evaluate(ranked("a"), {"q": {"a": 1}}, kmax=5)
    np.testing.assert_allclose(table.values["precision"][0], [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5])
    np.testing.assert_allclose(table.values["recall"][0], [1] * 5)
    np.testing.assert_allclose(table.values["ndcg"][0], [1] * 5)


def test_fractional_grades_from_the_article():
    # ranking 6 3 1; grades 6: 1.0, 1: 0.9 (both relevant: grade > 0)
    # DCG@3 = 1.0/log2(2) + 0.9/log2(4) = 1.45; IDCG@3 = 1.0 + 0.9/log2(3) = 1.56784
    table = evaluate(ranked("6", "3", "1"), {"q": {"1": 0.9, "6": 1.0}}, kmax=3)
    assert table.mean("ndcg@3") == pytest.approx(1.45 / (1 + 0.9 / log2(3)), abs=1e-12)
    assert table.mean("recall@3") == 1.0
    assert table.mean("map@3") == pytest.approx((1 / 1 + 2 / 3) / 2)


def test_ties_are_broken_by_doc_id_descending():
    # all scores equal -> canonical order c, b, a; only a is relevant -> first hit at rank 3
    run = Ranking.from_dict({"q": {"a": 1.0, "b": 1.0, "c": 1.0}})
    table = evaluate(run, {"q": {"a": 1}}, kmax=3)
    np.testing.assert_allclose(table.values["mrr"][0], [0, 0, 1 / 3])


def test_negative_grades_count_as_zero_gain():
    # a: -1 at rank 1 contributes no gain (not a negative one); b: 1 at rank 2
    table = evaluate(ranked("a", "b"), {"q": {"a": -1, "b": 1}}, kmax=2)
    np.testing.assert_allclose(table.values["ndcg"][0], [0, 1 / log2(3)])
    assert table.num_relevant[0] == 1


def test_query_without_relevant_scores_zero_and_counts_unless_dropped():
    run = Ranking.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}})
    qrels = {"q1": {"a": 1}, "q2": {"c": 0}}  # q2 is judged, but nothing is relevant
    table = evaluate(run, qrels, kmax=2)
    assert list(table.no_relevant) == [False, True]
    for fam in QUALITY_NAMES:
        assert (table.values[fam][1] == 0).all()
    # its top 2 is judged at rank 1 only: the coverage of the labels, not a quality
    np.testing.assert_allclose(table.values["judged"][1], [1, 0.5])
    assert table.mean("ndcg@1") == 0.5
    assert table.mean("ndcg@1", drop_no_relevant=True) == 1.0
    np.testing.assert_allclose(table.curve("recall"), [0.5, 0.5])
    np.testing.assert_allclose(table.curve("recall", drop_no_relevant=True), [1, 1])
    assert table.summary([1], ["ndcg"], drop_no_relevant=True) == {"ndcg@1": 1.0}


def test_default_queries_are_those_in_both_run_and_qrels_in_run_order():
    run = Ranking.from_dict({"r2": {"a": 1.0}, "both1": {"a": 1.0}, "both0": {"b": 1.0}})
    qrels = {"both0": {"b": 1}, "only_qrels": {"a": 1}, "both1": {"a": 1}}
    table = evaluate(run, qrels)
    assert table.query_ids == ["both1", "both0"]
    assert table.in_run.all()


def test_explicit_queries_evaluate_exactly_those():
    run = Ranking.from_dict({"q1": {"a": 1.0}})
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    table = evaluate(run, qrels, kmax=3, queries=["q2", "q1", "q3"])
    assert table.query_ids == ["q2", "q1", "q3"]
    assert list(table.in_run) == [False, True, False]
    assert list(table.no_relevant) == [False, False, True]  # q3: not in the qrels
    np.testing.assert_allclose(table.value("recall@3"), [0, 1, 0])
    assert table.mean("recall@3") == pytest.approx(1 / 3)
    with pytest.raises(MetricError, match="twice"):
        evaluate(run, qrels, queries=["q1", "q1"])
    with pytest.raises(MetricError, match="list of query ids"):
        evaluate(run, qrels, queries="q1")


def test_kmax_defaults_to_the_run_depth_and_may_exceed_it():
    run = Ranking.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    assert evaluate(run, {"q": {"c": 1}}).kmax == 3
    deep = evaluate(run, {"q": {"c": 1}}, kmax=10)
    assert deep.mean("precision@10") == pytest.approx(0.1)
    assert evaluate(Ranking.from_dict({}), {"q": {"a": 1}}).kmax == 1
    for bad in (0, -1, 2.5, "10", True):
        with pytest.raises(MetricError, match="kmax"):
            evaluate(run, {"q": {"c": 1}}, kmax=bad)


# -- ids: the article's NDCG-is-zero bug -----------------------------------------------------
def test_string_keys_after_json_give_the_right_ndcg():
    """The article keyed relevance by int doc positions; after JSON the keys are strings and
    every NDCG became 0. Here every id is a string and the JSON round trip changes nothing."""
    qrels = {"0": {1: 0.9, 6: 1.0}}
    after_json = json.loads(json.dumps(qrels))
    assert list(after_json["0"]) == ["1", "6"]
    run = Ranking.from_dict({"0": {"6": 0.9, "3": 0.5, "1": 0.4}})
    want = 1.45 / (1 + 0.9 / log2(3))
    assert evaluate(run, after_json).mean("ndcg@3") == pytest.approx(want, abs=1e-12)
    assert evaluate(run, qrels).mean("ndcg@3") == pytest.approx(want, abs=1e-12)


def test_integer_ids_are_normalised_with_str_on_both_sides():
    # a ranking built from list positions (ints), as the article's retriever returns them
    run = Ranking.from_topk(["0"], [0, 1, 2, 3, 4, 5, 6], np.array([[6, 3, 1]]),
                            np.array([[0.9, 0.5, 0.4]]))
    want = 1.45 / (1 + 0.9 / log2(3))
    for qrels in ({"0": {"1": 0.9, "6": 1.0}}, {0: {1: 0.9, 6: 1.0}}):
        table = evaluate(run, qrels)
        assert table.query_ids == ["0"]
        assert table.mean("ndcg@3") == pytest.approx(want, abs=1e-12)


def test_the_same_id_twice_in_different_types_is_an_error():
    run = ranked("7")
    with pytest.raises(MetricError, match="twice"):
        evaluate(run, {"q": {7: 1, "7": 2}})
    with pytest.raises(MetricError, match="twice"):
        evaluate(run, {1: {"7": 1}, "1": {"7": 1}}, queries=["1"])


@pytest.mark.parametrize("grade", ["high", None, float("nan"), float("inf"), [1]])
def test_non_numeric_grades_are_named(grade):
    with pytest.raises(MetricError, match=r"grade .* of document 'b' for query 'q'"):
        evaluate(ranked("a"), {"q": {"a": 1, "b": grade}})


def test_numeric_strings_and_numpy_grades_are_accepted():
    table = evaluate(ranked("a", "b"), {"q": {"a": np.int64(2), "b": "1"}}, kmax=2)
    assert table.mean("recall@2") == 1.0


@pytest.mark.parametrize("level", [0, -1, "x", float("nan")])
def test_relevance_level_must_be_positive(level):
    with pytest.raises(MetricError, match="relevance level"):
        evaluate(ranked("a"), {"q": {"a": 1}}, relevance_level=level)


def test_unknown_gain_is_an_error():
    with pytest.raises(MetricError, match="linear, exponential"):
        evaluate(ranked("a"), {"q": {"a": 1}}, gain="log")


def test_qrels_must_be_a_mapping():
    with pytest.raises(MetricError, match="mapping"):
        evaluate(ranked("a"), [("q", "a", 1)])
    with pytest.raises(MetricError, match="mapping"):
        evaluate(ranked("a"), {"q": ["a"]})


# -- registry --------------------------------------------------------------------------------
def test_registry_has_every_family_with_help_in_both_languages():
    assert FAMILY_NAMES == ("recall", "precision", "hit_rate", "mrr", "ndcg", "map", "bpref",
                            "judged")
    assert "judged" not in QUALITY_NAMES and [f for f in FAMILIES.values() if f.coverage] \
        == [FAMILIES["judged"]]
    for f in FAMILIES.values():
        assert f.label and f.formula and f.help_en and f.help_ja
        assert any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in f.help_ja)
        assert f.empty_value == 0.0
    assert [f.name for f in FAMILIES.values() if f.graded] == ["ndcg"]


@pytest.mark.parametrize("name, want", [
    ("ndcg@10", ("ndcg", 10)), ("nDCG@10", ("ndcg", 10)), ("recall@1", ("recall", 1)),
    ("P@5", ("precision", 5)), ("success@3", ("hit_rate", 3)), ("hit-rate@3", ("hit_rate", 3)),
    ("hitrate@3", ("hit_rate", 3)), ("map_cut@100", ("map", 100)), ("mrr", ("mrr", None)),
    (" MAP @ 7 ", ("map", 7)), ("recip_rank@2", ("mrr", 2)),
])
def test_parse_metric(name, want):
    assert parse_metric(name) == want


@pytest.mark.parametrize("name", ["ndgc@10", "f1@5", "", "@5", "ndcg@0", "ndcg@x", "ndcg@-1",
                                  "ndcg@1.5"])
def test_parse_metric_errors_list_the_valid_families(name):
    with pytest.raises(MetricError) as err:
        parse_metric(name)
    text = str(err.value)
    if "cutoff" not in text:  # unknown family: every valid name, from the registry
        for fam in FAMILY_NAMES:
            assert fam in text


def test_parse_metric_suggests_a_close_name():
    with pytest.raises(MetricError, match="did you mean 'ndcg'"):
        parse_metric("ndgc@10")
    with pytest.raises(MetricError, match="unknown metric family"):
        family("bleu")


def test_metric_names_follow_the_registry_order():
    assert metric_names([1, 10], ["ndcg", "recall"]) == ["ndcg@1", "ndcg@10", "recall@1",
                                                         "recall@10"]
    assert len(metric_names(range(1, 101))) == 100 * len(FAMILY_NAMES)


# -- MetricTable views -----------------------------------------------------------------------
@pytest.fixture()
def table():
    run = Ranking.from_dict({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"d": 1.0}})
    return evaluate(run, {"q1": {"b": 1, "z": 1}, "q2": {"d": 2}}, kmax=3)


def test_value_beyond_kmax_asks_for_a_larger_kmax(table):
    with pytest.raises(MetricError, match="computed up to K=3; evaluate again with kmax=200"):
        table.value("recall@200")
    with pytest.raises(MetricError, match="valid families"):
        table.mean("f1@2")


def test_summary_curve_and_per_query(table):
    assert table.summary([1, 2], ["recall", "mrr"]) == {
        "recall@1": 0.5, "recall@2": 0.75, "mrr@1": 0.5, "mrr@2": 0.75}
    assert list(table.summary()) == metric_names([1, 3])  # DEFAULT_KS up to Kmax, and Kmax
    assert table.default_ks() == [1, 3]
    assert table.curve("hit_rate").tolist() == [0.5, 1.0, 1.0]
    assert table.per_query(["recall@2", "ndcg@1"]) == {
        "q1": {"recall@2": 0.5, "ndcg@1": 0.0}, "q2": {"recall@2": 1.0, "ndcg@1": 1.0}}
    assert "2 queries" in repr(table)


def test_default_ks_for_a_deep_table():
    run = Ranking.from_dict({"q": {f"d{i}": float(i) for i in range(150)}})
    assert evaluate(run, {"q": {"d1": 1}}).default_ks() == list(DEFAULT_KS)


def test_select_reorders_and_checks(table):
    sub = table.select(["q2", "q1"])
    assert sub.query_ids == ["q2", "q1"]
    np.testing.assert_array_equal(sub.value("ndcg@3"), table.value("ndcg@3")[::-1])
    with pytest.raises(MetricError, match="not in this table"):
        table.select(["q9"])


def test_means_of_an_empty_selection_are_nan(table):
    empty = table.select([])
    assert len(empty) == 0
    assert np.isnan(empty.mean("ndcg@1"))
    assert np.isnan(empty.curve("ndcg")).all()


def test_to_frame_long_and_wide(table):
    long = table.to_frame()
    assert list(long.columns) == ["query_id", "metric", "k", "value"]
    assert len(long) == 2 * len(FAMILY_NAMES) * 3
    row = long[(long.query_id == "q1") & (long.metric == "recall") & (long.k == 2)]
    assert row.value.item() == 0.5
    wide = table.to_frame("wide", ks=[1, 3], families=["ndcg"])
    assert list(wide.columns) == ["ndcg@1", "ndcg@3"]
    assert wide.index.name == "query_id" and list(wide.index) == ["q1", "q2"]
    with pytest.raises(MetricError, match="outside"):
        table.to_frame(ks=[4])
    with pytest.raises(MetricError, match="shape"):
        table.to_frame("tall")


def test_import_is_light():
    """`score` startup is benchmarked: importing the metrics must not pull in pandas/scipy."""
    import subprocess
    import sys

    code = ("import sys, ragdash.metrics, ragdash.cli.score, ragdash.cli._output; "
            "print(sorted(m for m in ('pandas', 'scipy', 'bm25s', 'streamlit') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_an_empty_run_scores_every_asked_query_zero():
    table = evaluate(Ranking.from_dict({}), {"q1": {"d": 1}, "q2": {"e": 2}},
                     queries=["q1", "q2"], kmax=5)
    assert table.query_ids == ["q1", "q2"]
    for name in ("recall", "precision", "hit_rate", "mrr", "ndcg", "map"):
        assert (table.values[name] == 0).all()
