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
from ..i18n import dataset_error
from . import _json
from ._source import LEGACY_ENCODINGS, Source, decode_all, encoding_label
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
    if encoding in LEGACY_ENCODINGS:
        log.note(i18n.text("load.read_as", file=source.name,
                           encoding=encoding_label(encoding)), code="encoding")
    if not text.strip():
        raise dataset_error("article.empty", file=source.name)
    try:
        return _json.loads(text, file=source.name, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise dataset_error("article.invalid_json", file=source.name, line=exc.lineno,
                            reason=exc.msg, column=exc.colno) from exc
    except _DuplicateKey as exc:
        raise dataset_error("article.duplicate_key", file=source.name, name=exc.key) from exc
    except RecursionError as exc:
        raise dataset_error("article.deep", file=source.name) from exc


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
        raise dataset_error("article.not_position", file=file, record=record, shown=shown)
    if not 0 <= pos < n_docs:
        has = i18n.text("article.has", n=n_docs, last=n_docs - 1)
        raise dataset_error("article.position_range", file=file, record=record, pos=pos,
                            has=has)
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
        raise dataset_error("article.top_level", file=file, kind=json_kind(obj))
    missing = [k for k in ("corpus", "queries") if k not in obj]
    if missing:
        raise dataset_error("article.missing_key", file=file,
                            keys=" and ".join(repr(m) for m in missing),
                            found=", ".join(map(repr, list(obj)[:8])) or i18n.text("load.none"))
    corpus, queries = obj["corpus"], obj["queries"]
    if not isinstance(corpus, list):
        raise dataset_error("article.corpus_not_list", file=file, record="corpus",
                            kind=json_kind(corpus))
    if not isinstance(queries, list):
        raise dataset_error("article.queries_not_list", file=file, record="queries",
                            kind=json_kind(queries))
    if not corpus:
        raise dataset_error("article.corpus_empty", file=file, record="corpus")
    if not queries:
        raise dataset_error("article.queries_empty", file=file, record="queries")
    return corpus, queries


def _documents(corpus: list, file: str) -> list[Document]:
    documents = []
    for i, text in enumerate(corpus):
        if not isinstance(text, str):
            raise dataset_error("article.corpus_item", file=file, record=f"corpus[{i}]", i=i,
                                kind=json_kind(text))
        documents.append(Document(str(i), text))
    return documents


def _query_item(item: Any, qi: int, file: str) -> tuple[Query, list, dict]:
    """Query ``q<qi>``, its ``relevant_docs`` (a list) and ``relevance_scores`` (a dict)."""
    rec = f"queries[{qi}]"
    if not isinstance(item, dict):
        raise dataset_error("article.query_not_object", file=file, record=rec, rec=rec,
                            kind=json_kind(item))
    if "query" not in item:
        raise dataset_error("article.query_no_text", file=file, record=rec, rec=rec,
                            keys=", ".join(map(repr, item)) or i18n.text("load.none"))
    text = text_value(item["query"], what="query text", file=file, record=f"{rec}.query")
    listed = item.get("relevant_docs", [])
    if listed is None:
        listed = []
    if not isinstance(listed, list):
        raise dataset_error("article.relevant_not_list", file=file,
                            record=f"{rec}.relevant_docs", rec=rec,
                            kind=json_kind(listed))
    scores = item.get("relevance_scores", {})
    if scores is None:
        scores = {}
    if not isinstance(scores, dict):
        raise dataset_error("article.scores_not_object", file=file,
                            record=f"{rec}.relevance_scores", rec=rec,
                            kind=json_kind(scores))
    return Query(f"q{qi}", text), listed, scores


def _graded(scores: dict, n_docs: int, file: str, rec: str) -> dict[str, float]:
    """``relevance_scores`` as doc id -> grade (one key written twice must agree)."""
    graded: dict[str, float] = {}
    for key, value in scores.items():
        krec = f"{rec}.relevance_scores[{key!r}]"
        did = str(_position(key, n_docs, file=file, record=krec))
        grade = parse_grade(value, file=file, record=krec)
        if did in graded and graded[did] != grade:
            raise dataset_error("article.two_scores", file=file, record=krec, did=did)
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
                 i18n.text("load.scored_not_listed", file=file, n=found.extra_count),
                 count=found.extra_count, examples=found.extra_scored)
    if found.zero_listed:
        log.warn("listed_with_zero_score", i18n.text("load.listed_with_zero_score", file=file),
                 count=len(found.zero_listed), examples=found.zero_listed)


def _stem(source: Source) -> str:
    return source.stem or "dataset"



def to_article_json(dataset: Dataset) -> dict:
    """The article's format for a dataset whose document ids are positions "0".."N-1"."""
    ids = dataset.doc_ids
    if ids != [str(i) for i in range(len(ids))]:
        raise dataset_error("article.ids_not_positions", file=dataset.source or dataset.name)
    queries = []
    for q in dataset.queries:
        judged = dataset.qrels.get(q.id, {})
        queries.append({"query": q.text,
                        "relevant_docs": [int(d) for d, g in judged.items() if g > 0],
                        "relevance_scores": {d: g for d, g in judged.items()}})
    return {"corpus": [d.text for d in dataset.documents], "queries": queries}
