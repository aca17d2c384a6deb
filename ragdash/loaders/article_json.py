"""The original article's JSON format.

::

    {"corpus": ["text of document 0", "text of document 1", ...],
     "queries": [{"query": "...", "relevant_docs": [1, 6],
                  "relevance_scores": {"1": 0.9, "6": 1.0}}, ...]}

Mapping onto a :class:`~ragdash.dataset.Dataset`:

- Document ids are list positions as strings: "0", "1", ... Query ids are "q0", "q1", ...
  (positions in ``queries``).
- ``relevance_scores`` keys may be ints or strings (after a JSON round trip they are always
  strings, which is why the article's NDCG came out 0): every key is parsed as a position and
  stored under the same string id as the document, so the grades always line up.
- A document in ``relevant_docs`` without a score gets grade 1. A document with a score but
  not in ``relevant_docs`` is an explicit judgement and keeps its score (a score > 0 makes it
  relevant); the notes count such documents. A missing ``relevant_docs`` means "none listed".
- Every query is evaluated, as the article does: each gets a qrels entry, an empty one when it
  lists no document, so it scores 0 on every metric and counts in the mean.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .. import i18n
from ..dataset import Dataset, Document, Query
from ..errors import DatasetError
from . import _json
from ._source import ENCODING_LABELS, Source, decode_all
from ._values import EXAMPLES, QrelsBuilder, json_kind, parse_grade, text_value
from .notes import LoadLog

FORMAT_FIX = ('the article format is {"corpus": ["doc text", ...], "queries": [{"query": '
              '"...", "relevant_docs": [0, 2], "relevance_scores": {"0": 1.0}}]}')


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out and out[key] != value:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def parse_json_document(source: Source, log: LoadLog) -> Any:
    """Decode and parse a whole JSON file; errors name the line and column."""
    text, encoding = decode_all(source)
    if encoding in ("cp932", "utf-16"):
        log.note(i18n.text("load.read_as", file=source.name,
                           encoding=ENCODING_LABELS[encoding]), code="encoding")
    if not text.strip():
        raise DatasetError("the file is empty", file=source.name, fix=FORMAT_FIX)
    try:
        return _json.loads(text, file=source.name, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"this is not valid JSON ({exc.msg}, column {exc.colno})",
                           file=source.name, line=exc.lineno,
                           fix="fix the JSON syntax there (a missing comma, quote or bracket, "
                               "or a file cut short)") from exc
    except _DuplicateKey as exc:
        raise DatasetError(f"a JSON object has the key {exc.key!r} twice with different "
                           "values", file=source.name,
                           fix="keep one value per key") from exc
    except RecursionError as exc:
        raise DatasetError("the JSON is nested too deeply", file=source.name,
                           fix=FORMAT_FIX) from exc


def looks_like_article(obj: Any) -> bool:
    return isinstance(obj, dict) and "corpus" in obj and "queries" in obj


def _position(value: Any, n_docs: int, *, file: str, record: str) -> int:
    """A document position from an int, an integral float or a digit string."""
    pos: int | None = None
    if isinstance(value, bool):
        pos = None
    elif isinstance(value, int):
        pos = value
    elif isinstance(value, float) and value.is_integer():
        pos = int(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())  # "3" and, from float keys, "3.0"
        except ValueError:
            number = float("nan")
        if number.is_integer():
            pos = int(number)
    if pos is None:
        shown = repr(value) if isinstance(value, (str, int, float)) else type(value).__name__
        raise DatasetError(f"{shown} is not a document position (an integer index into "
                           "corpus)", file=file, record=record,
                           fix="refer to documents by their position in corpus (0 for the first)")
    if not 0 <= pos < n_docs:
        has = "1 document (position 0)" if n_docs == 1 else \
            f"{n_docs} documents (positions 0 to {n_docs - 1})"
        raise DatasetError(f"document position {pos} is out of range: corpus has {has}",
                           file=file, record=record,
                           fix="use a position inside corpus, or add the missing documents")
    return pos


def load_article_json(source: Source, *, obj: Any = None, log: LoadLog | None = None,
                      name: str | None = None) -> Dataset:
    """Load the article's JSON (see the module docstring). ``obj`` skips re-parsing."""
    log = log if log is not None else LoadLog()
    file = source.name
    corpus, queries = _top_level(parse_json_document(source, log) if obj is None else obj, file)
    documents = _documents(corpus, file)
    n_docs = len(documents)
    query_list: list[Query] = []
    qrels = QrelsBuilder(file, log)
    found = _Findings()
    for qi, item in enumerate(queries):
        rec = f"queries[{qi}]"
        query, listed, scores = _query_item(item, qi, file)
        query_list.append(query)
        graded = _graded(scores, n_docs, file, rec)
        listed_ids = _listed(listed, n_docs, file, rec)
        _add_judgements(qrels, query.id, listed_ids, graded, found, rec)
    _log_notes(log, file, n_docs, len(query_list), found)
    return Dataset(documents, query_list, qrels.finish(), name=name or _stem(source),
                   source=source.name, notes=log.notes)


