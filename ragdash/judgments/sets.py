"""JudgmentSet: labels of (query, document) pairs, each with where it came from and when.

A dataset's qrels are the human labels. Other judgment sets — an LLM judge's, a person's on
the Judge page, an imported file — are kept beside them and only fill the pairs the human
qrels leave unjudged (:func:`ragdash.judgments.fill`).

A label's ``source`` says who gave it, in one of these forms:

- ``qrels`` — the dataset's own (human) qrels;
- ``file:<name>`` — a qrels file imported without a sources sidecar;
- ``llm:<model>@<prompt version>`` — an LLM judge;
- ``person:<name>`` — a person on the Judge page;
- ``generated:<model>@<prompt version>`` — the passage a generated query was written from
  (``python -m ragdash generate``).

A set holds at most one label per pair (adding a pair again replaces its label): two raters
are two sets, so neither overwrites the other.

A set named ``unsure:<rater>`` holds the pairs a person marked "can't tell" on the Judge page:
they are not grades, so such a set is never scored nor offered as a judgment set
(:func:`is_unsure_set`).
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

#: the source of the dataset's own (human) qrels
HUMAN = "qrels"

_PREFIXES = ("file:", "llm:", "person:", "generated:")
#: the name prefix of a rater's "can't tell" marks (not a judgment set)
UNSURE_PREFIX = "unsure:"


def is_unsure_set(name: str) -> bool:
    """Whether the stored set ``name`` holds "can't tell" marks rather than grades."""
    return str(name).startswith(UNSURE_PREFIX)


def today() -> str:
    """The date a label is given, ``YYYY-MM-DD`` (UTC)."""
    return dt.datetime.now(dt.UTC).date().isoformat()


def check_source(source: str) -> str:
    """``source`` if it has one of the known forms (see the module docstring), else a
    :class:`DatasetError` saying which forms there are."""
    text = str(source).strip()
    if text == HUMAN or (text.startswith(_PREFIXES) and len(text.split(":", 1)[1].strip()) > 0
                         and "\t" not in text and "\n" not in text):
        return text
    from ..i18n import dataset_error

    raise dataset_error("judgments.bad_source", source=text[:80])


@dataclass(frozen=True, slots=True)
class Label:
    """One judgement: ``grade`` of document ``doc_id`` for query ``query_id``, given by
    ``source`` on ``date`` (``YYYY-MM-DD`` or a full ISO time)."""

    query_id: str
    doc_id: str
    grade: float
    source: str
    date: str


class JudgmentSet:
    """Named labels, one per (query id, doc id) pair, in the order they were added.

    >>> s = JudgmentSet("llm:gpt-4o-mini@umbrela-1")
    >>> s.add("q1", "d7", 2, "llm:gpt-4o-mini@umbrela-1")
    >>> s.qrels()
    {'q1': {'d7': 2.0}}
    """

    __slots__ = ("_labels", "name")

    def __init__(self, name: str, labels: Iterable[Label] = ()) -> None:
        self.name = str(name).strip() or HUMAN
        self._labels: dict[tuple[str, str], Label] = {}
        for label in labels:
            self._labels[(label.query_id, label.doc_id)] = label

    @classmethod
    def from_qrels(cls, qrels: Mapping, *, source: str = HUMAN, date: str | None = None,
                   name: str | None = None) -> JudgmentSet:
        """Every judgement of ``qrels`` (``{query id: {doc id: grade}}``) as a label of
        ``source``, dated ``date`` (default today)."""
        source = check_source(source)
        date = today() if date is None else str(date)
        labels = (Label(str(q), str(d), float(g), source, date)
                  for q, docs in qrels.items() for d, g in docs.items())
        return cls(name or source, labels)

    # -- changing ---------------------------------------------------------------------------
    def add(self, query_id: str, doc_id: str, grade: float, source: str,
            date: str | None = None) -> Label:
        """Label the pair (replacing this set's earlier label of it); returns the label."""
        value = float(grade)
        if not math.isfinite(value):
            from ..i18n import dataset_error

            raise dataset_error("judgments.bad_grade", grade=grade, query=query_id,
                                doc=doc_id)
        label = Label(str(query_id), str(doc_id), value, check_source(source),
                      today() if date is None else str(date))
        self._labels[(label.query_id, label.doc_id)] = label
        return label

    def remove(self, query_id: str, doc_id: str) -> bool:
        """Forget the pair's label; whether there was one."""
        return self._labels.pop((str(query_id), str(doc_id)), None) is not None

    # -- reading ----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._labels)

    def __iter__(self) -> Iterator[Label]:
        return iter(self._labels.values())

    def __contains__(self, pair: object) -> bool:
        return pair in self._labels

    def __repr__(self) -> str:
        return f"JudgmentSet({self.name!r}, {len(self)} labels, sources {self.sources()})"

    def get(self, query_id: str, doc_id: str) -> Label | None:
        return self._labels.get((str(query_id), str(doc_id)))

    def sources(self) -> dict[str, int]:
        """How many labels each source gave, most first."""
        return dict(Counter(label.source for label in self).most_common())

    def qrels(self) -> dict[str, dict[str, float]]:
        """The labels as qrels, ``{query id: {doc id: grade}}`` (what metrics read)."""
        out: dict[str, dict[str, float]] = {}
        for label in self:
            out.setdefault(label.query_id, {})[label.doc_id] = label.grade
        return out

    def to_json_obj(self) -> dict:
        """``{"name": ..., "labels": [[query id, doc id, grade, source, date], ...]}``."""
        return {"name": self.name,
                "labels": [[lb.query_id, lb.doc_id, lb.grade, lb.source, lb.date]
                           for lb in self]}

    @classmethod
    def from_json_obj(cls, obj: Mapping) -> JudgmentSet:
        try:
            labels = [Label(str(q), str(d), float(g), check_source(s), str(day))
                      for q, d, g, s, day in obj["labels"]]
            return cls(str(obj.get("name", "")), labels)
        except (KeyError, TypeError, ValueError) as exc:
            from ..i18n import dataset_error

            raise dataset_error("judgments.bad_json", kind=type(exc).__name__) from exc


def as_set(labels: JudgmentSet | Mapping, *, source: str = HUMAN) -> JudgmentSet:
    """``labels`` as a :class:`JudgmentSet`: a set as it is, qrels as labels of ``source``."""
    if isinstance(labels, JudgmentSet):
        return labels
    if not isinstance(labels, Mapping):
        raise TypeError(f"judgments must be a JudgmentSet or qrels "
                        f"({{query id: {{doc id: grade}}}}), not {type(labels).__name__}")
    return JudgmentSet.from_qrels(labels, source=source)
