"""Token estimates, request batches, truncation of a text that is too long, and the pace
(batch size and requests at once) a slow server is sent at (:class:`Pace`).

The estimate only sizes requests and cuts texts a server refused, so it errs on the high side
and needs no tokenizer file: with OpenAI's cl100k encoding a CJK ideograph costs about 1.4
tokens, kana and other non-ASCII letters about 1, English about one token per 4 characters.
We count 1.5 per CJK ideograph, 1 per kana or other non-ASCII character, 2 per character
outside the Basic Multilingual Plane (emoji), one per 3 ASCII characters, plus one.

Why not :func:`ragdash.cost.tokens.estimate_tokens`: that one prices an evaluation (calibrated
to within a few percent of exact cl100k, with about ten regular-expression passes per text);
this one is deliberately cruder and about 7x faster, because it runs on every text before
the first request is sent and again in :func:`truncate_to_tokens`'s binary search. On JSQuAD's
5,587 texts (documents as embedded, and queries): 15 ms against 115 ms (exact cl100k: 150 ms),
and a total 5% above the exact cl100k count (3% on the documents, 8% on the queries) where
the cost estimate is 0.7% above. It is high over a batch, not for every text: a short query
of rare kanji can come out up to 28% under, but every run of 256 consecutive JSQuAD texts
(the default batch) is estimated high (at least 1.6% over), and the 250,000-token batch cap
stays 17% below the 300,000 the server refuses.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from .. import i18n

#: CJK unified ideographs (with extension A and compatibility ideographs)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: OpenAI's embeddings endpoint refuses requests above 300,000 tokens; the estimate stays under
DEFAULT_MAX_BATCH_TOKENS = 250_000
MAX_BATCH_SIZE = 2048


def estimate_tokens(text: str) -> int:
    """A conservative token estimate for one text (see the module docstring)."""
    n = len(text)
    ascii_chars = len(text.encode("ascii", "ignore"))
    cjk = len(_CJK.findall(text)) if ascii_chars < n else 0
    astral = len(text.encode("utf-16-le")) // 2 - n
    other = n - ascii_chars - cjk - astral
    return 1 + math.ceil(ascii_chars / 3 + 1.5 * cjk + other + 2 * astral)


def estimate_tokens_many(texts: Sequence[str]) -> np.ndarray:
    """:func:`estimate_tokens` of every text (int64), in one
    numpy pass over all their characters instead of one regex per text (about 15x faster)."""
    n = len(texts)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    try:
        chars = np.frombuffer("".join(texts).encode("utf-32-le"), dtype="<u4")
    except UnicodeEncodeError:  # a lone surrogate: the one-text estimate decides
        return np.fromiter(map(estimate_tokens, texts), dtype=np.int64, count=n)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    running = np.zeros(len(chars) + 1, dtype=np.int32 if len(chars) < 2**31 else np.int64)

    def per_text(mask: np.ndarray) -> np.ndarray:
        np.cumsum(mask, dtype=running.dtype, out=running[1:])
        return (running[ends] - running[starts]).astype(np.int64)

    ascii_chars = lengths - per_text(chars >= 128)
    cjk = per_text(((chars >= 0x3400) & (chars <= 0x4DBF)) | ((chars >= 0x4E00) & (chars <= 0x9FFF))
                   | ((chars >= 0xF900) & (chars <= 0xFAFF)))
    astral = per_text(chars > 0xFFFF)
    other = lengths - ascii_chars - cjk - astral
    # the same float operations, in the same order, as estimate_tokens
    return 1 + np.ceil(ascii_chars / 3 + 1.5 * cjk + other + 2 * astral).astype(np.int64)


def plan_batches(token_estimates: Iterable[int], batch_size: int,
                 max_batch_tokens: int) -> Iterator[range]:
    """Consecutive index ranges, each with at most ``batch_size`` texts and (unless a single
    text is bigger by itself) at most ``max_batch_tokens`` estimated tokens.

    A generator over a lazy iterable, so the first batch can be sent before the last text is
    estimated."""
    start = tokens = count = 0
    for i, t in enumerate(token_estimates):
        if i > start and (i - start >= batch_size or tokens + t > max_batch_tokens):
            yield range(start, i)
            start, tokens = i, 0
        tokens += t
        count = i + 1
    if count > start:
        yield range(start, count)


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` whose estimate is at most ``max_tokens`` (binary search;
    the estimate only grows with the prefix)."""
    if estimate_tokens(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)  # estimate(text[:lo]) <= max_tokens < estimate(text[:hi])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if estimate_tokens(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid
    return text[:lo]


