"""Where ragdash keeps its state: ``$RAGDASH_HOME`` (default ``.ragdash`` in the working
directory) holds runs.sqlite, embeddings.sqlite, prices.user.csv and cost_settings.json."""

from __future__ import annotations

import os
from pathlib import Path


def ragdash_home() -> Path:
    """``$RAGDASH_HOME`` if set, else ``.ragdash`` in the working directory."""
    env = os.environ.get("RAGDASH_HOME", "").strip()
    return Path(env).expanduser() if env else Path.cwd() / ".ragdash"


def remove_file(path: str | Path) -> bool:
    """Delete a state file; True if there was one."""
    try:
        Path(path).unlink()
        return True
    except FileNotFoundError:
        return False
