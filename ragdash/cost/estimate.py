"""What one evaluation costs, before the run (estimate) and after it (from the API's usage).

One evaluation embeds every document once and every evaluated query once::

    tokens = Σ_documents tokens(title + " " + text) + Σ_{queries with qrels, first N} tokens(query)
    usd    = tokens × usd_per_1m / 1,000,000          jpy = usd × rate

A rerun whose texts are all in the embeddings cache costs 0; with part of them cached, only the
rest is paid (``cached=``).

For contrast, the article's evaluator embedded every document again for every query
(``retrieve_top_k`` calls the API for the query and then for each document)::

    naive_tokens = Σ_q (tokens(documents) + tokens(q)) = Q × tokens(documents) + tokens(queries)

which grows with Q × corpus instead of Q + corpus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from ..errors import CostError
from ..i18n import error, text
from .catalog import Catalog, PriceRow, load_catalog
from .currency import CostSettings, effective_rate, load_settings, usd_cost
from .tokens import METHOD_ESTIMATE, TokenCount, count_tokens

#: ``cached(text, role) -> bool`` with role "document" or "query"
CachedPredicate = Callable[[str, str], bool]


@dataclass(frozen=True)
class ProviderCost:
    """One catalog row priced for the same token count (providers side by side)."""

    provider: str
    model: str
    usd: float
    jpy: float
    usd_per_1m: float
    batch_usd: float | None
    jpy_per_usd: float
    source_url: str = ""
    as_of: str = ""
    notes: str = ""
    origin: str = "default"

    def to_json_obj(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CostEstimate:
    """The estimate for one evaluation. Money in USD and JPY; see the module docstring."""

    model: str
    provider: str
    tokens_documents: int
    tokens_queries: int
    tokens: int
    token_method: str
    n_documents: int
    n_queries: int
    usd_per_1m: float
    usd: float
    jpy: float
    jpy_per_usd: float
    batch_usd: float | None
    batch_jpy: float | None
    naive_tokens: int
    naive_usd: float
    naive_jpy: float
    cached_tokens: int
    due_tokens: int
    due_usd: float
    due_jpy: float
    warm_cache_usd: float = 0.0
    per_provider: list[ProviderCost] = field(default_factory=list)
    row: PriceRow | None = None
    notes: list[str] = field(default_factory=list)

    def to_json_obj(self) -> dict:
        """The CLI's JSON: ``tokens``, ``token_method``, ``usd``, ``jpy``, ``per_provider``
        first, then the details."""
        out = {"tokens": self.tokens, "token_method": self.token_method,
               "usd": self.usd, "jpy": self.jpy,
               "per_provider": [{"provider": p.provider, "model": p.model, "usd": p.usd,
                                 "jpy": p.jpy, "usd_per_1m": p.usd_per_1m,
                                 "batch_usd": p.batch_usd, "jpy_per_usd": p.jpy_per_usd}
                                for p in self.per_provider]}
        out.update({
            "model": self.model, "provider": self.provider,
            "tokens_documents": self.tokens_documents, "tokens_queries": self.tokens_queries,
            "documents": self.n_documents, "queries": self.n_queries,
            "usd_per_1m": self.usd_per_1m, "jpy_per_usd": self.jpy_per_usd,
            "batch_usd": self.batch_usd, "batch_jpy": self.batch_jpy,
            "naive": {"formula": "Q × tokens(documents) + tokens(queries)",
                      "tokens": self.naive_tokens, "usd": self.naive_usd,
                      "jpy": self.naive_jpy},
            "cached_tokens": self.cached_tokens, "due_tokens": self.due_tokens,
            "due_usd": self.due_usd, "warm_cache_usd": self.warm_cache_usd,
            "source_url": self.row.source_url if self.row else "",
            "as_of": self.row.as_of if self.row else "",
            "notes": list(self.notes),
        })
        return out


def price_tokens(tokens: int, row: PriceRow, settings: CostSettings | None = None
                 ) -> ProviderCost:
    """One row priced for ``tokens``."""
    usd = usd_cost(tokens, row)
    rate = effective_rate(row, settings)
    batch = usd_cost(tokens, row, batch=True) if row.batch_usd_per_1m is not None else None
    return ProviderCost(row.provider, row.model, usd, usd * rate, row.usd_per_1m, batch, rate,
                        row.source_url, row.as_of, row.notes, row.origin)


def per_provider_costs(tokens: int, catalog: Catalog | None = None,
                       settings: CostSettings | None = None) -> list[ProviderCost]:
    """Every concrete catalog row priced for ``tokens``, cheapest first (ties: provider,
    model). The same token count is used for every row: providers that count with their own
    tokenizer will bill somewhat different counts (their rows' notes say so)."""
    catalog = catalog if catalog is not None else load_catalog()
    settings = settings if settings is not None else load_settings()
    costs = [price_tokens(tokens, r, settings) for r in catalog.priced_rows()]
    return sorted(costs, key=lambda c: (c.usd, c.provider.casefold(), c.model.casefold()))


def evaluation_texts(dataset, limit_queries: int | None = None) -> tuple[list[str], list[str]]:
    """Exactly what an evaluation embeds: documents as ``title + " " + text`` and the
    queries that have qrels (the first ``limit_queries`` of them)."""
    return dataset.doc_texts(), [q.text for q in dataset.evaluated_queries(limit_queries)]


def estimate_evaluation(dataset, model: str = "text-embedding-3-small",
                        provider: str | None = None, *, limit_queries: int | None = None,
                        catalog: Catalog | None = None, settings: CostSettings | None = None,
                        cached: int | CachedPredicate | None = None,
                        token_method: str = "auto") -> CostEstimate:
    """Estimate one evaluation of ``dataset`` with ``model`` (see the module docstring).

    ``cached``: tokens already in the embeddings cache, as a number, or a predicate
    ``cached(text, role)`` (role ``"document"`` or ``"query"``) asked for each text; only
    the rest is due. ``warm_cache_usd`` is always 0: a rerun with every text cached pays
    nothing.
    """
    catalog = catalog if catalog is not None else load_catalog()
    settings = settings if settings is not None else load_settings()
    row = catalog.find(model, provider)
    if limit_queries is not None and limit_queries < 0:
        raise error(CostError, "cost.negative_limit", limit_queries=limit_queries)
    docs, queries = evaluation_texts(dataset, limit_queries)
    need_per_text = callable(cached)
    tdocs: TokenCount = count_tokens(docs, per_text=need_per_text, method=token_method)
    tq: TokenCount = count_tokens(queries, per_text=need_per_text, method=token_method)
    method = tdocs.method if tdocs.method == tq.method else METHOD_ESTIMATE
    tokens = tdocs.tokens + tq.tokens

    if cached is None:
        cached_tokens = 0
    elif callable(cached):
        cached_tokens = sum(n for t, n in zip(docs, tdocs.per_text) if cached(t, "document"))
        cached_tokens += sum(n for t, n in zip(queries, tq.per_text) if cached(t, "query"))
    else:
        cached_tokens = int(cached)
        if cached_tokens < 0:
            raise error(CostError, "cost.negative_cached", cached=cached)
    cached_tokens = min(cached_tokens, tokens)
    due = tokens - cached_tokens

    rate = effective_rate(row, settings)
    usd = usd_cost(tokens, row)
    batch = usd_cost(tokens, row, batch=True) if row.batch_usd_per_1m is not None else None
    naive_tokens = len(queries) * tdocs.tokens + tq.tokens
    naive_usd = usd_cost(naive_tokens, row)

    notes = []  # sentences with message ids (catalog/core.toml cost.*): str is English
    if method == METHOD_ESTIMATE:
        notes.append(text("cost.tokens_estimated", detail=tdocs.detail))
    elif row.provider.casefold() not in ("openai", "azure openai", "local"):
        notes.append(text("cost.own_tokenizer", provider=row.provider))
    if row.jpy_per_usd is not None:
        notes.append(text("cost.own_rate", label=row.label, rate=f"{row.jpy_per_usd:g}"))
    others = [r.provider for r in catalog.rows
              if r.model.casefold() == row.model.casefold() and r.key != row.key]
    if provider is None and others:
        notes.append(text("cost.also_listed", model=row.model, others=", ".join(others)))

    return CostEstimate(
        model=row.model, provider=row.provider,
        tokens_documents=tdocs.tokens, tokens_queries=tq.tokens, tokens=tokens,
        token_method=method, n_documents=len(docs), n_queries=len(queries),
        usd_per_1m=row.usd_per_1m, usd=usd, jpy=usd * rate, jpy_per_usd=rate,
        batch_usd=batch, batch_jpy=None if batch is None else batch * rate,
        naive_tokens=naive_tokens, naive_usd=naive_usd, naive_jpy=naive_usd * rate,
        cached_tokens=cached_tokens, due_tokens=due, due_usd=usd_cost(due, row),
        due_jpy=usd_cost(due, row) * rate,
        per_provider=per_provider_costs(tokens, catalog, settings), row=row, notes=notes,
    )


@dataclass(frozen=True)
class ActualCost:
    """The cost of a finished run. ``source`` is ``"usage"`` (the API's own token count)
    or ``"estimate"`` (the server reported none)."""

    tokens: int
    source: str
    usd: float
    jpy: float
    jpy_per_usd: float
    model: str
    provider: str
    estimate_usd: float | None = None
    note: str = ""

    def to_json_obj(self) -> dict:
        return asdict(self)


def actual_cost(usage: dict, *, model: str | None = None, provider: str | None = None,
                estimate: CostEstimate | None = None, catalog: Catalog | None = None,
                settings: CostSettings | None = None) -> ActualCost:
    """The cost of a run from its ``usage`` (``prompt_tokens``, optionally ``model``,
    ``provider``, ``embedded_texts``, ``cached_texts``, ``requests``).

    When the server reported no token count (``prompt_tokens`` missing or None, or 0 while
    texts were embedded) the figure falls back to ``estimate``: its tokens, scaled by the
    share of texts actually embedded when ``embedded_texts`` and ``cached_texts`` are known;
    ``source`` says which.
    """
    usage = dict(usage or {})
    model = model or usage.get("model") or (estimate.model if estimate else None)
    provider = provider or usage.get("provider") or (estimate.provider if estimate else None)
    if not model:
        raise error(CostError, "cost.usage_no_model")
    catalog = catalog if catalog is not None else load_catalog()
    settings = settings if settings is not None else load_settings()
    row = estimate.row if (estimate is not None and estimate.row is not None
                           and estimate.model.casefold() == str(model).casefold()
                           and (provider is None
                                or estimate.provider.casefold() == str(provider).casefold())
                           ) else catalog.find(str(model), provider)
    rate = effective_rate(row, settings)

    reported = usage.get("prompt_tokens", usage.get("total_tokens"))
    embedded = usage.get("embedded_texts")
    cached_texts = usage.get("cached_texts") or 0
    server_silent = reported is None or (int(reported) == 0 and (embedded or 0) > 0)
    if not server_silent:
        tokens, source, note = int(reported), "usage", "tokens reported by the API"
    elif estimate is not None:
        tokens = estimate.tokens
        note = "the server reported no token usage; figure from the estimate"
        if embedded is not None and embedded + cached_texts > 0:
            share = embedded / (embedded + cached_texts)
            tokens = round(estimate.tokens * share)
            note += f" scaled to the {embedded} of {embedded + cached_texts} texts embedded"
        source = "estimate"
    else:
        raise error(CostError, "cost.no_usage")
    usd = usd_cost(tokens, row)
    return ActualCost(tokens, source, usd, usd * rate, rate, row.model, row.provider,
                      estimate.usd if estimate is not None else None, note)
