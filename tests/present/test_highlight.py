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
