"""Judgment sets: fill never overrides a human label and counts what it left out; TREC qrels
with a sources sidecar round-trip; the run store keeps sets per dataset, one label at a time."""

from __future__ import annotations

import pytest

from ragdash import Ranking
from ragdash.errors import DatasetError
from ragdash.judgments import (
    JudgmentSet,
    fill,
    read_judgments,
    sidecar_path,
    write_judgments,
)
from ragdash.metrics import evaluate
from ragdash.runs.store import RunStore

HUMAN = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
LLM = "llm:gpt-4o-mini@umbrela-1"


def llm_set() -> JudgmentSet:
    s = JudgmentSet(LLM)
    s.add("q1", "a", 0, LLM, "2026-12-01")  # the human says 1: refused, a disagreement
    s.add("q1", "b", 0, LLM, "2026-12-01")  # the human says 0: refused, agrees
    s.add("q1", "d", 2, LLM, "2026-12-01")  # a gap: used
    s.add("q9", "a", 1, LLM, "2026-12-01")  # no such query
    s.add("q2", "zz", 3, LLM, "2026-12-01")  # no such document
    return s


def test_fill_uses_only_the_gaps_and_counts_the_rest():
    person = JudgmentSet("person:hana")
    person.add("q1", "d", 0, "person:hana")  # the LLM set filled it first
    person.add("q2", "e", 1, "person:hana")  # a gap: used
    filled = fill(HUMAN, llm_set(), person, queries=["q1", "q2"], docs="abcde")
    assert filled.qrels == {"q1": {"a": 1, "b": 0, "d": 2}, "q2": {"c": 2, "e": 1}}
    assert filled.labels == ("qrels", LLM, "person:hana")
    llm, hana = filled.sets
    assert (llm.labels, llm.used, llm.refused, llm.disagree) == (5, 1, 2, 1)
    assert (llm.unknown_queries, llm.unknown_docs, llm.examples) == (1, 1, ["q9", "zz"])
    assert (hana.used, hana.earlier, hana.refused) == (1, 1, 0)
    assert filled.used == 2 and filled.refused == 2 and filled.unknown == 2
    assert filled.filled[("q1", "d")].source == LLM
    assert filled.summary()["sets"][0]["unknown_docs"] == 1
    # the input qrels are not changed
    assert HUMAN == {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}


def test_fill_with_nothing_added_is_the_human_qrels():
    filled = fill(HUMAN)
    assert filled.qrels == HUMAN and filled.labels == ("qrels",) and filled.human_only


def test_filling_raises_judged_at_k_and_scores_the_filled_relevant_document():
    run = Ranking.from_dict({"q1": {"d": 3.0, "a": 2.0, "x": 1.0}})
    human = evaluate(run, HUMAN, kmax=3)
    filled = evaluate(run, fill(HUMAN, llm_set()).qrels, kmax=3)
    assert human.mean("judged@3") == pytest.approx(1 / 3)
    assert filled.mean("judged@3") == pytest.approx(2 / 3)
    assert human.mean("precision@1") == 0 and filled.mean("precision@1") == 1


def test_trec_qrels_and_sidecar_round_trip(tmp_path):
    s = fill(HUMAN, llm_set(), queries=["q1", "q2"], docs="abcd").to_set("all")
    qrels, side = write_judgments(s, tmp_path / "all.qrels")
    assert side == sidecar_path(qrels) and side.name == "all.qrels.sources.tsv"
    assert qrels.read_text().splitlines()[0] == "q1 0 a 1"
    back = read_judgments(qrels)
    assert back.qrels() == s.qrels()
    assert {(lb.query_id, lb.doc_id): (lb.source, lb.date) for lb in back} == {
        ("q1", "a"): ("qrels", ""), ("q1", "b"): ("qrels", ""), ("q2", "c"): ("qrels", ""),
        ("q1", "d"): (LLM, "2026-12-01")}
    # trec_eval's layout: four fields, whole grades written as integers
    assert all(len(line.split()) == 4 and line.split()[3].isdigit()
               for line in qrels.read_text().splitlines())


def test_a_qrels_file_without_sidecar_is_labelled_by_its_name(tmp_path):
    path = tmp_path / "判定.txt"
    path.write_text("q1 0 a 2\nq1 0 日本 1\n", encoding="utf-8")
    s = read_judgments(path)
    assert s.sources() == {"file:判定.txt": 2} and s.get("q1", "日本").grade == 1
    assert read_judgments(path, source="person:hana").sources() == {"person:hana": 2}


def test_a_bad_sidecar_line_names_the_file_and_the_line(tmp_path):
    path = tmp_path / "l.qrels"
    path.write_text("q1 0 a 2\n", encoding="utf-8")
    sidecar_path(path).write_text("query-id\tdoc-id\tsource\tdate\nq1\ta\tllm:m@1\n")
    with pytest.raises(DatasetError, match=r"l.qrels.sources.tsv, line 2: 3 tab-separated"):
        read_judgments(path)
    sidecar_path(path).write_text("q1\ta\tgpt\t2026-01-01\n")
    with pytest.raises(DatasetError, match=r"line 1: the source 'gpt' is not one"):
        read_judgments(path)


def test_an_id_with_a_space_is_refused_before_anything_is_written(tmp_path):
    s = JudgmentSet("x")
    s.add("q 1", "a", 1, "person:hana")
    with pytest.raises(DatasetError, match="white space"):
        write_judgments(s, tmp_path / "x.qrels")
    assert not (tmp_path / "x.qrels").exists()


@pytest.mark.parametrize("source", ["gpt", "llm:", "person:", "file:\tx", ""])
def test_a_source_must_name_where_the_label_came_from(source):
    with pytest.raises(DatasetError, match="source"):
        JudgmentSet("x").add("q", "d", 1, source)


def test_the_store_keeps_sets_per_dataset_one_label_at_a_time(tmp_path):
    from ragdash.judgments import Label

    store = RunStore(tmp_path)
    assert store.save_judgments("fp1", llm_set()) == 5
    store.add_label("fp1", "person:hana", Label("q1", "d", 1, "person:hana", "2026-12-02"))
    store.add_label("fp1", "person:ken", Label("q1", "d", 0, "person:ken", "2026-12-03"))
    store.add_label("fp1", "person:hana", Label("q1", "d", 2, "person:hana", "2026-12-04"))
    store.add_label("fp2", "person:hana", Label("q7", "z", 1, "person:hana", "2026-12-04"))
    again = RunStore(tmp_path)  # from the file, not from memory
    sets = {s["name"]: s for s in again.judgment_sets("fp1")}
    assert set(sets) == {LLM, "person:hana", "person:ken"}
    assert sets[LLM]["labels"] == 5 and sets[LLM]["sources"] == {LLM: 5}
    hana = again.load_judgments("fp1", "person:hana")
    assert [(lb.grade, lb.date) for lb in hana] == [(2.0, "2026-12-04")]  # relabelled
    assert again.load_judgments("fp1", "person:ken").get("q1", "d").grade == 0
    assert again.load_judgments("fp1", LLM).qrels() == llm_set().qrels()
    assert again.remove_label("fp1", "person:ken", "q1", "d")
    assert again.delete_judgments("fp1", LLM) == 5
    assert [s["name"] for s in again.judgment_sets("fp1")] == ["person:hana"]
    assert len(again.load_judgments("fp2", "person:hana")) == 1
