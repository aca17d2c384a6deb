"""How much of a file may be read: the ``RAGDASH_MAX_*`` limits, read from the environment
when a file is opened, so a small hostile file cannot exhaust memory or time.

- ``RAGDASH_MAX_LINE_MB`` (default 16): the longest line of any text file (data files and
  TREC run files alike);
- ``RAGDASH_MAX_RUN_MB`` (default 4,096): the largest TREC run file (a run of 100,000 queries
  x 1,000 documents is about 1 GB);
- ``RAGDASH_MAX_UNZIPPED_MB`` (default 2,048): what a .zip unzips to, and a .gz file;
- ``RAGDASH_MAX_JSON_MB`` (default 512): a JSON document read whole.

A value that is not a positive number of megabytes is refused in one sentence.
"""

from __future__ import annotations

import os

from ..errors import DatasetError, with_id

__all__ = ["DEFAULT_MAX_JSON_MB", "DEFAULT_MAX_LINE_MB", "DEFAULT_MAX_RUN_MB",
           "DEFAULT_MAX_UNZIPPED_MB", "MAX_JSON_ENV", "MAX_LINE_ENV", "MAX_RUN_ENV",
           "MAX_UNZIPPED_ENV", "MB", "limit_mb", "max_json_bytes", "max_line_bytes",
           "max_run_bytes", "max_unzipped_bytes", "shown_mb", "suggest_mb"]

MAX_LINE_ENV = "RAGDASH_MAX_LINE_MB"
MAX_UNZIPPED_ENV = "RAGDASH_MAX_UNZIPPED_MB"
MAX_JSON_ENV = "RAGDASH_MAX_JSON_MB"
MAX_RUN_ENV = "RAGDASH_MAX_RUN_MB"
DEFAULT_MAX_JSON_MB = 512
DEFAULT_MAX_LINE_MB = 16
DEFAULT_MAX_UNZIPPED_MB = 2048
DEFAULT_MAX_RUN_MB = 4096
MB = 1024 * 1024


def limit_mb(env: str, default: int) -> float:
    """The limit set in ``env`` (megabytes), else ``default``."""
    raw = os.environ.get(env, "").strip()
    if not raw:
        return float(default)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value != value or value == float("inf"):
        raise with_id("load.limit_not_mb", DatasetError(
            f"{env}={raw!r} is not a number of megabytes",
            fix=f"set {env} to a positive number, e.g. {env}={default}"),
            env=env, raw=raw, default=default)
    return value


def max_line_bytes() -> int:
    """The longest line a text file may have (``RAGDASH_MAX_LINE_MB``, default 16 MB)."""
    return int(limit_mb(MAX_LINE_ENV, DEFAULT_MAX_LINE_MB) * MB)


def max_json_bytes() -> int:
    """The largest JSON document read whole (``RAGDASH_MAX_JSON_MB``, default 512 MB)."""
    return int(limit_mb(MAX_JSON_ENV, DEFAULT_MAX_JSON_MB) * MB)


def max_unzipped_bytes() -> int:
    """What a .zip may unzip to in all, and a .gz file to (``RAGDASH_MAX_UNZIPPED_MB``,
    default 2,048 MB)."""
    return int(limit_mb(MAX_UNZIPPED_ENV, DEFAULT_MAX_UNZIPPED_MB) * MB)


def max_run_bytes() -> int:
    """The largest TREC run file (``RAGDASH_MAX_RUN_MB``, default 4,096 MB)."""
    return int(limit_mb(MAX_RUN_ENV, DEFAULT_MAX_RUN_MB) * MB)


def shown_mb(n: float) -> str:
    """``n`` bytes in megabytes as a sentence shows them."""
    return f"{n / MB:,.0f}" if n >= 10 * MB else f"{n / MB:,.1f}"


def suggest_mb(needed: float) -> int:
    """A limit in megabytes that lets ``needed`` bytes through, with room."""
    return max(1, int(needed / MB * 1.5) + 1)
