"""What a chat model costs: USD per 1M input tokens and per 1M output tokens.

Prices ship in ``ragdash/data/chat_prices.csv`` (provider, model, input and output price,
source and date, an optional own exchange rate for relays that bill ¥1 per $1); a user's rows
in ``$RAGDASH_HOME/chat_prices.user.csv`` replace or extend them by (provider, model). A ``*``
model prices every model of its provider (``local,*``: a model on this machine, free)::

    usd = (input_tokens × usd_per_1m_input + output_tokens × usd_per_1m_output) / 1,000,000
    jpy = usd × (the row's jpy_per_usd, else the global rate of ragdash.cost.currency)

Before a run the input tokens are the cost tokenizer's count of every prompt and the output
tokens an assumption per reply (said beside the figure); after it both come from the API's
``usage``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .catalog import _number, catalog_error
from .currency import CostSettings, load_settings
from .side_prices import find_row, load_rows, read_rows

DEFAULT_CHAT_PRICES = Path(__file__).resolve().parent.parent / "data" / "chat_prices.csv"
USER_CHAT_PRICES_NAME = "chat_prices.user.csv"
COLUMNS = ["provider", "model", "usd_per_1m_input", "usd_per_1m_output", "source_url", "as_of",
           "jpy_per_usd", "notes"]
#: a host -> the provider whose prices it bills
_HOSTS = (("api.openai.com", "OpenAI"), (".openai.azure.com", "Azure OpenAI"),
          (".cognitiveservices.azure.com", "Azure OpenAI"),
          ("generativelanguage.googleapis.com", "Google"))

__all__ = ["COLUMNS", "ChatPrice", "chat_cost", "find_chat_price", "load_chat_prices",
           "parse_chat_prices", "provider_of"]


@dataclass(frozen=True)
class ChatPrice:
    provider: str
    model: str
    usd_per_1m_input: float
    usd_per_1m_output: float
    source_url: str = ""
    as_of: str = ""
    jpy_per_usd: float | None = None
    notes: str = ""

    def usd(self, input_tokens: float, output_tokens: float) -> float:
        return (float(input_tokens) * self.usd_per_1m_input
                + float(output_tokens) * self.usd_per_1m_output) / 1_000_000


def parse_chat_prices(text: str, *, file: str | Path = "<chat prices>") -> list[ChatPrice]:
    def row(cells: dict, line: int) -> ChatPrice:
        return ChatPrice(
            cells["provider"], cells["model"],
            _number(cells.get("usd_per_1m_input", ""), "usd_per_1m_input", file, line,
                    optional=False),
            _number(cells.get("usd_per_1m_output", ""), "usd_per_1m_output", file, line,
                    optional=False),
            cells.get("source_url", ""), cells.get("as_of", ""),
            _number(cells.get("jpy_per_usd", ""), "jpy_per_usd", file, line, optional=True)
            or None,
            cells.get("notes", ""))

    return read_rows(text, file=file, columns=COLUMNS, required=4,
                     row=row,
                     missing=lambda **where: catalog_error("cost.chat_missing_columns", **where))


def load_chat_prices(user_path: str | Path | None = None) -> list[ChatPrice]:
    """The shipped rows, then the user's rows over them (by provider and model)."""
    return load_rows(parse_chat_prices, DEFAULT_CHAT_PRICES, USER_CHAT_PRICES_NAME, user_path)


def provider_of(base_url: str) -> str | None:
    """The provider a base URL bills through: a known API host, ``local`` for this machine,
    None for any other server (then the model name alone picks the row)."""
    host = (urlsplit((base_url or "").strip()).hostname or "").lower()
    if host in ("localhost", "127.0.0.1", "::1") or host.endswith(".localhost"):
        return "local"
    for suffix, provider in _HOSTS:
        if host == suffix.lstrip(".") or host.endswith(suffix):
            return provider
    return None


def find_chat_price(model: str, provider: str | None = None,
                    rows: list[ChatPrice] | None = None) -> ChatPrice | None:
    """The row for ``model`` (of ``provider`` when given; a provider's ``*`` row as a last
    resort); None when it is not priced."""
    return find_row(load_chat_prices() if rows is None else rows, model, provider)


def chat_cost(input_tokens: float, output_tokens: float, price: ChatPrice | None,
              settings: CostSettings | None = None) -> dict:
    """``{input_tokens, output_tokens, usd, jpy, provider, model, prices, source_url, as_of,
    priced}``; usd/jpy None when the model is not in the catalog."""
    out = {"input_tokens": int(input_tokens), "output_tokens": int(output_tokens)}
    if price is None:
        return {**out, "usd": None, "jpy": None, "priced": False}
    settings = settings or load_settings()
    usd = price.usd(input_tokens, output_tokens)
    rate = price.jpy_per_usd or settings.jpy_per_usd
    return {**out, "usd": usd, "jpy": usd * rate, "jpy_per_usd": rate,
            "provider": price.provider, "model": price.model,
            "usd_per_1m_input": price.usd_per_1m_input,
            "usd_per_1m_output": price.usd_per_1m_output, "source_url": price.source_url,
            "as_of": price.as_of, "priced": True}
