"""Filling the gaps of the human qrels with other judgment sets — never overriding them.

``fill(human, *sets)`` returns the qrels an evaluation reads: every human label as it is, and
from the added sets (in the order given; the first set to label a pair wins) only the pairs
the human qrels do not judge. A label for a query or document the dataset does not have is
left out (a relevant label for an unknown document would still lower recall and nDCG by
raising the number of relevant documents) and counted, so that the caller can say so.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .sets import HUMAN, JudgmentSet, Label, as_set


@dataclass
class SetUse:
    """What :func:`fill` did with one added set."""

    name: str
    labels: int = 0  # labels in the set
    used: int = 0  # filled a pair the human qrels leave unjudged
    refused: int = 0  # the human qrels judge the pair: the human label stays
    disagree: int = 0  # of the refused, how many gave another grade than the human
    earlier: int = 0  # an earlier added set already filled the pair
    unknown_queries: int = 0  # left out: the dataset has no such query
    unknown_docs: int = 0  # left out: the dataset has no such document
    examples: list[str] = field(default_factory=list)  # a few unknown ids, for the message


@dataclass
class Filled:
    """The qrels to evaluate with, and how they were made.

    ``qrels``: human labels plus the filled gaps; ``labels``: the names of the sets behind
    them (``("qrels",)``: human only), what every number says it shows; ``sets``: one
    :class:`SetUse` per added set; ``filled``: ``{(query id, doc id): Label}`` of every
    filled pair (human pairs are not listed: their source is ``qrels``).
    """

    qrels: dict[str, dict[str, float]]
    labels: tuple[str, ...]
    sets: list[SetUse]
    filled: dict[tuple[str, str], Label]

    @property
    def used(self) -> int:
        return sum(s.used for s in self.sets)

    @property
    def refused(self) -> int:
        return sum(s.refused for s in self.sets)

    @property
    def unknown(self) -> int:
        return sum(s.unknown_queries + s.unknown_docs for s in self.sets)

    @property
    def human_only(self) -> bool:
        return not self.sets

    def to_set(self, name: str = "filled", *, human_date: str = "") -> JudgmentSet:
        """Every label behind :attr:`qrels` with its source (human ones ``qrels``, dated
        ``human_date``): what an export writes."""
        out = JudgmentSet(name)
        for q, judged in self.qrels.items():
            for d, g in judged.items():
                label = self.filled.get((q, d))
                if label is None:
                    out.add(q, d, g, HUMAN, human_date)
                else:
                    out.add(q, d, g, label.source, label.date)
        return out

    def summary(self) -> dict:
        """JSON-ready counts: ``{"labels": [...], "filled": n, "refused": n, "unknown": n,
        "sets": [{"name", "labels", "used", "refused", "disagree", "earlier",
        "unknown_queries", "unknown_docs"}, ...]}``."""
        return {"labels": list(self.labels), "filled": self.used, "refused": self.refused,
                "unknown": self.unknown,
                "sets": [{k: v for k, v in vars(s).items() if k != "examples"}
                         for s in self.sets]}


def fill(human: JudgmentSet | Mapping, *sets: JudgmentSet | Mapping,
         queries: Collection[str] | None = None,
         docs: Collection[str] | None = None) -> Filled:
    """The human labels, with the pairs they leave unjudged filled from ``sets``.

    ``human``: the dataset's qrels (or a :class:`JudgmentSet` of them); ``sets``: added
    judgment sets (or plain qrels), earliest first. A human label is never overridden.
    ``queries`` / ``docs``: the ids the dataset has; labels naming others are left out and
    counted (``None``: not checked).
    """
    qrels: dict[str, dict[str, float]] = {
        str(q): {str(d): float(g) for d, g in judged.items()}
        for q, judged in (human.qrels() if isinstance(human, JudgmentSet) else human).items()}
    human_pairs = {(q, d) for q, judged in qrels.items() for d in judged}
    known_q = None if queries is None else set(map(str, queries))
    known_d = None if docs is None else set(map(str, docs))
    uses: list[SetUse] = []
    filled: dict[tuple[str, str], Label] = {}
    for added in sets:
        jset = as_set(added, source="file:qrels")
        use = SetUse(jset.name, labels=len(jset))
        for label in jset:
            pair = (label.query_id, label.doc_id)
            if known_q is not None and label.query_id not in known_q:
                use.unknown_queries += 1
                _example(use, label.query_id)
            elif known_d is not None and label.doc_id not in known_d:
                use.unknown_docs += 1
                _example(use, label.doc_id)
            elif pair in human_pairs:
                use.refused += 1
                use.disagree += qrels[label.query_id][label.doc_id] != label.grade
            elif pair in filled:
                use.earlier += 1
            else:
                qrels.setdefault(label.query_id, {})[label.doc_id] = label.grade
                filled[pair] = label
                use.used += 1
        uses.append(use)
    labels = (HUMAN, *(u.name for u in uses))
    return Filled(qrels, labels, uses, filled)


def _example(use: SetUse, some_id: str) -> None:
    if len(use.examples) < 3 and some_id not in use.examples:
        use.examples.append(some_id)