def _top_level(obj: Any, file: str) -> tuple[list, list]:
    """``corpus`` and ``queries`` of the top-level object, each a non-empty list."""
    if not isinstance(obj, dict):
        raise DatasetError(f"the top level is {json_kind(obj)}, not an object with corpus and "
                           "queries", file=file, fix=FORMAT_FIX)
    missing = [k for k in ("corpus", "queries") if k not in obj]
    if missing:
        raise DatasetError(f"the key {' and '.join(repr(m) for m in missing)} is missing "
                           f"(keys found: {', '.join(map(repr, list(obj)[:8])) or 'none'})",
                           file=file, fix=FORMAT_FIX)
    corpus, queries = obj["corpus"], obj["queries"]
    if not isinstance(corpus, list):
        raise DatasetError(f"corpus is {json_kind(corpus)}, not a list of texts", file=file,
                           record="corpus", fix=FORMAT_FIX)
    if not isinstance(queries, list):
        raise DatasetError(f"queries is {json_kind(queries)}, not a list of objects", file=file,
                           record="queries", fix=FORMAT_FIX)
    if not corpus:
        raise DatasetError("corpus is an empty list", file=file, record="corpus",
                           fix="add the documents' texts to corpus")
    if not queries:
        raise DatasetError("queries is an empty list", file=file, record="queries",
                           fix="add at least one query with its relevant_docs")
    return corpus, queries


def _documents(corpus: list, file: str) -> list[Document]:
    documents = []
    for i, text in enumerate(corpus):
        if not isinstance(text, str):
            raise DatasetError(f"corpus[{i}] is {json_kind(text)}, not a string", file=file,
                               record=f"corpus[{i}]", fix="every corpus entry is a text")
        documents.append(Document(str(i), text))
    return documents


def _query_item(item: Any, qi: int, file: str) -> tuple[Query, list, dict]:
    """Query ``q<qi>``, its ``relevant_docs`` (a list) and ``relevance_scores`` (a dict)."""
    rec = f"queries[{qi}]"
    if not isinstance(item, dict):
        raise DatasetError(f"{rec} is {json_kind(item)}, not an object", file=file, record=rec,
                           fix=FORMAT_FIX)
    if "query" not in item:
        raise DatasetError(f"{rec} has no \"query\" text (keys: "
                           f"{', '.join(map(repr, item)) or 'none'})", file=file,
                           record=rec, fix='give each query as {"query": "...", '
                                           '"relevant_docs": [...]}')
    text = text_value(item["query"], what="query text", file=file, record=f"{rec}.query")
    listed = item.get("relevant_docs", [])
    if listed is None:
        listed = []
    if not isinstance(listed, list):
        raise DatasetError(f"{rec}.relevant_docs is {json_kind(listed)}, not a list",
                           file=file, record=f"{rec}.relevant_docs",
                           fix="write relevant_docs as a list of positions, e.g. [0, 3]")
    scores = item.get("relevance_scores", {})
    if scores is None:
        scores = {}
    if not isinstance(scores, dict):
        raise DatasetError(f"{rec}.relevance_scores is {json_kind(scores)}, not an object",
                           file=file, record=f"{rec}.relevance_scores",
                           fix='write relevance_scores as {"position": grade}, e.g. '
                               '{"0": 1.0, "3": 0.8}')
    return Query(f"q{qi}", text), listed, scores


