"""USD and JPY: the cost of tokens, the exchange rate, and money formatted for people.

    usd = tokens × usd_per_1m / 1,000,000
    jpy = usd × rate,  rate = the row's own jpy_per_usd if it has one, else the global rate

The global rate defaults to 155 JPY per USD and is saved, when the user changes it, in
``$RAGDASH_HOME/cost_settings.json`` beside the user's price rows. A row's own rate models a
reseller that bills a different effective rate (¥1 per $1 of list price ⇒ ``jpy_per_usd=1``).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import CostError
from ..home import ragdash_home, remove_file
from ..i18n import error
from .catalog import MAX_JPY_PER_USD, MIN_JPY_PER_USD, PriceRow, catalog_error, rate_in_range

DEFAULT_JPY_PER_USD = 155.0
SETTINGS_NAME = "cost_settings.json"
TOKENS_PER_UNIT = 1_000_000  # prices are per 1M tokens


@dataclass(frozen=True)
class CostSettings:
    jpy_per_usd: float = DEFAULT_JPY_PER_USD

    def __post_init__(self) -> None:
        # a float from here on, whatever was passed ("155" from a command line)
        object.__setattr__(self, "jpy_per_usd", check_rate(self.jpy_per_usd))


def check_rate(rate) -> float:
    """``rate`` (a number, or its text) as yen per dollar, within the sane range
    (:data:`~ragdash.cost.catalog.MIN_JPY_PER_USD`..``MAX_JPY_PER_USD``)."""
    try:
        value = float(rate)
    except (TypeError, ValueError):
        raise error(CostError, "cost.rate_not_number", rate=rate) from None
    if not (value > 0 and math.isfinite(value)):
        raise error(CostError, "cost.rate_not_positive", rate=rate)
    if not rate_in_range(value):
        raise error(CostError, "cost.rate_out_of_range", rate=f"{value:g}",
                    low=f"{MIN_JPY_PER_USD:g}", high=f"{MAX_JPY_PER_USD:,.0f}")
    return value


def settings_path() -> Path:
    return ragdash_home() / SETTINGS_NAME


def load_settings(path: str | Path | None = None) -> CostSettings:
    """The saved settings, or the defaults when nothing was saved."""
    path = Path(path) if path is not None else settings_path()
    if not path.exists():
        return CostSettings()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise catalog_error("cost.settings_not_json", file=path, reason=exc) from None
    if not isinstance(data, dict):
        raise catalog_error("cost.settings_not_object", file=path)
    rate = data.get("jpy_per_usd", DEFAULT_JPY_PER_USD)
    if isinstance(rate, bool) or not isinstance(rate, int | float):
        # "155" typed by hand: JSON text, not a number (and true is not 1 yen)
        raise catalog_error("cost.settings_rate_not_number", file=path,
                            value=json.dumps(rate, ensure_ascii=False)[:40])
    try:
        return CostSettings(jpy_per_usd=rate)
    except CostError as exc:
        raise catalog_error("cost.settings_invalid", file=path, error=exc) from None


def save_settings(settings: CostSettings, path: str | Path | None = None) -> Path:
    path = Path(path) if path is not None else settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(asdict(settings), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise catalog_error("cost.settings_unwritable", file=path, reason=exc.strerror) from None
    return path


def set_jpy_per_usd(rate: float, path: str | Path | None = None) -> CostSettings:
    """Change and save the global rate."""
    settings = CostSettings(jpy_per_usd=check_rate(rate))
    save_settings(settings, path)
    return settings


def reset_settings(path: str | Path | None = None) -> bool:
    return remove_file(path if path is not None else settings_path())


# -- arithmetic --------------------------------------------------------------------------------

def usd_cost(tokens: int | float, row: PriceRow, batch: bool = False) -> float:
    """US dollars for ``tokens`` input tokens at the row's price (per 1M tokens).

    ``batch=True`` uses the batch price; a row without one raises :class:`CostError`.
    """
    if tokens < 0:
        raise error(CostError, "cost.negative_tokens", tokens=tokens)
    if batch:
        if row.batch_usd_per_1m is None:
            raise error(CostError, "cost.no_batch_price", label=row.label)
        price = row.batch_usd_per_1m
    else:
        price = row.usd_per_1m
    return float(tokens) * price / TOKENS_PER_UNIT


def effective_rate(row: PriceRow | None, settings: CostSettings | None = None) -> float:
    """The row's own JPY-per-USD rate if it has one, else the global one."""
    if row is not None and row.jpy_per_usd is not None:
        return row.jpy_per_usd
    return (settings or CostSettings()).jpy_per_usd


def to_jpy(usd: float, rate: float = DEFAULT_JPY_PER_USD) -> float:
    return float(usd) * check_rate(rate)


def _significant(value: float, digits: int) -> str:
    """``value`` (0 < value < 1) with ``digits`` significant digits, no exponent."""
    decimals = digits - 1 - math.floor(math.log10(value))
    text = f"{value:.{max(decimals, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


#: what :func:`format_money` writes for a figure that is not known (None or NaN)
NO_MONEY = "—"


def format_money(amount: float | None, currency: str = "USD") -> str:
    """Money for people — the one money format of ragdash (CLI, app, charts, report).

    USD: two decimals from $1 up (``$1,234.57``); below $1 three significant digits, so tiny
    amounts stay readable (``$0.0234``, ``$0.000123``). JPY: whole yen from ¥100 up
    (``¥1,235``), two decimals from ¥1 (``¥4.58``: whole yen made ¥4.58 and ¥5.49 both
    ``¥5``), below ¥1 two significant digits (``¥0.37``). Zero is ``$0`` / ``¥0``.
    A figure that is not known (``None`` or NaN) is ``"—"``; infinity is ``$?``.
    """
    cur = str(currency).upper()
    if cur not in ("USD", "JPY"):
        raise error(CostError, "cost.unknown_currency", currency=currency)
    symbol = "$" if cur == "USD" else "¥"
    if amount is None or math.isnan(float(amount)):
        return NO_MONEY
    if not math.isfinite(amount):
        return f"{symbol}?"
    sign = "-" if amount < 0 else ""
    a = abs(float(amount))
    if a == 0:
        return f"{symbol}0"
    if cur == "USD":
        body = f"{a:,.2f}" if a >= 1 else _significant(a, 3)
    else:
        body = f"{a:,.0f}" if a >= 100 else f"{a:.2f}" if a >= 1 else _significant(a, 2)
    return f"{sign}{symbol}{body}"


def format_bytes(n: float | None) -> str:
    """``1536000`` → ``"1.5 MB"`` (decimal units, as memory prices are quoted); None → ``—``."""
    if n is None or n != n:
        return "—"
    n = float(n)
    unit = "B"
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            break
        n /= 1000
    return f"{n:,.0f} B" if unit == "B" else f"{n:,.1f} {unit}"
