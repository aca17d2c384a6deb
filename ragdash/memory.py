"""Python's cycle collector during the few steps that make millions of lasting objects.

Loading a dataset and building a BM25 index make millions of objects that stay alive
(documents, their strings, the index's vocabulary), none of them in a reference cycle. Each
full pass of the collector walks all of them again: at a million documents 1.4 of the 6.5 s a
load took, and about 3 s of the tokenizing (8.8 s against 5.4-5.7 s). :func:`collector_paused`
turns it off for such a step and back on after it; whatever cyclic garbage the step leaves is
collected then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off inside the block, and on again after it if it was on (also when
    the block raises). Nested or concurrent blocks are fine: one finishing early turns it back
    on, which costs only speed."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
