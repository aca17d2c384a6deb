"""The rerank stage: the top N of a first-stage ranking, scored again by a reranker.

``Reranker(scorer, depth=50).rerank_run(run)`` → a derived :class:`~ragdash.run.Run`:

1. for each query of the run, its first ``depth`` documents (all of them when it has fewer);
   the reranker sees the query text and each document's ``embed_text`` (title + text);
2. every (query, document) pair is looked up in the score cache (:mod:`.cache`); identical
   documents within one query are scored once;
3. the pairs not cached go to the scorer — one request per query while the server's limits
   allow (:class:`~ragdash.rerank.RerankClient`), or a local cross-encoder — and each reply is
   cached as it arrives;
4. the top ``depth`` are ordered by the reranker's score (descending; ties by doc id
   descending, trec_eval's rule); the documents below ``depth`` keep their first-stage order
   beneath them. Their scores become ``min(reranked) − 1``, ``min(reranked) − 2``, ... so that
   the ranking's canonical order (by score) is exactly that order. The first-stage scores are
   not comparable with the reranker's and are not kept.

Usage: ``requests``, ``pairs_scored`` (sent to the reranker), ``cached_pairs`` (from the
cache), ``search_units`` (Cohere) or ``tokens`` (Jina, Voyage), ``retries``. A rerun of the
same depth makes no request; a shallower depth makes none; a deeper one pays only for the new
pairs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...errors import RetrievalError
from ...i18n import error
from ...ranking import Ranking
from .cache import RerankCache, text_hash, text_hashes

if TYPE_CHECKING:
    from ...dataset import Dataset
    from ...run import Run

DEFAULT_DEPTH = 50
MAX_DEPTH = 10_000

ProgressFn = Callable[[dict], None]


@dataclass
class QueryPlan:
    """One query's part of a rerank: its top documents and which pairs are still due."""
    query_id: str
    query: str
    query_hash: bytes
    doc_ids: list[str]          #: the first ``depth`` documents, first-stage order
    texts: list[str]            #: their texts as the reranker sees them
    hashes: list[bytes]
    cached: dict[bytes, float]  #: scores already in the cache, by document hash
    due: list[int] = field(default_factory=list)  #: positions of distinct uncached texts


@dataclass
class RerankPlan:
    """What a rerank will do before it does it: for the cost estimate and for the run."""
    queries: list[QueryPlan]
    depth: int

    @property
    def pairs(self) -> int:
        return sum(len(q.doc_ids) for q in self.queries)

    @property
    def due_pairs(self) -> int:
        return sum(len(q.due) for q in self.queries)

    @property
    def cached_pairs(self) -> int:
        return self.pairs - self.due_pairs

    def groups(self) -> list[tuple[str, list[str]]]:
        """(query, uncached documents) for every query with something due."""
        return [(q.query, [q.texts[p] for p in q.due]) for q in self.queries if q.due]


def estimate_cost(plan: RerankPlan, scorer, *, provider: str | None = None) -> dict:
    """The cost of ``plan`` before the run (only pairs not in the cache are paid for): see
    :mod:`ragdash.cost.rerank` for the formulas. ``{"requests", "pairs", "due_pairs",
    "search_units" | "tokens", "token_method", "usd", "jpy", ...}``."""
    from ...cost import count_tokens
    from ...cost.rerank import find_rerank_price, rerank_cost
    from ...rerank.protocols import PROVIDER, search_units_for

    groups = plan.groups()
    plan_requests = getattr(scorer, "plan", None)
    requests = [p for q, docs in groups
                for p in (plan_requests(q, docs) if plan_requests else [range(len(docs))])]
    protocol = getattr(scorer, "protocol", None)
    billing = getattr(scorer, "billing", None)
    out = {"requests": len(requests), "pairs": plan.pairs, "due_pairs": plan.due_pairs,
           "cached_pairs": plan.cached_pairs}
    if billing is None:  # local or self-hosted: no API bill
        price = find_rerank_price("*", "local")
        return {**out, **rerank_cost(0, price), "unit": None}
    if billing == "search_units":
        units = sum(search_units_for(len(r)) for r in requests)
        out["search_units"] = units
    else:
        q_counts = count_tokens([q for q, _ in groups], per_text=True)
        d_counts = count_tokens([d for _, docs in groups for d in docs])
        units = sum(c * len(docs) for c, (_, docs) in zip(q_counts.per_text or (), groups)) \
            + d_counts.tokens
        out["tokens"] = units
        out["token_method"] = d_counts.method
    price = find_rerank_price(scorer.model, provider or PROVIDER.get(protocol))
    cost = rerank_cost(units, price)
    cost.pop("units", None)
    return {**out, **cost}


