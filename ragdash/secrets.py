"""Scrubbing credentials out of anything ragdash writes or shows: one rule for all.

The run store (configuration, usage, names), the embeddings client's messages, the job
panel's errors and the HTML report pass what they keep or show through
:func:`scrub_secrets`, so an API key never reaches a file, a log line, a report or a
message, whatever the way it came in (a config entry, a URL parameter, a ``Bearer`` header
echoed in an error, the key itself pasted into a name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

__all__ = ["MASK", "holds_credential", "is_credential_name", "scrub_secrets"]

#: what replaces a credential
MASK = "***"

# Names of configuration entries that hold credentials. "tokens" (a count) and "max_tokens"
# are not secrets; "token", "api_key", "access_token", "Authorization" are.
_SECRET_NAME = re.compile(
    r"(^|[_\-\s])(api[_\-]?key|apikey|key|secret|password|passwd|token|access[_\-]?token|"
    r"auth[_\-]?token|authorization|bearer|credentials?|cookie)$", re.IGNORECASE)
_SECRET_IN_URL = re.compile(
    r"([?&](?:api[_\-]?key|key|token|access[_\-]?token|auth|sig|signature)=)[^&#\s]*",
    re.IGNORECASE)
_BEARER = re.compile(r"(Bearer\s+)[A-Za-z0-9._\-]{8,}", re.IGNORECASE)
_OPENAI_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}")


def scrub_secrets(obj: Any, secrets: Iterable[str] = ()) -> Any:
    """A copy of a JSON-like ``obj`` with credentials removed.

    Drops entries whose name says they hold a credential (``api_key``, ``token``,
    ``Authorization``, ...), masks ``key=`` / ``token=`` query parameters in URLs, ``Bearer``
    values and ``sk-...`` keys in strings, and masks every string in ``secrets`` anywhere.
    """
    secrets = tuple(s for s in secrets if s)

    def clean(x: Any) -> Any:
        if isinstance(x, Mapping):
            return {str(k): clean(v) for k, v in x.items() if not _SECRET_NAME.search(str(k))}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, str):
            for s in secrets:
                x = x.replace(s, MASK)
            x = _SECRET_IN_URL.sub(r"\1" + MASK, x)
            x = _BEARER.sub(r"\1" + MASK, x)
            return _OPENAI_KEY.sub(MASK, x)
        if isinstance(x, (np.integer,)):
            return int(x)
        if isinstance(x, (np.floating,)):
            return float(x)
        if x is None or isinstance(x, (bool, int, float)):
            return x
        return clean(str(x))

    return clean(obj)


def is_credential_name(name: str) -> bool:
    """Whether a configuration entry called ``name`` would hold a credential (``api_key``,
    ``token``, ``password``, ...; not ``api_key_env``, which names a variable)."""
    return bool(_SECRET_NAME.search(str(name)))


def holds_credential(text: str) -> bool:
    """Whether ``text`` carries what looks like a credential: an ``sk-...`` key, a
    ``Bearer`` value, a ``key=`` / ``token=`` URL parameter with a value."""
    return bool(_OPENAI_KEY.search(text) or _BEARER.search(text)
                or any(m.group(0) != m.group(1) for m in _SECRET_IN_URL.finditer(text)))
