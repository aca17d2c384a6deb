"""Which documents to write queries from: drawn with a seed, spread across sources and lengths.

**Across sources.** A source's path (``guide/setup.md``, or a ``source`` column's value) is
read as a tree (``guide`` → ``setup.md``). ``n`` is shared out at each level equally between
the branches: a branch that has fewer documents than its share gives them all and the rest is
shared again between the others (water-filling), so a large file never takes more than an
equal share unless the others run out. Left-over single picks go to branches drawn with the
seed. ``per_source`` caps what any one source (a leaf) gives.

**Across lengths.** Within a source, the ``k`` documents to take are one from each of ``k``
equal slices of the source's documents ordered by length (shortest to longest), drawn at
random within the slice: short and long documents both appear, in proportion.

**Too short to ask about.** A document with fewer than :data:`MIN_CHARS` characters of text
is not drawn (counted as ``too_short``). The same seed gives the same sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["MIN_CHARS", "Sample", "allocate", "sample_documents"]

#: a document with less text than this is not asked about (a title, "OK", a page number)
MIN_CHARS = 20


@dataclass(frozen=True)
class Sample:
    """``indices`` of the drawn documents (in draw order), how many each source gave, and
    how many documents were too short to draw."""

    indices: np.ndarray
    per_source: dict[str, int]
    available: dict[str, int]
    too_short: int
    seed: int


def allocate(n: int, capacities: list[int], rng: np.random.Generator) -> list[int]:
    """``n`` shared out equally over branches of the given capacities (water-filling); the
    remainder of the division goes to branches drawn by ``rng``."""
    caps = np.asarray(capacities, dtype=np.int64)
    take = np.zeros(len(caps), np.int64)
    left = min(int(n), int(caps.sum()))
    while left > 0:
        open_ = np.flatnonzero(take < caps)
        share = left // len(open_)
        if share == 0:  # fewer picks than open branches: drawn by the seed
            chosen = rng.choice(open_, size=left, replace=False)
            take[chosen] += 1
            break
        room = caps[open_] - take[open_]
        give = np.minimum(room, share)
        take[open_] += give
        left -= int(give.sum())
    return take.tolist()


def _by_length(members: np.ndarray, lengths: np.ndarray, k: int,
               rng: np.random.Generator) -> np.ndarray:
    """``k`` of ``members``: one drawn from each of ``k`` slices ordered by length."""
    if k >= len(members):
        return members
    ordered = members[np.argsort(lengths[members], kind="stable")]
    edges = np.linspace(0, len(ordered), k + 1).astype(np.int64)
    picks = edges[:-1] + (rng.random(k) * (edges[1:] - edges[:-1])).astype(np.int64)
    return ordered[picks]


def sample_documents(sources: list[str], lengths: np.ndarray, n: int, *, seed: int = 1,
                     per_source: int | None = None) -> Sample:
    """The sample (module docstring): ``sources[i]`` and ``lengths[i]`` of document ``i``."""
    rng = np.random.default_rng(seed)
    lengths = np.asarray(lengths, dtype=np.int64)
    eligible = lengths >= MIN_CHARS
    # each source's documents: one hash factorize and one sort of small integers (not one
    # scan of the corpus per source); sources in name order, so the seed decides alone
    kept = np.flatnonzero(eligible)
    codes, uniq = pd.factorize(np.asarray(sources, dtype=object)[kept])
    grouped = kept[np.argsort(codes, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(uniq)))])
    by_name = {str(leaf): grouped[bounds[i]:bounds[i + 1]] for i, leaf in enumerate(uniq)}
    leaves: dict[str, np.ndarray] = {leaf: by_name[leaf] for leaf in sorted(by_name)}
    caps = {leaf: len(m) if per_source is None else min(len(m), int(per_source))
            for leaf, m in leaves.items()}
    taken = _share(list(leaves), caps, int(n), rng, depth=0)
    picks = [_by_length(leaves[leaf], lengths, k, rng) for leaf, k in taken.items() if k]
    indices = np.concatenate(picks) if picks else np.zeros(0, np.int64)
    indices = indices[rng.permutation(len(indices))]
    return Sample(indices.astype(np.int64), {k: v for k, v in taken.items() if v},
                  {leaf: len(m) for leaf, m in leaves.items()}, int((~eligible).sum()), seed)


def _share(leaves: list[str], caps: dict[str, int], n: int, rng: np.random.Generator,
           depth: int) -> dict[str, int]:
    """``n`` over the leaves under one branch: equally per sub-branch at this depth."""
    if len(leaves) == 1 or n == 0:
        return {leaf: min(n, caps[leaf]) if len(leaves) == 1 else 0 for leaf in leaves}
    groups: dict[str, list[str]] = {}
    for leaf in leaves:
        parts = leaf.split("/")
        key = "/".join(parts[: depth + 1]) if depth < len(parts) - 1 else leaf
        groups.setdefault(key, []).append(leaf)
    if len(groups) == 1:  # one folder at this depth: look one level deeper
        return _share(leaves, caps, n, rng, depth + 1)
    keys = list(groups)
    sizes = allocate(n, [sum(caps[leaf] for leaf in groups[k]) for k in keys], rng)
    out: dict[str, int] = {}
    for key, k in zip(keys, sizes):
        out.update(_share(groups[key], caps, k, rng, depth + 1))
    return out