#: consecutive successes at a reduced pace before it doubles again (see :class:`Pace`)
GROW_AFTER = 8
#: the most successes a growth can come to ask for (it doubles each time growing timed out)
GROW_AFTER_CAP = 256


class Pace:
    """How many texts go in one request and how many requests are in flight, *now*: the
    configured ``batch_size`` and ``concurrency`` until the server is too slow for them.

    A server that computes every batch it received (infinity-emb, text-embeddings-inference
    on a CPU) keeps computing a request the client has given up on: retrying a timed-out
    batch of the same size only adds to its queue, and every retry times out in turn. So:

    - a timeout of a request sent at the current pace halves both — the batch size from the
      size of the batch that timed out, when it was smaller — down to 1 text and 1 request
      at once, and the batches still to send are cut to the new size; a timeout of a request
      sent before the last change says nothing new (it was in the same queue);
    - :data:`GROW_AFTER` consecutive successes of requests sent at the current pace double
      both again, never above the configured values; each time growing back ends in a
      timeout, the next growth waits for twice as many successes (up to
      :data:`GROW_AFTER_CAP`), so a server that cannot take more is not tried every minute.

    ``generation`` counts changes: a request notes it when it leaves, and reports it back
    with its outcome. Thread-safe.
    """

    def __init__(self, batch_size: int, concurrency: int, *,
                 grow_after: int = GROW_AFTER) -> None:
        self.batch_size_set = int(batch_size)
        self.concurrency_set = int(concurrency)
        self.batch_size = self.batch_size_set
        self.concurrency = self.concurrency_set
        self.generation = 0
        self.slowest: tuple[int, int] | None = None  #: (batch, concurrency) at its lowest
        self._grow_after = int(grow_after)
        self._need = self._grow_after
        self._successes = 0
        self._grown = False  # the last change was a growth
        self._lock = threading.Lock()

    @property
    def reduced(self) -> bool:
        return (self.batch_size, self.concurrency) != (self.batch_size_set,
                                                       self.concurrency_set)

    def timed_out(self, generation: int, texts: int) -> bool:
        """A request of ``texts`` texts sent at ``generation`` timed out; True when the pace
        was halved."""
        with self._lock:
            if generation != self.generation or (self.batch_size, self.concurrency) == (1, 1):
                return False
            if self._grown:  # growing back was too much: wait longer before the next try
                self._need = min(2 * self._need, GROW_AFTER_CAP)
            self.batch_size = max(1, min(self.batch_size, texts) // 2)
            self.concurrency = max(1, self.concurrency // 2)
            self._change(grown=False)
            low = self.slowest or (self.batch_size, self.concurrency)
            self.slowest = (min(low[0], self.batch_size), min(low[1], self.concurrency))
            return True

    def succeeded(self, generation: int) -> bool:
        """A request sent at ``generation`` got its reply; True when the pace grew."""
        with self._lock:
            if generation != self.generation or not self.reduced:
                return False
            self._successes += 1
            if self._successes < self._need:
                return False
            self.batch_size = min(self.batch_size_set, 2 * self.batch_size)
            self.concurrency = min(self.concurrency_set, 2 * self.concurrency)
            self._change(grown=True)
            return True

    def _change(self, *, grown: bool) -> None:  # caller holds _lock
        self.generation += 1
        self._successes = 0
        self._grown = grown

    def event(self) -> dict:
        """Fields for a progress event: ``{"pace": {...}}`` while the pace is reduced (the
        configured and current batch size and concurrency), else nothing."""
        with self._lock:
            if not self.reduced:
                return {}
            return {"pace": {"batch_size": self.batch_size, "batch_size_set": self.batch_size_set,
                             "concurrency": self.concurrency,
                             "concurrency_set": self.concurrency_set}}


def pace_note(event: Mapping, lang: str = "en") -> str | None:
    """The progress line's words for a progress ``event`` that carries a reduced pace
    (``"server slow: batch 256 → 128, 4 → 2 requests at once"``), else None."""
    pace = event.get("pace") if isinstance(event, Mapping) else None
    if not isinstance(pace, Mapping):
        return None
    try:
        values = {name: int(pace[key]) for name, key in (
            ("batch_set", "batch_size_set"), ("batch", "batch_size"),
            ("at_once_set", "concurrency_set"), ("at_once", "concurrency"))}
    except (KeyError, TypeError, ValueError):
        return None
    return i18n.t("adaptive.slow", lang, **{k: f"{v:,}" for k, v in values.items()})
