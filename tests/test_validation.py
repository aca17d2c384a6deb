"""The validation report on crafted datasets: every check, its level, counts and examples."""

from __future__ import annotations

import json
import math

import pytest

from ragdash.dataset import Dataset, Document, Query
from ragdash.loaders import load_dataset
from ragdash.validation import Issue, ValidationReport, validate


def crafted() -> Dataset:
    """One of each problem, counted by hand in the assertions below."""
    docs = [Document("d1", "alpha"), Document("d2", "beta", "B"), Document("d3", "   "),
            Document("d1", "alpha again"), Document("d 5", "spaced id"), Document("d6", "", "")]
    queries = [Query("q1", "first"), Query("q2", "second"), Query("q3", ""),
               Query("q1", "dup"), Query("q4", "never judged"), Query("q5", "zero only")]
    qrels = {
        "q1": {"d1": 2.0, "d2": 0.5, "d9": 1.0},   # d9 unknown; 0.5 fractional
        "q2": {"d2": -1.0, "d3": 0.0},              # nothing relevant, one negative grade
        "q3": {"d2": 1.0},
        "q5": {"d1": 0.0},                          # nothing relevant
        "qX": {"d1": 1.0},                          # unknown query
    }
    return Dataset(docs, queries, qrels, name="crafted")


@pytest.fixture(scope="module")
def report() -> ValidationReport:
    return validate(crafted(), tokens=False)


def test_levels_and_ok(report: ValidationReport):
    assert not report.ok
    assert {i.code for i in report.errors} == {"duplicate_doc_ids", "duplicate_query_ids"}
    assert {i.code for i in report.warnings} == {
        "whitespace_in_ids", "empty_documents", "empty_queries", "negative_grades",
        "qrels_unknown_docs", "qrels_unknown_queries", "no_relevant"}
    assert {i.code for i in report.info} == {"fractional_grades", "not_evaluated"}


@pytest.mark.parametrize("code,count,examples", [
    ("duplicate_doc_ids", 1, ["'d1'"]),
    ("duplicate_query_ids", 1, ["'q1'"]),
    ("whitespace_in_ids", 1, ["'d 5'"]),
    ("empty_documents", 2, ["'d3'", "'d6'"]),
    ("empty_queries", 1, ["'q3'"]),
    ("negative_grades", 1, ["q2 d2 = -1"]),
    ("qrels_unknown_docs", 1, ["q1 → d9"]),
    ("qrels_unknown_queries", 1, ["'qX'"]),
    ("no_relevant", 2, ["'q2'", "'q5'"]),
    ("not_evaluated", 1, ["'q4'"]),
    ("fractional_grades", 1, ["0.5"]),
])
def test_counts_and_examples(report: ValidationReport, code: str, count: int, examples):
    issue = report.get(code)
    assert issue is not None
    assert issue.count == count
    assert issue.examples == examples


def test_sizes(report: ValidationReport):
    s = report.sizes
    assert s["documents"] == 6 and s["queries"] == 6
    # evaluated = queries with qrels, in file order (q1 appears twice in the queries list)
    assert s["queries_with_qrels"] == 5
    assert s["judgements"] == 8
    assert s["relevant_judgements"] == 5   # 2.0, 0.5, 1.0 (d9), 1.0 (q3), 1.0 (qX)
    # relevant per evaluated query: q1 3, q2 0, q3 1, q1 3, q5 0 -> 7 / 5
    assert s["mean_relevant_per_query"] == pytest.approx(1.4)
    assert s["document_chars"] == {"min": 0, "mean": pytest.approx(34 / 6, abs=0.05),
                                   "median": 5.5, "max": 11}
    assert s["tokens"] is None


def test_messages_read_well(report: ValidationReport):
    text = "\n".join(report.lines())
    assert "6 documents, 6 queries (5 with qrels), 8 judgements" in text
    assert "error: 1 document reuses an id that another document already has" in text
    assert "2 evaluated queries have no relevant document" in text
    assert "count in the mean" in text
    assert str(report.get("no_relevant")).endswith("(e.g. 'q2', 'q5')")


