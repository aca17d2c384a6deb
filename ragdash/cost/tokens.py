"""Token counting: exact with tiktoken's ``cl100k_base`` when it loads offline, else an estimate.

Exact counts come from tiktoken with the ``cl100k_base`` ranks file (the encoding behind
OpenAI's text-embedding-3-* and ada-002). tiktoken would download that file on first use; this
module never lets it: it looks for the file, checks its sha256 against the hash tiktoken itself
expects, and builds the encoding from it. Places looked at, in order:

1. ``$RAGDASH_TIKTOKEN_DIR`` — a folder holding ``cl100k_base.tiktoken`` (or the file under
   tiktoken's cache name, :data:`CL100K_CACHE_NAME`);
2. ``$TIKTOKEN_CACHE_DIR`` — tiktoken's own cache folder (same two names);
3. the copy shipped in this package, ``ragdash/data/tokenizers/cl100k_base.tiktoken``;
4. tiktoken's default cache, ``<tmp>/data-gym-cache/<cache name>``.

A file whose sha256 does not match is skipped (and said so in :func:`tokenizer_status`).

When no file loads (or tiktoken is not installed) the count is a **script-aware estimate**
(:func:`estimate_tokens`): cl100k splits text into chunks by a regular expression and then
merges bytes; the estimate counts the same kinds of pieces with a few regex passes and prices
each kind with a rate measured against exact cl100k counts (``bench/calibrate_tokens.py``)::

    tokens ≈ 1.42·kanji + 0.94·hiragana + 1.05·katakana + 1.13·full-width punctuation
           + Σ_latin words T(len(word))          T = 1.0 for short words … ≈ len/8.3 for long ones
           + Σ_digit runs ceil(len/3)              cl100k has a token for every 1–3 digit number
           + 0.95·ASCII punctuation runs + 1.2·line-break runs + 1.0·runs of 2+ spaces
           + 0.30·UTF-8 bytes of other letters + 0.60·UTF-8 bytes of other symbols (emoji)

A non-empty text counts at least one token. The article's "4 characters per token" is 4-5×
too low for Japanese (cl100k spends about 1.1 tokens per character on JSQuAD) and a single
"CJK" rate is 10% off; counting by script and by word is within 1-4% on the calibration corpora.

The method used is always returned beside the figure (:attr:`TokenCount.method`).

:mod:`ragdash.embeddings.batching` has its own, cruder estimate for sizing requests: it runs
on every text before the first request and must be fast (about 7x faster than this one on
JSQuAD, and high in total rather than close), while this one is for prices, where being
within a few percent matters more than a tenth of a second.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import CostError
from ..i18n import error, text

#: shown beside every figure
METHOD_TIKTOKEN = "tiktoken cl100k_base"
METHOD_ESTIMATE = "estimate (script-aware)"

#: sha256 of cl100k_base.tiktoken, as tiktoken_ext/openai_public.py expects it
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
#: tiktoken caches a download under sha1(url); a cache folder may hold the file by that name
CL100K_CACHE_NAME = hashlib.sha1(CL100K_URL.encode()).hexdigest()
CL100K_FILENAME = "cl100k_base.tiktoken"
SHIPPED_CL100K = Path(__file__).resolve().parent.parent / "data" / "tokenizers" / CL100K_FILENAME

# The encoding's split pattern and special tokens, as tiktoken_ext.openai_public defines them.
CL100K_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}

_BATCH = 2048  # texts per encode_ordinary_batch call: bounds the memory of token lists


@dataclass(frozen=True)
class TokenCount:
    """A token figure and how it was obtained.

    ``per_text`` (when asked for) holds one count per input text, in order, and sums to
    ``tokens``. ``detail`` says which file was used or why the estimate was used.
    """

    tokens: int
    method: str
    per_text: tuple[int, ...] | None = None
    detail: str = ""

    @property
    def exact(self) -> bool:
        return self.method == METHOD_TIKTOKEN


# -- finding and loading the cl100k file -------------------------------------------------------

def _candidates() -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for env in ("RAGDASH_TIKTOKEN_DIR", "TIKTOKEN_CACHE_DIR"):
        folder = os.environ.get(env)
        if folder:
            for name in (CL100K_FILENAME, CL100K_CACHE_NAME):
                out.append((f"${env}", Path(folder) / name))
    out.append(("shipped with ragdash", SHIPPED_CL100K))
    out.append(("tiktoken's default cache",
                Path(tempfile.gettempdir()) / "data-gym-cache" / CL100K_CACHE_NAME))
    return out


def find_cl100k_file() -> tuple[Path | None, list[str]]:
    """The first candidate file whose sha256 matches, and notes on the ones skipped."""
    notes: list[str] = []
    for label, path in _candidates():
        if not path.is_file():
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            notes.append(text("cost.tok_unreadable", path=path, label=label, exc=exc))
            continue
        if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
            notes.append(text("cost.tok_not_cl100k", path=path, label=label))
            continue
        return path, notes
    return None, notes


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    # Same format tiktoken.load.load_tiktoken_bpe reads ("<base64 token> <rank>" per line);
    # parsed here so that loading never writes into tiktoken's cache folder.
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


_lock = threading.Lock()
_loaded: dict[str, object] = {}


def _cache_key() -> str:
    return "|".join(str(p) for _, p in _candidates())


def load_cl100k():
    """The ``cl100k_base`` :class:`tiktoken.Encoding`, built offline, or ``None``.

    Cached per set of candidate paths (so changing ``RAGDASH_TIKTOKEN_DIR`` is honoured).
    """
    key = _cache_key()
    with _lock:
        if key in _loaded:
            return _loaded[key][0]
        enc, detail = _build()
        _loaded[key] = (enc, detail)
        return enc


def _build():
    try:
        import tiktoken
    except ImportError:
        return None, "tiktoken is not installed (pip install tiktoken)"
    path, notes = find_cl100k_file()
    if path is None:
        why = "no cl100k_base file found offline"
        if notes:
            why += " (" + "; ".join(notes) + ")"
        why += ("; put cl100k_base.tiktoken in a folder and set RAGDASH_TIKTOKEN_DIR to it")
        return None, why
    enc = tiktoken.Encoding(
        name="cl100k_base",
        pat_str=CL100K_PAT_STR,
        mergeable_ranks=_parse_ranks(path.read_bytes()),
        special_tokens=CL100K_SPECIAL_TOKENS,
    )
    return enc, f"cl100k_base from {path}"


def tokenizer_status() -> dict[str, str]:
    """``{"method": ..., "detail": ...}``: what :func:`count_tokens` will use and why."""
    enc = load_cl100k()
    detail = _loaded[_cache_key()][1]
    return {"method": METHOD_TIKTOKEN if enc is not None else METHOD_ESTIMATE,
            "detail": str(detail)}


# -- the script-aware estimate -----------------------------------------------------------------

def _regex():
    import regex  # a dependency of tiktoken; supports \p{Script}

    return regex


class _Patterns:
    def __init__(self) -> None:
        rx = _regex()
        self.han = rx.compile(r"\p{Han}")
        self.hira = rx.compile(r"\p{Hiragana}")
        self.kata = rx.compile(r"[\p{Katakana}\u30fc\uff70]")
        # CJK symbols and punctuation, full-width forms; not 々〆〇 and other Han-script marks
        self.fw = rx.compile(r"[\u3000-\u3004\u3008-\u3020\u302a-\u3037\u303c-\u303f"
                             r"\uff01-\uff65\uffe0-\uffef]")
        self.latin = rx.compile(r"[A-Za-z\u00c0-\u024f]+")
        self.digits = rx.compile(r"[0-9]+")
        self.punct = rx.compile(r"[!-/:-@\[-`{-~]+")
        self.newline = rx.compile(r"[ \t]*[\r\n][\r\n\s]*")
        self.spaces = rx.compile(r"(?<!\s)[ \t]{2,}")
        self.known = rx.compile(
            r"[\p{Han}\p{Hiragana}\p{Katakana}\u30fc\uff70\u3000-\u303f\uff01-\uff65\uffe0-\uffef"
            r"A-Za-z\u00c0-\u024f0-9!-/:-@\[-`{-~\s]+")
        self.other_letter = rx.compile(r"[\p{L}\p{M}]+")


_patterns: _Patterns | None = None

#: tokens per script unit, measured with cl100k (bench/calibrate_tokens.py)
RATES = {
    "kanji": 1.43,          # per character
    "hiragana": 0.93,
    "katakana": 1.08,
    "fullwidth": 1.17,      # full-width punctuation and symbols (、。「」（）！？ …)
    "punct_run": 0.97,      # per run of ASCII punctuation
    "newline_run": 1.03,     # per run of whitespace containing a line break
    "space_run": 1.0,       # per run of 2+ spaces or tabs inside a line
    "other_letter_byte": 0.30,  # Cyrillic, Greek, Hangul, Arabic, … per UTF-8 byte
    "other_symbol_byte": 0.60,  # emoji and other symbols, per UTF-8 byte
}

#: mean cl100k tokens of a Latin word (with its leading space) by letter count 0..15;
#: longer words ≈ len / 8.3 tokens
#: held in hundredths, summed as integers: a sum that does not depend on the order of the
#: additions, so one text and a batch of texts (:func:`estimate_many`) give the same number
LATIN_WORD_CENTS = np.array([0, 100, 100, 101, 102, 104, 105, 107, 112, 117, 122, 132, 145, 155,
                             165, 180], dtype=np.int64)
LATIN_WORD_TOKENS = LATIN_WORD_CENTS / 100
_LONG_WORD_CHARS_PER_TOKEN = 8.3


def _latin_tokens(lengths: np.ndarray) -> float:
    if lengths.size == 0:
        return 0.0
    short = lengths < LATIN_WORD_CENTS.size
    return _latin_total(float(LATIN_WORD_CENTS[lengths[short]].sum()),
                        float(lengths[~short].sum()))


def _latin_total(cents, long_chars):
    """Short words' hundredths and long words' letters (floats or arrays) -> tokens."""
    return cents / 100 + long_chars / _LONG_WORD_CHARS_PER_TOKEN


def _count(pattern, text: str) -> int:
    # characters matched, computed in C: len before minus len after deleting them
    return len(text) - len(pattern.sub("", text))


def estimate_tokens(text: str) -> float:
    """The script-aware estimate for one text, unrounded (see the module docstring)."""
    global _patterns
    if _patterns is None:
        _patterns = _Patterns()
    p = _patterns
    if not text:
        return 0.0
    r = RATES
    total = (r["kanji"] * _count(p.han, text) + r["hiragana"] * _count(p.hira, text)
             + r["katakana"] * _count(p.kata, text) + r["fullwidth"] * _count(p.fw, text))
    total += _latin_tokens(np.fromiter(map(len, p.latin.findall(text)), dtype=np.int64))
    digit_runs = np.fromiter(map(len, p.digits.findall(text)), dtype=np.int64)
    total += float(((digit_runs + 2) // 3).sum())
    total += r["punct_run"] * len(p.punct.findall(text))
    total += r["newline_run"] * len(p.newline.findall(text))
    total += r["space_run"] * len(p.spaces.findall(text))
    rest = p.known.sub("", text)
    if rest:
        letters = "".join(p.other_letter.findall(rest))
        symbols_bytes = len(rest.encode("utf-8")) - len(letters.encode("utf-8"))
        total += (r["other_letter_byte"] * len(letters.encode("utf-8"))
                  + r["other_symbol_byte"] * symbols_bytes)
    return max(total, 1.0)


#: the texts :func:`estimate_many` counts without regular expressions are printable ASCII,
#: tab, line feed and carriage return (no other control character: the patterns' ``\s`` and
#: the "rest" differ on those); their bytes are classed by comparisons (below)
#: texts per block of :func:`estimate_many` (bounds its temporary arrays)
_ESTIMATE_BLOCK = 8192


def estimate_many(texts: list[str]) -> np.ndarray:
    """:func:`estimate_tokens` of every text (float64, unrounded; the same numbers).

    Plain ASCII texts (the usual corpus) are counted together with array operations on
    their bytes: runs of letters, digits and punctuation, and whitespace runs, assigned to
    their text; any other text goes through :func:`estimate_tokens`."""
    out = np.zeros(len(texts), dtype=np.float64)
    for lo in range(0, len(texts), _ESTIMATE_BLOCK):
        block = texts[lo:lo + _ESTIMATE_BLOCK]
        plain = [i for i, x in enumerate(block) if x.isascii()]
        if plain:
            values, ok = _estimate_ascii([block[i] for i in plain])
            idx = np.asarray(plain)
            out[lo + idx[ok]] = values[ok]
            plain_set = set(idx[ok].tolist())
        else:
            plain_set = set()
        for i, x in enumerate(block):
            if i not in plain_set:
                out[lo + i] = estimate_tokens(x)
    return out


def _runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends (exclusive) of the runs of True in ``mask``."""
    edges = np.diff(mask.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def _estimate_ascii(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(estimates, which texts were plain enough to be counted here) for ASCII texts."""
    n = len(texts)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])  # one NUL between texts
    buf = np.frombuffer("\0".join(texts).encode("ascii"), dtype=np.uint8)
    tab, breaks = buf == 9, (buf == 10) | (buf == 13)
    blank = (buf == 32) | tab  # [ \t]
    space = blank | breaks
    printable = (buf > 0x20) & (buf < 0x7f)
    bad = ~(printable | space)
    bad[starts[1:] - 1] = False  # the separators
    ok = np.ones(n, dtype=bool)
    if bad.any():
        ok[np.searchsorted(starts, np.flatnonzero(bad), side="right") - 1] = False

    def per_text(positions: np.ndarray, weights=None) -> np.ndarray:
        owner = np.searchsorted(starts, positions, side="right") - 1
        return np.bincount(owner, weights=weights, minlength=n).astype(np.float64)

    folded = buf | 0x20  # A-Z -> a-z
    letter = (folded >= 0x61) & (folded <= 0x7a)
    digit = (buf >= 0x30) & (buf <= 0x39)
    s, e = _runs(letter)
    run = e - s
    short = run < LATIN_WORD_CENTS.size
    cents = per_text(s[short], LATIN_WORD_CENTS[run[short]].astype(np.float64))
    long_chars = per_text(s[~short], run[~short].astype(np.float64))
    s, e = _runs(digit)
    digits = per_text(s, ((e - s + 2) // 3).astype(np.float64))
    s, _ = _runs(printable & ~letter & ~digit)  # [!-/:-@\[-`{-~]
    punct = per_text(s)
    s, e = _runs(space)
    has_break = np.zeros(len(s), dtype=bool)  # a line break is always inside a space run
    has_break[np.searchsorted(s, np.flatnonzero(breaks), side="right") - 1] = True
    newline = per_text(s[has_break])
    two = np.zeros(len(s), dtype=bool)
    inside = s + 1 < e
    two[inside] = blank[s[inside]] & blank[s[inside] + 1]
    spaces = per_text(s[two])
    r = RATES
    # the additions in estimate_tokens's order (its script counts are 0 here)
    total = _latin_total(cents, long_chars) + digits
    total = total + r["punct_run"] * punct
    total = total + r["newline_run"] * newline
    total = total + r["space_run"] * spaces
    total = np.maximum(total, 1.0)
    total[lengths == 0] = 0.0
    return total, ok


# -- the public counter ------------------------------------------------------------------------

def _as_list(texts: str | Iterable[str]) -> list[str]:
    if isinstance(texts, str):
        return [texts]
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"count_tokens: item {i} is {type(t).__name__}, not str")
    return out


def count_tokens(texts: str | Iterable[str], *, per_text: bool = False,
                 method: str = "auto") -> TokenCount:
    """Count the tokens of ``texts`` (one string or many).

    ``method``: ``"auto"`` (exact when cl100k loads offline, else the estimate),
    ``"tiktoken"`` (exact or a :class:`CostError` saying how to provide the file) or
    ``"estimate"``. Special-token strings such as ``<|endoftext|>`` count as plain text.
    """
    items = _as_list(texts)
    if method not in ("auto", "tiktoken", "estimate"):
        raise error(CostError, "cost.unknown_token_method", method=method)
    enc = None if method == "estimate" else load_cl100k()
    if enc is None and method == "tiktoken":
        raise error(CostError, "cost.no_tiktoken",
                    detail=tokenizer_status()["detail"])
    if enc is not None:
        counts = np.zeros(len(items), dtype=np.int64)
        for start in range(0, len(items), _BATCH):
            chunk = items[start:start + _BATCH]
            encoded = enc.encode_ordinary_batch(chunk, num_threads=max(1, os.cpu_count() or 1))
            counts[start:start + len(chunk)] = [len(t) for t in encoded]
        detail = str(_loaded[_cache_key()][1])
        m = METHOD_TIKTOKEN
    else:
        est = estimate_many(items)
        counts = np.rint(est).astype(np.int64)
        detail = ("asked for the estimate" if method == "estimate"
                  else str(_loaded[_cache_key()][1]))
        m = METHOD_ESTIMATE
    total = int(counts.sum())
    return TokenCount(total, m, tuple(int(c) for c in counts) if per_text else None, detail)
