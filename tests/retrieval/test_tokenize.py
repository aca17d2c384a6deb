"""The CJK-aware tokenizer: hand-worked tokens for Japanese, English, mixed and odd input."""

from __future__ import annotations

import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import TESTS

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


# -- code_texts: the corpus tokenized at array speed must give exactly the same tokens -------
def _reference_codes(texts):
    from ragdash.retrieval.bm25 import code_tokens

    return code_tokens(tokenize(texts))


def _assert_same_codes(texts):
    from ragdash.retrieval.tokenize import code_texts

    want, got = _reference_codes(texts), code_texts(texts)
    assert got[0] == want[0]  # the same distinct tokens, in the same first-seen order
    assert got[1].dtype == want[1].dtype and np.array_equal(got[1], want[1])
    assert got[2].dtype == want[2].dtype and np.array_equal(got[2], want[2])


# characters of every kind the tokenizer tells apart, and the ones that change under NFKC
_MIXED = ("abcXYZ019 _-.'\n\t" "éßİ\u0301ﬁⅫ①" "東京都梅雨入々〆〇𠀋" "あいうアイウーｶﾀﾅ" "한국어"
          "ＡＢＣ１２３" "😀★。、" "\u2028\u00a0\x00\x7f")


@given(st.lists(st.text(alphabet=_MIXED, max_size=40), max_size=12))
@settings(max_examples=400, deadline=None)
def test_code_texts_equals_the_tokenizer_on_mixed_text(texts):
    _assert_same_codes(texts)


@given(st.lists(st.text(max_size=60), max_size=8))
@settings(max_examples=300, deadline=None)
def test_code_texts_equals_the_tokenizer_on_any_unicode(texts):
    _assert_same_codes(texts)


@given(st.lists(st.lists(st.text(alphabet="ab0", min_size=1, max_size=40), max_size=8)
                .map(" ".join), max_size=10))
@settings(max_examples=300, deadline=None)
def test_code_texts_tells_long_words_apart(texts):
    # words of 1..40 characters over a tiny alphabet: many share their first 8 or 16
    # characters, so the packed keys of long tokens must still be exact
    _assert_same_codes(texts)


def test_code_texts_at_the_key_lengths():
    words = ["x" * n for n in range(1, 40)] + ["y" + "x" * n for n in range(1, 40)]
    ja = ["漢" * n for n in range(1, 9)] + ["ab東" * n for n in range(1, 6)]
    mixed = ["Tokyo Skytree は東京スカイツリー", "international 国際化 internationalization"]
    for texts in (words, ja, words + ja, mixed + words, ["", "", "a"], ["a", ""], [""]):
        _assert_same_codes(texts)
    from ragdash.retrieval.tokenize import code_texts

    distinct, codes, lengths = code_texts([])
    assert distinct == [] and len(codes) == 0 and len(lengths) == 0


def test_code_texts_on_every_code_point():
    # every character Python knows, in texts of 1,000 (the class table against the regexes)
    every = "".join(map(chr, range(0x110000)))
    texts = [every[i:i + 1000] for i in range(0, len(every), 1000)]
    _assert_same_codes(texts[:400] + texts[-60:])
    _assert_same_codes(texts[400:800])


def test_code_texts_on_jsquad():
    import json

    path = TESTS / "data" / "jsquad-valid" / "corpus.jsonl"
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    texts = [f"{d.get('title', '')} {d['text']}" for d in docs]
    _assert_same_codes(texts)
