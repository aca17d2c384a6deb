"""Cost: token counts, the price catalog, USD/JPY, and what an evaluation costs.

    >>> from ragdash.cost import count_tokens, estimate_evaluation
    >>> count_tokens(["梅雨は東アジアの気象現象"]).method      # 'tiktoken cl100k_base'
    >>> est = estimate_evaluation(dataset, model="text-embedding-3-small")
    >>> est.tokens, est.usd, est.jpy, est.per_provider[:3]

- :mod:`.tokens` — exact cl100k_base counts offline (shipped file, sha256-checked) or a
  script-aware estimate; the method is always returned beside the figure.
- :mod:`.catalog` — the price list (``ragdash/data/prices.csv``) merged with the user's rows
  under ``$RAGDASH_HOME``.
- :mod:`.currency` — USD per 1M tokens → USD → JPY (default 155 JPY per USD, editable; a row
  may carry its own rate), and money formatted for people.
- :mod:`.estimate` — one evaluation = tokens(documents) + tokens(evaluated queries), once;
  the article's per-query re-embedding for contrast; the actual cost from the API's usage.
"""

from .catalog import (
    Catalog,
    PriceRow,
    delete_user_row,
    load_catalog,
    load_user_rows,
    reset_user_catalog,
    save_user_rows,
    upsert_user_row,
    user_prices_path,
)
from .currency import (
    DEFAULT_JPY_PER_USD,
    CostSettings,
    check_rate,
    effective_rate,
    format_bytes,
    format_money,
    load_settings,
    reset_settings,
    save_settings,
    set_jpy_per_usd,
    to_jpy,
    usd_cost,
)
from .estimate import (
    ActualCost,
    CostEstimate,
    ProviderCost,
    actual_cost,
    estimate_evaluation,
    evaluation_texts,
    per_provider_costs,
    price_tokens,
)
from .tokens import (
    METHOD_ESTIMATE,
    METHOD_TIKTOKEN,
    TokenCount,
    count_tokens,
    estimate_tokens,
    tokenizer_status,
)

__all__ = [
    "DEFAULT_JPY_PER_USD", "METHOD_ESTIMATE", "METHOD_TIKTOKEN", "ActualCost", "Catalog",
    "CostEstimate", "CostSettings", "PriceRow", "ProviderCost", "TokenCount", "actual_cost",
    "check_rate", "count_tokens", "delete_user_row", "effective_rate", "estimate_evaluation",
    "estimate_tokens", "evaluation_texts", "format_bytes", "format_money", "load_catalog",
    "load_settings", "load_user_rows",
    "per_provider_costs", "price_tokens", "reset_settings", "reset_user_catalog",
    "save_settings", "save_user_rows", "set_jpy_per_usd", "to_jpy", "tokenizer_status",
    "upsert_user_row", "usd_cost", "user_prices_path",
]
