"""Script-aware tokenization for BM25: Japanese (no spaces) and English (spaces) alike.

The choice, and why. Japanese has no spaces, and a morphological analyzer (MeCab, Sudachi)
needs a dictionary of tens of megabytes that cannot be downloaded at run time. Lucene's
``CJKAnalyzer`` answers this without a dictionary, and so do we, in the same way:

1. NFKC normalization (full-width ASCII ``ＡＢＣ１２３`` becomes ``ABC123``, half-width katakana
   becomes full width), then lower case.
2. Runs of letters and digits outside the CJK scripts (Latin, Greek, Cyrillic, digits, ...)
   become one token each, split at anything that is not a letter or digit (``don't`` gives
   ``don`` and ``t``; ``3.14`` gives ``3`` and ``14``). No stemming; no stopwords.
3. Runs of CJK characters (kanji, hiragana, katakana including ``ー``, Hangul) become
   overlapping character bigrams, ``東京都`` → ``東京`` ``京都``; a run of a single character
   becomes that character. Bigrams cross script boundaries inside a run (``梅雨入り`` →
   ``梅雨`` ``雨入`` ``入り``), as Lucene's ``CJKBigramFilter`` does.
4. Every kanji is also a token of its own (``東`` ``京`` ``都``): one-character words (山, 川,
   年) are common in Japanese and a bigram alone misses them when they stand next to kana.
5. Everything else (punctuation, symbols, emoji, spaces) separates tokens and is dropped.

Measured on jsquad-valid (1,145 passages, 4,442 questions, BM25 k1=1.2 b=0.75, title + text):
nDCG@10 0.882 with these tokens; 0.873 with bigrams alone (Lucene's CJKAnalyzer), 0.876 with
hiragana-only bigrams dropped, 0.745 with bigrams that stop at script boundaries, 0.738 with
character unigrams alone. Tokens come in groups (words and even bigrams, odd bigrams, kanji);
BM25 does not care about order.

The work is three ``re.findall`` passes with plain character classes per text, so it runs at
C speed: about 5 s for 100,000 jsquad-sized passages (18M characters) here. An ASCII-only
text takes one pass (NFKC changes no ASCII character and the CJK passes cannot match).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

#: the name stored in a run's configuration; change it when tokens change
TOKENIZER_NAME = "cjk-bigram-kanji-v1"

# Characters written without spaces between words: bigrammed.
_CJK = (
    "\u3005\u3006\u3007"          # 々 〆 〇
    "\u3041-\u309f"               # hiragana
    "\u30a0-\u30ff"               # katakana (with ー and ヶ)
    "\u31f0-\u31ff"               # katakana phonetic extensions
    "\u3400-\u4dbf"               # CJK extension A
    "\u4e00-\u9fff"               # CJK unified ideographs
    "\uf900-\ufaff"               # CJK compatibility ideographs
    "\u1100-\u11ff\u3130-\u318f"  # Hangul jamo
    "\uac00-\ud7af"               # Hangul syllables
    "\U00020000-\U0003134f"       # CJK extensions B-G
)

# Ideographs (kanji): also indexed one by one.
_KANJI = (
    "\u3005\u3006\u3007"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)

# Three passes of plain character classes (much faster than one pattern with lookarounds):
#   words, the bigrams starting at even offsets of each CJK run, lone kana / Hangul characters;
#   the bigrams starting at odd offsets; every kanji.
_EVEN = re.compile(
    rf"[^\W_{_CJK}]+"
    rf"|[{_CJK}]{{2}}"
    rf"|(?<![{_CJK}])(?![{_KANJI}])[{_CJK}](?![{_CJK}])"
)
_ODD = re.compile(rf"(?<=[{_CJK}])[{_CJK}]{{2}}")
_UNIGRAM = re.compile(rf"[{_KANJI}]")


def normalize(text: str) -> str:
    """NFKC, then lower case."""
    return unicodedata.normalize("NFKC", text).lower()


#: ASCII text: NFKC leaves it as it is and no CJK pass can match, so the words pass alone,
#: with its character class spelled for ASCII, gives the same tokens (tested) in half the time
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def tokenize_one(text: str) -> list[str]:
    """Tokens of one text (see the module docstring)."""
    if not text:
        return []
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    text = normalize(text)
    return _EVEN.findall(text) + _ODD.findall(text) + _UNIGRAM.findall(text)


def tokenize(texts: Iterable[str]) -> list[list[str]]:
    """Tokens of each text, in order."""
    return [tokenize_one(t) for t in texts]