def _graded(scores: dict, n_docs: int, file: str, rec: str) -> dict[str, float]:
    """``relevance_scores`` as doc id -> grade (one key written twice must agree)."""
    graded: dict[str, float] = {}
    for key, value in scores.items():
        krec = f"{rec}.relevance_scores[{key!r}]"
        did = str(_position(key, n_docs, file=file, record=krec))
        grade = parse_grade(value, file=file, record=krec)
        if did in graded and graded[did] != grade:
            raise DatasetError(f"document {did} has two different scores", file=file,
                               record=krec, fix="give each document one score")
        graded[did] = grade
    return graded


def _listed(listed: list, n_docs: int, file: str, rec: str) -> list[str]:
    """``relevant_docs`` as doc ids, each once, in the order listed."""
    listed_ids: list[str] = []
    for j, value in enumerate(listed):
        did = str(_position(value, n_docs, file=file, record=f"{rec}.relevant_docs[{j}]"))
        if did not in listed_ids:
            listed_ids.append(did)
    return listed_ids


@dataclass
class _Findings:
    """What the notes report: scored documents not listed, listed ones scored ≤ 0."""

    extra_count: int = 0
    extra_scored: list[str] = field(default_factory=list)
    zero_listed: list[str] = field(default_factory=list)


def _add_judgements(qrels: QrelsBuilder, qid: str, listed_ids: list[str],
                    graded: dict[str, float], found: _Findings, rec: str) -> None:
    qrels.qrels.setdefault(qid, {})  # every query is evaluated, as the article does
    for did in listed_ids:
        grade = graded.get(did, 1.0)
        if grade <= 0 and len(found.zero_listed) < EXAMPLES:
            found.zero_listed.append(f"{qid}: doc {did} = {grade:g}")
        qrels.add(qid, did, grade, None, record=rec)
    for did, grade in graded.items():
        if did not in listed_ids:
            found.extra_count += 1
            if len(found.extra_scored) < EXAMPLES:
                found.extra_scored.append(f"{qid}: doc {did} = {grade:g}")
            qrels.add(qid, did, grade, None, record=rec)


def _log_notes(log: LoadLog, file: str, n_docs: int, n_queries: int, found: _Findings) -> None:
    log.note(i18n.text("load.article_format", file=file, last_doc=n_docs - 1,
                       last_query=n_queries - 1), code="article_format")
    if found.extra_count:
        log.warn("scored_not_listed",
                 f"{file}: {found.extra_count} documents have a relevance score but are not in "
                 "relevant_docs; they are kept as judged with that score (a score above 0 "
                 "makes them relevant)", count=found.extra_count, examples=found.extra_scored)
    if found.zero_listed:
        log.warn("listed_with_zero_score",
                 f"{file}: documents listed in relevant_docs with a score of 0 or less count "
                 "as not relevant", count=len(found.zero_listed), examples=found.zero_listed)


def _stem(source: Source) -> str:
    return source.stem or "dataset"



def to_article_json(dataset: Dataset) -> dict:
    """The article's format for a dataset whose document ids are positions "0".."N-1"."""
    ids = dataset.doc_ids
    if ids != [str(i) for i in range(len(ids))]:
        raise DatasetError("the article format needs document ids 0..N-1 in order",
                           file=dataset.source or dataset.name,
                           fix="export this dataset as BEIR instead")
    queries = []
    for q in dataset.queries:
        judged = dataset.qrels.get(q.id, {})
        queries.append({"query": q.text,
                        "relevant_docs": [int(d) for d, g in judged.items() if g > 0],
                        "relevance_scores": {d: g for d, g in judged.items()}})
    return {"corpus": [d.text for d in dataset.documents], "queries": queries}
