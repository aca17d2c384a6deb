"""Queries a model wrote: a ``queries.jsonl`` whose rows carry ``generator`` (and ``seed``),
as ``python -m ragdash generate`` writes them. Read so that the dataset says so
(:attr:`ragdash.dataset.Dataset.synthetic`) wherever its metrics are shown."""

from __future__ import annotations

import json
from collections import Counter

from ._source import Source, TextLines

__all__ = ["read_generated"]


def read_generated(queries: Source) -> dict | None:
    """``{"queries": n, "generators": {model: n}, "seeds": [...]}`` when the queries file's
    rows name their generator, else None (decided on the first row)."""
    if queries.ext not in (".jsonl", ".ndjson"):
        return None
    generators: Counter = Counter()
    seeds: set = set()
    first = True
    for _number, line in TextLines(queries):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            return None
        if not isinstance(row, dict) or (first and "generator" not in row):
            return None
        first = False
        if row.get("generator") is not None:
            generators[str(row["generator"])] += 1
            if isinstance(row.get("seed"), int):
                seeds.add(row["seed"])
    if not generators:
        return None
    return {"queries": sum(generators.values()), "generators": dict(generators.most_common()),
            "seeds": sorted(seeds)}
