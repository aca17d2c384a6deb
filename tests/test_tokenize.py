"""The CJK-aware tokenizer: hand-worked tokens for Japanese, English, mixed and odd input."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragdash.retrieval import tokenize
from ragdash.retrieval.tokenize import TOKENIZER_NAME, normalize, tokenize_one


def bag(tokens):
    return Counter(tokens)


@pytest.mark.parametrize("text,expected", [
    # kanji run: overlapping bigrams plus every kanji alone
    ("東京都", ["東京", "京都", "東", "京", "都"]),
    # a sentence: bigrams cross kanji/kana boundaries; punctuation splits and is dropped
    ("梅雨入りはいつ？", ["梅雨", "雨入", "入り", "りは", "はい", "いつ", "梅", "雨", "入"]),
    # katakana run, with the prolonged sound mark
    ("コーヒー", ["コー", "ーヒ", "ヒー"]),
    # a lone hiragana / katakana character is a unigram
    ("あ", ["あ"]),
    ("は 日 が", ["は", "日", "が"]),
    # half-width katakana are widened by NFKC
    ("ｶﾀｶﾅ", ["カタ", "タカ", "カナ"]),
    # English: words, lower-cased, split at anything that is not a letter or digit
    ("Don't STOP me-now, 3.14!", ["don", "t", "stop", "me", "now", "3", "14"]),
    ("snake_case", ["snake", "case"]),
    # full-width ASCII becomes ASCII
    ("ＡＢＣ１２３ Ｔｏｋｙｏ", ["abc123", "tokyo"]),
    # mixed Japanese and English: the Latin run is one word even between kanji
    ("東京abcタワー", ["東京", "abc", "タワ", "ワー", "東", "京"]),
    ("GPT-4は日本語", ["gpt", "4", "は日", "日本", "本語", "日", "本", "語"]),
    # other alphabets are words; Hangul is bigrammed like kana
    ("Straße Ελλάδα москва", ["straße", "ελλάδα", "москва"]),
    ("한국어 문장", ["한국", "국어", "문장"]),
    # emoji and symbols are dropped
    ("🎉 party 😀日本 ★", ["party", "日本", "日", "本"]),
    # circled and other compatibility digits become plain digits
    ("①番", ["1", "番"]),
    ("", []),
    ("   \n\t ", []),
    ("。、！？「」", []),
])
def test_tokens(text, expected):
    assert bag(tokenize_one(text)) == bag(expected)


def test_normalize_is_nfkc_then_lower():
    assert normalize("ＡＢＣ ｱｲｳ Ⅻ") == "abc アイウ xii"


def test_tokenize_many_keeps_order_and_handles_generators():
    texts = ["東京", "", "Hello world"]
    assert tokenize(iter(texts)) == [tokenize_one(t) for t in texts]
    assert TOKENIZER_NAME


def test_query_and_document_tokens_meet():
    # The same word written in a query and in a passage yields shared tokens whatever
    # surrounds it (the reason for bigrams: no word boundaries to rely on).
    doc = set(tokenize_one("日本で梅雨がないのは北海道です。"))
    query = set(tokenize_one("梅雨がない地域は？"))
    assert {"梅雨", "雨が", "がな", "ない"} <= doc & query


def test_fast_enough_for_large_corpora():
    # ~2 MB of Japanese text; the measured rate here is about 4 MB/s. Generous bound.
    text = "梅雨（つゆ、ばいう）は、北海道と小笠原諸島を除く日本、朝鮮半島南部で見られる。" * 40
    texts = [text] * 1000
    t = time.perf_counter()
    out = tokenize(texts)
    assert time.perf_counter() - t < 10
    assert len(out) == 1000 and len(out[0]) > 1000


def _full_path(text: str) -> list[str]:
    """The three-pass tokenizer without the ASCII shortcut (the reference)."""
    from ragdash.retrieval.tokenize import _EVEN, _ODD, _UNIGRAM

    text = normalize(text)
    return _EVEN.findall(text) + _ODD.findall(text) + _UNIGRAM.findall(text)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
@settings(max_examples=500, deadline=None)
def test_ascii_shortcut_gives_the_same_tokens_as_the_full_path(text):
    assert tokenize_one(text) == _full_path(text)


def test_ascii_shortcut_on_every_ascii_character():
    every = "".join(chr(i) for i in range(128))
    for text in (every, every[::-1], "Don't_stop 3.14 ABC_def\x00x\x7fy"):
        assert tokenize_one(text) == _full_path(text)
