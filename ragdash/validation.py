"""Check a dataset before any money is spent on it.

``validate(dataset)`` returns a :class:`ValidationReport`: ``errors`` (the evaluation would be
wrong or impossible: fix the data first), ``warnings`` (it runs, but read this), ``info`` (what
the numbers will mean), and ``sizes``. Each entry is an :class:`Issue` with a code, a message
written for the user, a count and a few examples.

What is checked:

====================== ======= ===============================================================
code                   level   meaning
====================== ======= ===============================================================
no_documents           error   the corpus is empty
no_queries             error   there are no queries
no_evaluated_queries   error   no query has qrels, so nothing can be scored
ids_not_strings        error   an id is not a str (a Dataset built in code)
duplicate_doc_ids      error   two documents share an id
duplicate_query_ids    error   two queries share an id
grades_not_numbers     error   a grade is not a finite number
qrels_unknown_queries  warning qrels for queries that are not in the queries (error if all)
qrels_unknown_docs     warning judgements naming documents not in the corpus (error if all)
no_relevant            warning evaluated queries with no document graded above 0
negative_grades        warning negative grades (they count as not relevant, gain 0)
empty_documents        warning documents with neither text nor title
empty_queries          warning queries with empty text
whitespace_in_ids      warning ids with spaces, which TREC files cannot hold
(loader codes)         warning what the loader dropped or decided (repeated lines, ...)
not_evaluated          info    queries without qrels, which are not evaluated
fractional_grades      info    grades such as 0.8: NDCG uses them as gains
====================== ======= ===============================================================

Relevant means grade > 0 (DESIGN.md), so the counts here match what the metrics will use at
the default relevance level.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .cost import count_tokens
from .dataset import Dataset
from .errors import RagdashError
from .i18n import normalize_lang, t
from .metrics import is_relevant

EXAMPLES = 5

#: each finding's code (the checks' own and the loaders' notes) -> its words in another
#: language than English (message keys); a code not here is said as its English
FINDING_KEYS = {"repeated_documents": "valid.repeated_documents",
        "repeated_queries": "valid.repeated_queries",
        "repeated_judgements": "valid.repeated_judgements",
        "scored_not_listed": "valid.scored_not_listed",
        "listed_with_zero_score": "valid.listed_with_zero_score",
        "ids_not_strings": "valid.ids_not_strings",
        "duplicate_doc_ids": "valid.duplicate_doc_ids",
        "duplicate_query_ids": "valid.duplicate_query_ids",
        "whitespace_in_ids": "valid.whitespace_in_ids", "no_documents": "valid.no_documents",
        "no_queries": "valid.no_queries", "empty_documents": "valid.empty_documents",
        "empty_queries": "valid.empty_queries", "grades_not_numbers": "valid.grades_not_numbers",
        "negative_grades": "valid.negative_grades",
        "fractional_grades": "valid.fractional_grades",
        "qrels_unknown_docs": "valid.qrels_unknown_docs",
        "qrels_unknown_queries": "valid.qrels_unknown_queries",
        "no_evaluated_queries": "valid.no_evaluated_queries", "no_relevant": "valid.no_relevant",
        "not_evaluated": "valid.not_evaluated"}


@dataclass
class Issue:
    """One finding: ``count`` items are affected; ``examples`` shows a few of them."""

    code: str
    level: str  # "error" | "warning" | "info"
    message: str
    count: int = 0
    examples: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if not self.examples:
            return self.message
        more = ", ..." if self.count > len(self.examples) else ""
        return f"{self.message} (e.g. {', '.join(self.examples)}{more})"

    def said(self, lang: str) -> str:
        """The finding in ``lang`` (the catalog's ``valid.<code>``); English, or a code the
        catalog does not have, as :meth:`__str__` says it."""
        key = FINDING_KEYS.get(self.code)
        if normalize_lang(lang) == "en" or key is None:
            return str(self)
        said = t(key, lang, count=f"{self.count:,}")
        if not self.examples:
            return said
        more = ", …" if self.count > len(self.examples) else ""
        return t("valid.with_examples", lang, said=said, examples=", ".join(self.examples),
                 more=more)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "level": self.level, "message": self.message,
                "count": self.count, "examples": list(self.examples)}


@dataclass
class ValidationReport:
    errors: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    info: list[Issue] = field(default_factory=list)
    sizes: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No errors: the dataset can be evaluated (warnings may still matter)."""
        return not self.errors

    def issues(self) -> list[Issue]:
        return [*self.errors, *self.warnings, *self.info]

    def get(self, code: str) -> Issue | None:
        return next((i for i in self.issues() if i.code == code), None)

    def add(self, issue: Issue) -> None:
        {"error": self.errors, "warning": self.warnings, "info": self.info}[issue.level].append(
            issue)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "errors": [i.to_dict() for i in self.errors],
                "warnings": [i.to_dict() for i in self.warnings],
                "info": [i.to_dict() for i in self.info], "sizes": dict(self.sizes)}

    def lines(self) -> list[str]:
        """The report as lines for a terminal."""
        s = self.sizes
        out = [f"{s.get('documents', 0):,} documents, {s.get('queries', 0):,} queries "
               f"({s.get('queries_with_qrels', 0):,} with qrels), "
               f"{s.get('judgements', 0):,} judgements"]
        tokens = s.get("tokens")
        if tokens:
            out.append(f"tokens: {tokens['documents']:,} in documents, {tokens['queries']:,} "
                       f"in evaluated queries ({tokens['method']})")
        for label, items in (("error", self.errors), ("warning", self.warnings),
                             ("note", self.info)):
            out.extend(f"{label}: {i}" for i in items)
        return out


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _length_stats(lengths: list[int]) -> dict[str, float]:
    if not lengths:
        return {"min": 0, "mean": 0.0, "median": 0.0, "max": 0}
    ordered = sorted(lengths)
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return {"min": ordered[0], "mean": round(sum(ordered) / n, 1), "median": median,
            "max": ordered[-1]}


