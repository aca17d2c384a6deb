"""One run, from start to finish: what was retrieved, how, what it cost and took.

Every producer makes a :class:`Run` (the evaluation pipeline, the command line, the app's
jobs, a TREC or JSON import, a fusion, a rerank, a sweep point, an external engine) and every
consumer reads one (the run store, the report, the charts, compare, the frontier). Inputs of
other shapes are converted once, at the edge (:mod:`ragdash.runs.exchange`), never guessed
at inside.

    run = run_evaluation(dataset, make_retriever("bm25"), kmax=100)   # a Run, unsaved
    run.table().mean("ndcg@10")          # metrics are derived, computed on demand
    run_id = get_store().save(run)       # the store gives it an id
    get_store().load(run_id).table()     # recomputed from the saved ranking

What is stored is what cannot be recomputed: the ranking, the configuration (never a
credential), usage, cost, timings and resources. The metric table is derived from the ranking
and the dataset's qrels; it is memoized on the object (treat a loaded run as read-only).

A derived run (a fusion, a rerank, a dimension or precision sweep point, an ANN index) names
its ``parents`` (run ids) and says in ``config["transform"]`` what was done to them.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from .i18n import convention, t
from .metrics import evaluate

if TYPE_CHECKING:
    from .dataset import Dataset
    from .judgments import Filled
    from .metrics import MetricTable
    from .ranking import Ranking

__all__ = ["SOURCES", "Run", "distinct_rankings", "merged_notes", "now_iso", "ranking_identity"]

#: where a run came from (the store's ``source`` column)
SOURCES = ("evaluation", "trec", "import", "fusion", "rerank", "sweep", "engine", "pipeline")


def now_iso() -> str:
    """Now in UTC as ``YYYY-MM-DDTHH:MM:SSZ`` (runs sort by time as text)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(eq=False)
class Run:
    """One evaluation run. The ranking is the data; the metric table is derived from it.

    - ``dataset`` / ``dataset_fingerprint``: what it was run on (the fingerprint names the
      dataset's content; it is computed from ``dataset`` when not given).
    - ``ranking``: for each query the top-``kmax`` documents and scores, in trec_eval order.
    - ``query_ids``: the evaluated queries, in order (a query missing from the ranking scores
      0 on every metric rather than disappearing from the mean).
    - ``retriever``: a short name of what ranked ("bm25", "openai:text-embedding-3-small",
      "rrf(bm25, openai:…)"); ``model`` the embedding model when there is one.
    - ``config``: names every stage (``{"retriever": ..., "stages": [...], ...}``); never a
      credential (the store scrubs it again anyway).
    - ``usage``: what the APIs reported (``requests``, ``prompt_tokens``, ...), summed over
      stages; ``cost``: the estimate before the run and the actual figure after.
    - ``seconds``: wall time of the retrieval; ``timings``: seconds per stage.
    - ``resources``: what it takes to operate (``index_bytes``, latency probes, ...).
    - ``parents``: run ids this run was derived from (empty for a first-stage run).
    - ``id``: set by the run store when saved (``None`` before).
    - ``reused``: set by the run store: ``True`` when saving found this very run already
      saved (same dataset, configuration and ranking) and ``id`` is that run's.
    """

    dataset: Dataset
    ranking: Ranking
    query_ids: list[str]
    kmax: int
    retriever: str = "unknown"
    model: str | None = None
    name: str = ""
    config: dict = field(default_factory=dict)
    usage: dict = field(default_factory=dict)
    cost: dict | None = None
    seconds: float | None = None
    timings: dict = field(default_factory=dict)
    resources: dict = field(default_factory=dict)
    relevance_level: float | None = None
    gain: str = "linear"
    source: str = "evaluation"
    parents: list[str] = field(default_factory=list)
    created_at: str = field(default_factory=now_iso)
    dataset_fingerprint: str = ""
    id: str | None = None
    reused: bool = field(default=False, repr=False, compare=False)
    _table: MetricTable | None = field(default=None, repr=False, compare=False)
    #: tables on other labels (filled judgment sets, condensed lists), the last few
    _views: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.query_ids = [str(q) for q in self.query_ids]
        self.kmax = int(self.kmax)
        if not self.dataset_fingerprint:
            self.dataset_fingerprint = self.dataset.fingerprint()

    @classmethod
    def of_ranking(cls, dataset: Dataset, ranking: Ranking, *, kmax: int | None = None,
                   query_ids: list[str] | None = None, **fields: Any) -> Run:
        """A run from a ranking made elsewhere (a TREC file, an export, a test): the evaluated
        queries default to the ranking's queries that have qrels (trec_eval's rule), Kmax to
        the ranking's depth; ``fields`` are any other :class:`Run` fields."""
        if query_ids is None:
            query_ids = [q for q in ranking.query_ids if q in dataset.qrels]
        if kmax is None:
            kmax = max(ranking.kmax, 1)
        return cls(dataset=dataset, ranking=ranking, query_ids=list(query_ids), kmax=kmax,
                   **fields)

    # -- derived ------------------------------------------------------------------------
    @property
    def qrels(self) -> dict[str, dict[str, float]]:
        return self.dataset.qrels

    @property
    def dataset_name(self) -> str:
        return self.dataset.name

    def table(self, filled: Filled | None = None, *, judged_only: bool = False) -> MetricTable:
        """The metric table at K = 1..kmax over ``query_ids``, computed once (memoized).

        By default on the dataset's (human) qrels. ``filled``: the qrels of
        :func:`ragdash.judgments.fill` (human labels plus filled gaps; the table's ``labels``
        name the sets); ``judged_only``: condensed lists (unjudged documents removed first).
        """
        if filled is None and not judged_only:
            if self._table is None:
                self._table = evaluate(self.ranking, self.dataset.qrels, kmax=self.kmax,
                                       queries=self.query_ids,
                                       relevance_level=self.relevance_level, gain=self.gain)
            return self._table
        key = (id(filled), bool(judged_only))
        hit = self._views.get(key)
        if hit is not None and hit[0] is filled:
            return hit[1]
        table = evaluate(self.ranking, self.dataset.qrels if filled is None else filled.qrels,
                         kmax=self.kmax, queries=self.query_ids,
                         relevance_level=self.relevance_level, gain=self.gain,
                         judged_only=judged_only)
        if filled is not None:
            table.labels = tuple(filled.labels)
        if len(self._views) >= 4:
            self._views.pop(next(iter(self._views)))
        self._views[key] = (filled, table)
        return table

    def summary(self, ks=None) -> dict[str, float]:
        """Mean of every metric at each K (default: the table's usual Ks)."""
        return self.table().summary(ks)

    def dataset_info(self) -> dict:
        """Name, source, fingerprint and sizes of the dataset (JSON-safe)."""
        return {"name": self.dataset.name, "source": self.dataset.source,
                "fingerprint": self.dataset_fingerprint,
                "documents": len(self.dataset.documents),
                "queries": len(self.dataset.queries),
                "evaluated_queries": len(self.query_ids)}

    def derive(self, ranking: Ranking, *, transform: dict, retriever: str,
               **changes: Any) -> Run:
        """A new, unsaved run made from this one by ``transform`` (a JSON-safe dict naming
        what was done, e.g. ``{"kind": "truncate", "dimensions": 256}``): same dataset and
        queries, this run's id as parent, the config extended with the transform."""
        config = dict(self.config)
        config["transform"] = dict(transform)
        config["parent_config"] = dict(self.config)
        fields = {"ranking": ranking, "retriever": retriever, "config": config,
                  "parents": [self.id] if self.id else [], "id": None, "reused": False,
                  "_table": None,
                  "_views": {},
                  "created_at": now_iso(), "name": "", "usage": {}, "cost": None,
                  "timings": {}, "resources": {}, "seconds": None}
        fields.update(changes)
        return dataclasses.replace(self, **fields)


