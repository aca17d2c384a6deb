"""What a rerank costs: per search unit (Cohere) or per token (Jina, Voyage).

Prices ship in ``ragdash/data/rerank_prices.csv`` (provider, model, USD per 1,000 search units
or per 1M tokens, source and date); a user's rows in ``$RAGDASH_HOME/rerank_prices.user.csv``
replace or extend them by (provider, model). A ``*`` model prices every model of its provider
(``local,*``: a self-hosted or local reranker, free).

Before the run, from the pairs not yet in the score cache::

    search_units = Σ_requests ceil(documents / 100)          (Cohere: one query, ≤ 100 documents)
    tokens       = Σ_pairs tokens(query) + tokens(document)    (Jina, Voyage)
    usd          = search_units × usd_per_1k / 1,000  or  tokens × usd_per_1m / 1,000,000

tokens are the cost tokenizer's count (:func:`ragdash.cost.count_tokens`: cl100k, else the
script-aware estimate; providers count with their own tokenizers). After the run the same
formula takes the units the API reported (``meta.billed_units.search_units``,
``usage.total_tokens``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import CostError
from .catalog import _number, catalog_error
from .currency import CostSettings, load_settings
from .side_prices import find_row, load_rows, read_rows

DEFAULT_RERANK_PRICES = Path(__file__).resolve().parent.parent / "data" / "rerank_prices.csv"
USER_RERANK_PRICES_NAME = "rerank_prices.user.csv"
COLUMNS = ["provider", "model", "usd_per_1k_search_units", "usd_per_1m_tokens", "source_url",
           "as_of", "notes"]


@dataclass(frozen=True)
class RerankPrice:
    provider: str
    model: str
    usd_per_1k_search_units: float | None
    usd_per_1m_tokens: float | None
    source_url: str = ""
    as_of: str = ""
    notes: str = ""

    @property
    def unit(self) -> str:
        return "search_units" if self.usd_per_1k_search_units is not None else "tokens"

    def usd(self, units: float) -> float:
        if self.usd_per_1k_search_units is not None:
            return float(units) * self.usd_per_1k_search_units / 1_000
        return float(units) * (self.usd_per_1m_tokens or 0.0) / 1_000_000


def parse_rerank_prices(text: str, *, file: str | Path = "<rerank prices>") -> list[RerankPrice]:
    def row(cells: dict, line: int) -> RerankPrice:
        su = _number(cells.get("usd_per_1k_search_units", ""), "usd_per_1k_search_units", file,
                     line, optional=True)
        tok = _number(cells.get("usd_per_1m_tokens", ""), "usd_per_1m_tokens", file, line,
                      optional=True)
        if (su is None) == (tok is None):
            raise catalog_error("cost.rr_one_price", file=file, line=line)
        return RerankPrice(cells["provider"], cells["model"], su, tok,
                           cells.get("source_url", ""), cells.get("as_of", ""),
                           cells.get("notes", ""))

    return read_rows(text, file=file, columns=COLUMNS, required=4,
                     row=row,
                     missing=lambda **where: catalog_error("cost.rr_missing_columns", **where))


def load_rerank_prices(user_path: str | Path | None = None) -> list[RerankPrice]:
    """The shipped rows, then the user's rows over them (by provider and model)."""
    return load_rows(parse_rerank_prices, DEFAULT_RERANK_PRICES, USER_RERANK_PRICES_NAME,
                     user_path)


def find_rerank_price(model: str, provider: str | None = None,
                      rows: list[RerankPrice] | None = None) -> RerankPrice | None:
    """The row for ``model`` (of ``provider`` when given; a provider's ``*`` row as a last
    resort); None when it is not priced."""
    return find_row(load_rerank_prices() if rows is None else rows, model, provider)


def rerank_cost(units: float, price: RerankPrice | None,
                settings: CostSettings | None = None) -> dict:
    """``{units, unit, usd, jpy, source_url, as_of}``; usd/jpy None when not priced."""
    if price is None:
        return {"units": units, "unit": None, "usd": None, "jpy": None, "priced": False}
    settings = settings or load_settings()
    usd = price.usd(units)
    return {"units": units, "unit": price.unit, "usd": usd, "jpy": usd * settings.jpy_per_usd,
            "provider": price.provider, "model": price.model,
            "usd_per_1k_search_units": price.usd_per_1k_search_units,
            "usd_per_1m_tokens": price.usd_per_1m_tokens, "source_url": price.source_url,
            "as_of": price.as_of, "priced": True}


__all__ = ["COLUMNS", "CostError", "RerankPrice", "find_rerank_price", "load_rerank_prices",
           "parse_rerank_prices", "rerank_cost"]