def _duplicates(ids: list[Any]) -> tuple[int, list[str]]:
    try:
        if len(set(ids)) == len(ids):
            return 0, []  # the usual case, in one C pass
    except TypeError:
        pass  # an unhashable id (a Dataset built in code): the loop below says which
    seen: set[Any] = set()
    reported: list[str] = []
    count = 0
    for i in ids:
        if i in seen:
            count += 1
            if len(reported) < EXAMPLES and repr(i) not in reported:
                reported.append(repr(i))
        else:
            seen.add(i)
    return count, reported


#: texts (documents and queries together) counted exactly with cl100k; a bigger dataset's
#: counts are the estimate (within ~10%, and the report says so): cl100k takes ~0.1-0.2 ms a
#: text, which held a 200,000-document upload for 20-60 s before its report
EXACT_TOKENS_UP_TO = 20_000


def _token_sizes(dataset: Dataset, evaluated_texts: list[str]) -> dict[str, Any] | None:
    """Token counts from ragdash.cost (the cost helper owns counting); None if it cannot."""
    big = len(dataset.documents) + len(evaluated_texts) > EXACT_TOKENS_UP_TO
    method = "estimate" if big else "auto"
    try:
        docs = count_tokens(dataset.doc_texts(), method=method)
        queries = count_tokens(evaluated_texts, method=method)
    except RagdashError:
        return None
    return {"documents": int(docs.tokens), "queries": int(queries.tokens),
            "total": int(docs.tokens) + int(queries.tokens), "method": str(docs.method)}


def _is_number(g: Any) -> bool:
    return isinstance(g, (int, float)) and not isinstance(g, bool) and math.isfinite(g)


def _positive(g: Any) -> bool:
    """A finite number that the metrics count as relevant (at the default level)."""
    return _is_number(g) and is_relevant(g)


def _judgements(dataset: Dataset) -> Iterator[tuple[str, str, Any]]:
    return ((qid, did, g) for qid, row in dataset.qrels.items() for did, g in row.items())


# -- the checks: each a small function of the dataset, yielding its findings --------------------
def check_id_types(dataset: Dataset) -> Iterator[Issue]:
    docs, queries, qrels = dataset.documents, dataset.queries, dataset.qrels
    bad_ids = [repr(x) for x in [*(d.id for d in docs), *(q.id for q in queries)]
               if not isinstance(x, str)]
    bad_ids += [repr(q) for q in qrels if not isinstance(q, str)]
    bad_ids += [repr(d) for row in qrels.values() for d in row if not isinstance(d, str)]
    if bad_ids:
        yield Issue("ids_not_strings", "error",
                    f"{_plural(len(bad_ids), 'id is', 'ids are')} not strings; every id "
                    "must be a string (1 and \"1\" would not match)", len(bad_ids),
                    bad_ids[:EXAMPLES])