# -- runs that rank alike -----------------------------------------------------------------------
def ranking_identity(run: Run) -> str:
    """What every metric of ``run`` depends on, as a sha256: the dataset (its fingerprint),
    the evaluated queries, Kmax, the judging (relevance level, gain) and, for every query,
    the documents in their order — not the scores, not the name. Two runs with the same
    value score the same on every query and metric. Kept on the run once computed."""
    known = run.__dict__.get("_ranking_identity")
    if known is not None:
        return known
    ranking = run.ranking
    digest = hashlib.sha256()
    head = [run.dataset_fingerprint, run.query_ids, run.kmax,
            None if run.relevance_level is None else float(run.relevance_level), run.gain,
            ranking.query_ids]
    digest.update(repr(head).encode("utf-8"))
    digest.update(np.asarray(ranking.offsets, dtype="<i8").tobytes())
    digest.update("\x00".join(map(str, ranking.doc_ids)).encode("utf-8"))
    run.__dict__["_ranking_identity"] = value = digest.hexdigest()
    return value


def distinct_rankings(runs: Sequence[Run]) -> tuple[list[int], dict[int, list[int]]]:
    """Runs that rank alike (:func:`ranking_identity`) taken once: the positions of the runs
    to keep (the first of each kind, in order) and, for a kept run that stands for others,
    their positions (``{kept: [merged, ...]}``). Views that compare runs show each ranking
    once: two copies of one ranking are not two systems, and would count twice in a
    correction for multiple comparisons."""
    first: dict[str, int] = {}
    keep: list[int] = []
    merged: dict[int, list[int]] = {}
    for i, run in enumerate(runs):
        key = ranking_identity(run)
        if key in first:
            merged.setdefault(first[key], []).append(i)
        else:
            first[key] = i
            keep.append(i)
    return keep, merged


def merged_notes(merged: Mapping[str, Sequence[str]], lang: str | None = None) -> list[str]:
    """One sentence per run standing for others (``{kept run's name: [merged names]}``, from
    :func:`distinct_rankings`): which runs ranked every query as it did and are shown once,
    under its name."""
    sep = convention(lang, "list_separator")
    return [t("views.merged", lang, n=len(others), kept=kept, merged=sep.join(others))
            for kept, others in merged.items() if others]