def estimate_upfront(dataset: Dataset, query_ids: Sequence[str], depth: int, *,
                     model: str, protocol: str | None, max_documents: int = 1000) -> dict:
    """The most a rerank of the top ``depth`` of ``query_ids`` can cost, before any
    first-stage ranking exists (the pipeline builder shows it beside Start): every query
    sends ``min(depth, documents)`` documents, none cached; tokens as
    tokens(query) + tokens(document) per pair with the corpus's mean document length.
    ``{"pairs", "requests", "search_units" | "tokens", "usd", "jpy", ...}``."""
    from ...cost import count_tokens
    from ...cost.rerank import find_rerank_price, rerank_cost
    from ...rerank.protocols import BILLING, PROVIDER, search_units_for

    n_q = len(query_ids)
    per_query = min(int(depth), len(dataset.documents))
    per_request = max(1, int(max_documents))
    requests_per_query = -(-per_query // per_request) if per_query else 0
    out = {"pairs": n_q * per_query, "requests": n_q * requests_per_query, "depth": int(depth)}
    billing = BILLING.get(protocol or "")
    if billing is None:
        return {**out, **rerank_cost(0, find_rerank_price("*", "local")), "unit": None}
    if billing == "search_units":
        full, rest = divmod(per_query, per_request)
        units = n_q * (full * search_units_for(per_request) + search_units_for(rest))
        out["search_units"] = units
    else:
        queries = [dataset.query(q).text for q in query_ids if dataset.query(q) is not None]
        docs = count_tokens([d.embed_text for d in dataset.documents])
        q_tokens = count_tokens(queries)
        mean_doc = docs.tokens / max(len(dataset.documents), 1)
        units = round(q_tokens.tokens * per_query + n_q * per_query * mean_doc)
        out["tokens"] = units
        out["token_method"] = docs.method
    cost = rerank_cost(units, find_rerank_price(model, PROVIDER.get(protocol)))
    cost.pop("units", None)
    return {**out, **cost}


def actual_cost(usage: dict, scorer, *, provider: str | None = None) -> dict:
    """The cost from what the API reported (search units or tokens in ``usage``)."""
    from ...cost.rerank import find_rerank_price, rerank_cost
    from ...rerank.protocols import PROVIDER

    billing = getattr(scorer, "billing", None)
    units = usage.get(billing, 0) if billing else 0
    protocol = getattr(scorer, "protocol", None)
    price = (find_rerank_price(scorer.model, provider or PROVIDER.get(protocol)) if billing
             else find_rerank_price("*", "local"))
    return rerank_cost(units, price)


def check_depth(depth) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) \
            or not 1 <= depth <= MAX_DEPTH:
        raise error(RetrievalError, "rerank.bad_depth", most=MAX_DEPTH, value=repr(depth))
    return int(depth)