def check_duplicate_ids(dataset: Dataset) -> Iterator[Issue]:
    for kind, ids, code in (("document", [d.id for d in dataset.documents], "duplicate_doc_ids"),
                            ("query", [q.id for q in dataset.queries], "duplicate_query_ids")):
        count, examples = _duplicates(ids)
        if count:
            plural = "documents" if kind == "document" else "queries"
            yield Issue(code, "error",
                        f"{_plural(count, kind + ' reuses', plural + ' reuse')} an id that "
                        f"another {kind} already has; ids must be unique or results "
                        "cannot be told apart", count, examples)


_SPACE = re.compile(r"\s")


def check_whitespace_in_ids(dataset: Dataset) -> Iterator[Issue]:
    search = _SPACE.search  # str.isspace's characters (one C scan per id)
    spaced = [repr(x) for x in [*(d.id for d in dataset.documents),
                                *(q.id for q in dataset.queries)]
              if isinstance(x, str) and search(x)]
    if spaced:
        yield Issue("whitespace_in_ids", "warning",
                    f"{_plural(len(spaced), 'id contains', 'ids contain')} spaces or tabs; "
                    "TREC run and qrels files cannot hold such ids", len(spaced),
                    spaced[:EXAMPLES])


def check_parts_present(dataset: Dataset) -> Iterator[Issue]:
    if not dataset.documents:
        yield Issue("no_documents", "error", "the corpus has no documents")
    if not dataset.queries:
        yield Issue("no_queries", "error", "there are no queries")


def check_empty_texts(dataset: Dataset) -> Iterator[Issue]:
    empty_docs = [d.id for d in dataset.documents if not d.text.strip() and not d.title.strip()]
    if empty_docs:
        yield Issue("empty_documents", "warning",
                    f"{_plural(len(empty_docs), 'document has', 'documents have')} no "
                    "text: a query cannot match an empty document, and some embedding APIs "
                    "reject empty input", len(empty_docs),
                    [repr(i) for i in empty_docs[:EXAMPLES]])
    empty_queries = [q.id for q in dataset.queries if not q.text.strip()]
    if empty_queries:
        yield Issue("empty_queries", "warning",
                    f"{_plural(len(empty_queries), 'query has', 'queries have')} empty "
                    "text and cannot retrieve anything", len(empty_queries),
                    [repr(i) for i in empty_queries[:EXAMPLES]])


def check_grades(dataset: Dataset) -> Iterator[Issue]:
    bad_grades, negative, fractional = [], [], []
    for qid, did, g in _judgements(dataset):
        if not _is_number(g):
            bad_grades.append(f"{qid} {did} = {g!r}")
            continue
        if g < 0:
            negative.append(f"{qid} {did} = {g:g}")
        if g != int(g) and len(fractional) < EXAMPLES:
            fractional.append(f"{g:g}")
    if bad_grades:
        yield Issue("grades_not_numbers", "error",
                    f"{_plural(len(bad_grades), 'grade is', 'grades are')} not finite "
                    "numbers", len(bad_grades), bad_grades[:EXAMPLES])
    if negative:
        yield Issue("negative_grades", "warning",
                    f"{_plural(len(negative), 'judgement has', 'judgements have')} a "
                    "negative grade, counted as not relevant (gain 0) as in trec_eval",
                    len(negative), negative[:EXAMPLES])
    if fractional:
        yield Issue("fractional_grades", "info",
                    "grades are fractional: NDCG uses them as gains; Recall, Precision, "
                    "Hit rate, MRR and MAP count a grade above 0 as relevant",
                    len(fractional), sorted(set(fractional)))


def check_unknown_docs(dataset: Dataset) -> Iterator[Issue]:
    doc_ids = dataset.doc_index  # a dict: membership without copying it into a set
    judged = count = 0
    examples: list[str] = []
    for qid, did, g in _judgements(dataset):
        judged += 1
        if _is_number(g) and did not in doc_ids:
            count += 1
            if len(examples) < EXAMPLES:
                examples.append(f"{qid} → {did}")
    if count:
        every = count == judged
        yield Issue("qrels_unknown_docs", "error" if every else "warning",
                    ("none of the judged documents is in the corpus: the ids do not match "
                     "(check the corpus id column)" if every else
                     _plural(count, "judgement names a document", "judgements name documents")
                     + " not in the corpus; such documents can never be retrieved, which "
                     "caps Recall"), count, examples)