def test_to_dict_is_json(report: ValidationReport):
    d = json.loads(json.dumps(report.to_dict(), ensure_ascii=False))
    assert d["ok"] is False
    assert [e["code"] for e in d["errors"]] == ["duplicate_doc_ids", "duplicate_query_ids"]
    assert set(d["warnings"][0]) == {"code", "level", "message", "count", "examples"}
    assert d["sizes"]["judgements"] == 8


def test_clean_dataset_is_ok():
    ds = Dataset([Document("a", "x"), Document("b", "y")], [Query("q", "z")],
                 {"q": {"a": 1.0}})
    report = validate(ds, tokens=False)
    assert report.ok and not report.warnings and not report.info
    assert report.sizes["mean_relevant_per_query"] == 1.0


def test_ids_that_do_not_match_at_all_are_errors():
    ds = Dataset([Document("doc-1", "x")], [Query("1", "z")], {"query-1": {"1": 1.0}})
    report = validate(ds, tokens=False)
    codes = {i.code for i in report.errors}
    assert {"qrels_unknown_docs", "qrels_unknown_queries", "no_evaluated_queries"} <= codes
    assert "ids do not match" in report.get("qrels_unknown_docs").message


def test_grades_and_ids_from_code_are_checked():
    ds = Dataset([Document(1, "x")], [Query("q", "z")],  # type: ignore[arg-type]
                 {"q": {"1": math.nan, "2": "high"}})  # type: ignore[dict-item]
    report = validate(ds, tokens=False)
    assert report.get("ids_not_strings").count == 1
    assert report.get("grades_not_numbers").count == 2


def test_empty_dataset():
    report = validate(Dataset([], [], {}), tokens=False)
    assert {i.code for i in report.errors} == {"no_documents", "no_queries"}


def test_article_query_without_relevant_docs_is_evaluated_and_flagged(tmp_path):
    p = tmp_path / "a.json"
    p.write_text(json.dumps({"corpus": ["a", "b"], "queries": [
        {"query": "x", "relevant_docs": [0]}, {"query": "y", "relevant_docs": []}]}))
    report = validate(load_dataset(p), tokens=False)
    assert report.ok
    assert report.sizes["queries_with_qrels"] == 2
    assert report.get("no_relevant").examples == ["'q1'"]


def test_token_counts_come_from_the_cost_module():
    from ragdash.cost import count_tokens

    ds = Dataset([Document("a", "日本語の文書です", "題名"), Document("b", "English text")],
                 [Query("q", "質問"), Query("unjudged", "not counted")], {"q": {"a": 1.0}})
    tokens = validate(ds).sizes["tokens"]
    assert tokens["documents"] == count_tokens(["題名 日本語の文書です", "English text"]).tokens
    assert tokens["queries"] == count_tokens(["質問"]).tokens
    assert tokens["total"] == tokens["documents"] + tokens["queries"]
    assert tokens["method"]


def test_a_big_dataset_gets_the_estimate_and_says_so(monkeypatch):
    """Above EXACT_TOKENS_UP_TO texts the report counts with the estimate (cl100k is
    ~0.1-0.2 ms a text) and names that method; at or below it, the exact count as before."""
    import ragdash.validation as validation
    from ragdash.cost import count_tokens
    from ragdash.cost.tokens import METHOD_ESTIMATE

    ds = Dataset([Document("a", "日本語の文書です", "題名"), Document("b", "English text, twice")],
                 [Query("q", "質問")], {"q": {"a": 1.0}})
    docs = ["題名 日本語の文書です", "English text, twice"]
    monkeypatch.setattr(validation, "EXACT_TOKENS_UP_TO", 3)
    exact = validate(ds).sizes["tokens"]
    assert exact["documents"] == count_tokens(docs).tokens
    monkeypatch.setattr(validation, "EXACT_TOKENS_UP_TO", 2)
    big = validate(ds).sizes["tokens"]
    assert big["method"] == METHOD_ESTIMATE
    assert big["documents"] == count_tokens(docs, method="estimate").tokens
    assert big["queries"] == count_tokens(["質問"], method="estimate").tokens


def test_issue_str_shows_examples_and_more():
    assert str(Issue("x", "warning", "3 things", 3, ["a", "b"])) == "3 things (e.g. a, b, ...)"
    assert str(Issue("x", "warning", "2 things", 2, ["a", "b"])) == "2 things (e.g. a, b)"
    assert str(Issue("x", "info", "note")) == "note"
