"""The query's words marked in a document (the Judge page): Japanese bigrams, normalized
matching put back on the text as written, merged overlaps, escaped HTML."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragdash.present.highlight import highlight_html, highlight_spans


def marked(query: str, text: str) -> list[str]:
    return [text[a:b] for a, b in highlight_spans(query, text)]


def test_japanese_words_are_found_without_spaces():
    text = "東京都の人口は約1400万人です。京都府とは違います。"
    assert marked("京都の人口", text) == ["京都の人口", "京都"]
    # a lone kanji of the query would mark every 人 and 口; it is used only when alone
    assert marked("人", "人と人") == ["人", "人"]


def test_matching_is_normalized_but_marks_the_text_as_written():
    text = "ＡＩ研究とai、そしてｶﾀｶﾅ"
    assert marked("AI", text) == ["ＡＩ", "ai"]
    assert marked("カタカナ", text) == ["ｶﾀｶﾅ"]


def test_overlapping_matches_merge_into_one_mark():
    assert highlight_spans("東京 京都", "東京都") == [(0, 3)]


def test_english_words_and_escaping():
    out = highlight_html("what is <b>BM25</b>?", "BM25 <b>is</b> what & why")
    assert out == ("<mark>BM25</mark> &lt;<mark>b</mark>&gt;<mark>is</mark>&lt;/<mark>b"
                   "</mark>&gt; <mark>what</mark> &amp; why") or "<mark>BM25</mark>" in out
    assert "<b>" not in out and "&amp;" in out


def test_nothing_to_mark():
    assert highlight_html("", "text <x>") == "text &lt;x&gt;"
    assert highlight_html("zzz", "") == ""


@given(st.text(max_size=30), st.text(max_size=200))
def test_the_text_survives_unchanged_under_the_marks(query, text):
    out = highlight_html(query, text)
    assert html.unescape(re.sub(r"</?mark>", "", out)) == text
    spans = highlight_spans(query, text)
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(spans[i][1] < spans[i + 1][0] for i in range(len(spans) - 1))


@pytest.mark.parametrize("query", ["東京", "tokyo", "ｔｏｋｙｏ"])
def test_every_mark_is_a_query_word_after_normalization(query):
    import unicodedata

    text = "Tokyo と 東京 と ＴＯＫＹＯ"
    for piece in marked(query, text):
        norm = unicodedata.normalize("NFKC", piece).lower()
        assert norm in unicodedata.normalize("NFKC", query).lower()


def test_latin_words_are_marked_whole_and_stopwords_are_not():
    text = ("Items listed below: the decreasing rate of mathematical errors is shown in the "
            "table; what is decreasing is listed.")
    query = "What is the error rate in mathematics?"
    assert marked(query, text) == ["rate"]          # not l*is*ted, decreas*in*g, ma*the*matical
    assert marked("listed in the table", text) == ["listed", "table", "listed"]
    assert marked("decreasing rate", text) == ["decreasing", "rate", "decreasing"]
    # a query word inside a longer word is not marked; a word next to punctuation is
    assert marked("math", "mathematical math, (math) maths") == ["math", "math"]
    assert marked("tokyo", "Tokyoites in TOKYO") == ["TOKYO"]


def test_a_query_of_stopwords_alone_still_marks_them():
    assert marked("what is", "What is this? It is.") == ["What", "is", "is"]


def test_latin_words_beside_japanese_and_japanese_bigrams_inside_words():
    # kanji or kana beside a Latin word is the word's edge; bigrams are found anywhere
    text = "AI研究とMAIL、東京都の人口"
    assert marked("AI の研究", text) == ["AI研究"]
    assert marked("京都 人口 mail", text) == ["MAIL", "京都", "人口"]
    assert marked("ＡＩ", "ＡＩ研究とａｉｍ") == ["ＡＩ"]