def check_unknown_queries(dataset: Dataset) -> Iterator[Issue]:
    query_ids = set(dataset.query_index)
    unknown = [q for q in dataset.qrels if q not in query_ids]
    if unknown:
        every = len(unknown) == len(dataset.qrels)
        yield Issue("qrels_unknown_queries", "error" if every else "warning",
                    ("none of the queries in the qrels is in the queries file: the ids do "
                     "not match (check the query id columns)" if every else
                     _plural(len(unknown), "query in the qrels is", "queries in the qrels are")
                     + " not in the queries file; the judgements for them are ignored"),
                    len(unknown), [repr(q) for q in unknown[:EXAMPLES]])


def check_evaluated_queries(dataset: Dataset) -> Iterator[Issue]:
    queries, qrels = dataset.queries, dataset.qrels
    evaluated = dataset.evaluated_queries()
    if queries and not evaluated:
        yield Issue("no_evaluated_queries", "error",
                    "no query has qrels, so there is nothing to evaluate")
    no_relevant = [q.id for q in evaluated
                   if not any(_positive(g) for g in qrels.get(q.id, {}).values())]
    if no_relevant:
        yield Issue("no_relevant", "warning",
                    _plural(len(no_relevant), "evaluated query has", "evaluated queries have")
                    + " no relevant document: they score 0 on every metric and count in the "
                    "mean (as in trec_eval); the results can leave them out", len(no_relevant),
                    [repr(i) for i in no_relevant[:EXAMPLES]])
    not_evaluated = len(queries) - len(evaluated)
    if evaluated and not_evaluated:
        yield Issue("not_evaluated", "info",
                    f"{_plural(not_evaluated, 'query has', 'queries have')} no qrels and "
                    "will not be evaluated (only queries with qrels are)", not_evaluated,
                    [repr(q.id) for q in queries if q.id not in qrels][:EXAMPLES])


def check_loader_notes(dataset: Dataset) -> Iterator[Issue]:
    """What the loader reported (repeated lines dropped, ...), as warnings."""
    for note in dataset.notes:
        if getattr(note, "level", None) == "warning":
            yield Issue(getattr(note, "code", "load"), "warning", str(note),
                        int(getattr(note, "count", 0) or 0),
                        list(getattr(note, "examples", []) or []))


#: the checks, in the order their findings appear in the report (within each level)
CHECKS: tuple[Callable[[Dataset], Iterable[Issue]], ...] = (
    check_id_types, check_duplicate_ids, check_whitespace_in_ids, check_parts_present,
    check_empty_texts, check_grades, check_unknown_docs, check_unknown_queries,
    check_evaluated_queries, check_loader_notes,
)


def dataset_sizes(dataset: Dataset, *, tokens: bool = True) -> dict[str, Any]:
    """Counts and text lengths for the report (and token counts unless ``tokens=False``)."""
    docs, queries, qrels = dataset.documents, dataset.queries, dataset.qrels
    evaluated = dataset.evaluated_queries()
    grades = [g for _, _, g in _judgements(dataset)]
    rel_counts = [sum(1 for g in qrels.get(q.id, {}).values() if _positive(g))
                  for q in evaluated]
    return {
        "documents": len(docs),
        "queries": len(queries),
        "queries_with_qrels": len(evaluated),
        "judgements": len(grades),
        "relevant_judgements": sum(1 for g in grades if _positive(g)),
        "mean_relevant_per_query": round(sum(rel_counts) / len(rel_counts), 3)
        if rel_counts else 0.0,
        "document_chars": _length_stats([len(d.embed_text) for d in docs]),
        "query_chars": _length_stats([len(q.text) for q in queries]),
        "tokens": _token_sizes(dataset, [q.text for q in evaluated]) if tokens else None,
    }


def validate(dataset: Dataset, *, tokens: bool = True) -> ValidationReport:
    """Check ``dataset`` (see the module docstring): the findings of every check in
    :data:`CHECKS`, and the sizes. ``tokens=False`` skips token counting."""
    report = ValidationReport()
    for check in CHECKS:
        for issue in check(dataset):
            report.add(issue)
    report.sizes = dataset_sizes(dataset, tokens=tokens)
    return report