class Reranker:
    """A scorer (:class:`~ragdash.rerank.RerankClient` or :class:`~.local.LocalCrossEncoder`), a
    depth and a score cache (None: no cache)."""

    def __init__(self, scorer, *, depth: int = DEFAULT_DEPTH,
                 cache: RerankCache | None = None) -> None:
        self.scorer = scorer
        self.depth = check_depth(depth)
        self.cache = cache
        self.cached_pairs = 0
        self.seconds: float | None = None

    @property
    def name(self) -> str:
        return f"rerank:{self.scorer.label}@{self.depth}"

    @property
    def usage(self) -> dict:
        usage = {"requests": self.scorer.usage["requests"],
                 "pairs_scored": self.scorer.usage["pairs_scored"],
                 "cached_pairs": self.cached_pairs}
        for key in ("search_units", "tokens"):
            if key in self.scorer.usage:
                usage[key] = self.scorer.usage[key]
        usage["retries"] = self.scorer.usage.get("retries", 0)
        return usage

    @property
    def notes(self) -> list[str]:
        return list(self.scorer.notes)

    def config(self) -> dict:
        return {**self.scorer.config(), "depth": self.depth,
                "cache": str(self.cache.path) if self.cache is not None else None}

    def transform(self) -> dict:
        """What a derived run says was done (``config["transform"]``)."""
        cfg = self.scorer.config()
        return {"kind": "rerank", "model": self.scorer.model, "depth": self.depth,
                "reranker": cfg.get("reranker"), "base_url": cfg.get("base_url"),
                "protocol": cfg.get("protocol")}

    # -- planning ------------------------------------------------------------------------
    def plan(self, ranking: Ranking, dataset: Dataset,
             query_ids: Sequence[str] | None = None) -> RerankPlan:
        """Look every pair up in the cache; raise before any request when a query or a
        document of the ranking is not in the dataset (the reranker needs their texts)."""
        qids = list(ranking.query_ids if query_ids is None else query_ids)
        docs_index = dataset.doc_index
        missing_docs: list[str] = []
        missing_queries = [q for q in qids if q in ranking and dataset.query(q) is None]
        if missing_queries:
            raise error(RetrievalError, "rerank.queries_missing", n=len(missing_queries),
                        example=repr(missing_queries[0]))
        plans: list[QueryPlan] = []
        base, model = self.scorer.cache_base, self.scorer.model
        for qid in qids:
            doc_ids, _ = ranking.get(qid)
            doc_ids = [str(d) for d in doc_ids[: self.depth]]
            if not doc_ids:
                continue
            texts = []
            for d in doc_ids:
                i = docs_index.get(d)
                if i is None:
                    missing_docs.append(d)
                    continue
                texts.append(dataset.documents[i].embed_text)
            if missing_docs:
                continue
            query = dataset.query(qid).text
            qhash = text_hash(query)
            hashes = text_hashes(texts)
            cached = (self.cache.get_many(base, model, qhash, hashes)
                      if self.cache is not None else {})
            seen: set[bytes] = set()
            due = []
            for p, h in enumerate(hashes):
                if h not in cached and h not in seen:
                    seen.add(h)
                    due.append(p)
            plans.append(QueryPlan(qid, query, qhash, doc_ids, texts, hashes, cached, due))
        if missing_docs:
            raise error(RetrievalError, "rerank.docs_missing", n=len(set(missing_docs)),
                        example=repr(missing_docs[0]))
        return RerankPlan(plans, self.depth)

    # -- reranking -----------------------------------------------------------------------
    def rerank(self, ranking: Ranking, dataset: Dataset, *,
               query_ids: Sequence[str] | None = None, plan: RerankPlan | None = None,
               progress: ProgressFn | None = None,
               cancel: threading.Event | None = None) -> Ranking:
        """The reranked ranking (see the module docstring); queries keep their order."""
        start = time.perf_counter()
        plan = plan or self.plan(ranking, dataset, query_ids)
        with_due = [q for q in plan.queries if q.due]
        base, model = self.scorer.cache_base, self.scorer.model
        fresh: list[dict[bytes, float]] = [{} for _ in with_due]

        def on_scores(g: int, positions: np.ndarray, scores: np.ndarray) -> None:
            q = with_due[g]
            hashes = [q.hashes[q.due[p]] for p in positions.tolist()]
            if self.cache is not None:
                self.cache.put_many(base, model, q.query_hash, hashes, scores.tolist())
            fresh[g].update(zip(hashes, scores.tolist()))

        if with_due and self.cache is not None:
            self.cache.check_writable()  # before the first paid request: nothing paid is lost
        if with_due:
            self.scorer.score_groups(plan.groups(), on_scores=on_scores, progress=progress,
                                     cancel=cancel)
        self.cached_pairs += plan.cached_pairs
        reranked = {}
        for g, q in enumerate(with_due):
            reranked[q.query_id] = fresh[g]
        out = _assemble(ranking, plan, reranked, self.depth)
        self.seconds = time.perf_counter() - start
        return out

    def rerank_run(self, run: Run, *, progress: ProgressFn | None = None,
                   cancel: threading.Event | None = None, cost: dict | None = None) -> Run:
        """A derived run: the rerank of ``run`` (parents, transform, usage, timings)."""
        ranking = self.rerank(run.ranking, run.dataset, query_ids=run.query_ids,
                              progress=progress, cancel=cancel)
        label = self.scorer.label
        parent = run.name or run.retriever
        return run.derive(ranking, transform=self.transform(),
                          retriever=f"{run.retriever} → {label}@{self.depth}",
                          name=f"{parent} → {label} top {self.depth}", source="rerank",
                          usage=self.usage, cost=cost, seconds=self.seconds,
                          timings={"rerank": self.seconds},
                          # the index served from is the first stage's; reranking adds none
                          resources={k: v for k, v in run.resources.items()
                                     if k in ("index_bytes", "vectors", "dimensions",
                                              "precision")})


def _assemble(ranking: Ranking, plan: RerankPlan, fresh: dict[str, dict[bytes, float]],
              depth: int) -> Ranking:
    """Every query of ``ranking``: the reranked top ``depth``, then the rest in first-stage
    order; queries outside the plan keep their first-stage ranking."""
    by_query = {q.query_id: q for q in plan.queries}
    docs_parts, score_parts, counts = [], [], []
    for qid in ranking.query_ids:
        doc_ids, scores = ranking.get(qid)
        q = by_query.get(qid)
        if q is None:
            docs_parts.append(np.asarray(doc_ids, dtype=object))
            score_parts.append(np.asarray(scores, dtype=np.float64))
            counts.append(len(doc_ids))
            continue
        got = fresh.get(qid, {})
        top = np.asarray([q.cached[h] if h in q.cached else got[h] for h in q.hashes],
                         dtype=np.float64)
        # the reranked top: by score descending, ties by doc id descending (trec_eval)
        top_ids = np.asarray(q.doc_ids, dtype=object)
        order = sorted(range(len(top)), key=lambda i: (-top[i], _desc(q.doc_ids[i])))
        rest = np.asarray(doc_ids[len(q.doc_ids):], dtype=object)
        floor = float(top.min())
        rest_scores = floor - 1.0 - np.arange(len(rest), dtype=np.float64)
        docs_parts.append(np.concatenate([top_ids[order], rest]))
        score_parts.append(np.concatenate([top[order], rest_scores]))
        counts.append(len(doc_ids))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    docs = np.concatenate(docs_parts) if docs_parts else np.empty(0, dtype=object)
    scores = np.concatenate(score_parts) if score_parts else np.empty(0)
    return Ranking(ranking.query_ids, offsets, docs, scores, name=ranking.name,
                   canonical=True)


class _desc(str):
    """A doc id that sorts in descending order (for the tie rule)."""

    def __lt__(self, other: str) -> bool:  # type: ignore[override]
        return str.__gt__(self, other)


__all__ = ["DEFAULT_DEPTH", "MAX_DEPTH", "QueryPlan", "RerankPlan", "Reranker", "actual_cost",
           "check_depth", "estimate_cost"]


def _probe_client_and_groups(run: Run, n: int, api_key: str | None = None):
    """The rerank client of ``run``'s rerank stage and the ``n`` requests a probe sends:
    ``(query, its depth documents)`` exactly as the stage sends them (:meth:`Reranker.plan`:
    the documents' ``embed_text``), cycling over the run's queries."""
    from . import make_scorer

    transform = dict(run.config.get("transform") or {})
    if transform.get("kind") != "rerank" or transform.get("reranker") == "local":
        raise error(RetrievalError, "rerank.probe_no_stage",
                    run=run.name or run.retriever)
    client = make_scorer("http", base_url=transform.get("base_url"),
                         model=transform.get("model"), protocol=transform.get("protocol"),
                         api_key=api_key)
    plan = Reranker(client, depth=int(transform.get("depth") or 50)).plan(
        run.ranking, run.dataset, run.query_ids)
    groups = [(q.query, list(q.texts)) for q in plan.queries if q.query and q.texts]
    if not groups:
        raise error(RetrievalError, "rerank.probe_no_texts")
    return client, [groups[i % len(groups)] for i in range(n)]


def probe_rerank_latency(run: Run, *, api_key: str | None = None,
                         n: int | None = None, spacing: float | None = None) -> dict:
    """A latency probe of the rerank endpoint of ``run`` (a run with a rerank stage over an
    HTTP API): ``n`` requests, each one query with its ``depth`` first-stage documents (what
    the stage sends per query), ``spacing`` seconds apart; never through the score cache.
    Returns :func:`ragdash.embeddings.probe.latency_summary`'s figures with the endpoint."""
    from ...embeddings.probe import PROBE_REQUESTS, PROBE_SPACING, latency_summary, timed_calls

    n = PROBE_REQUESTS if n is None else int(n)
    spacing = PROBE_SPACING if spacing is None else float(spacing)
    client, groups = _probe_client_and_groups(run, n, api_key)
    before = dict(client.usage)
    calls = [lambda g=g: client.score_groups([g]) for g in groups]
    ms = timed_calls(calls, spacing=spacing)
    billed = {k: client.usage[k] - before.get(k, 0) for k in ("search_units", "tokens")
              if k in client.usage}
    return {"kind": "rerank", **latency_summary(ms, spacing),
            "endpoint": client.config()["endpoint"], "model": client.model,
            "documents_per_request": max(len(d) for _, d in groups), **billed}


def probe_rerank_estimate(run: Run, n: int | None = None) -> dict:
    """What :func:`probe_rerank_latency` will be billed, before it is sent: ``{units, unit,
    usd}`` (search units: one per request per 100 documents; else the tokens of the queries
    and their documents by the cost tokenizer); ``usd`` None when not priced."""
    import math

    from ...cost import count_tokens
    from ...cost.rerank import find_rerank_price
    from ...embeddings.probe import PROBE_REQUESTS

    n = PROBE_REQUESTS if n is None else int(n)
    client, groups = _probe_client_and_groups(run, n)
    price = find_rerank_price(client.model)
    if price is not None and price.unit == "search_units":
        units = sum(max(1, math.ceil(len(docs) / 100)) for _, docs in groups)
        unit = "search units"
    else:
        units = int(count_tokens([t for q, docs in groups for t in (q, *docs)]).tokens)
        unit = "tokens"
    return {"units": units, "unit": unit,
            "usd": None if price is None else price.usd(units)}
