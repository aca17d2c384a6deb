"""Token estimates, batch plans and truncation (ragdash.embeddings.batching)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragdash.embeddings.batching import estimate_tokens, plan_batches, truncate_to_tokens


@pytest.mark.parametrize("text, expected", [
    ("", 1),
    ("abc", 2),                 # 1 + ceil(3 / 3)
    ("hello world", 5),         # 1 + ceil(11 / 3)
    ("梅雨", 4),                 # 1 + 2 x 1.5
    ("つゆ", 3),                 # kana: 1 each
    ("梅雨（つゆ）", 8),          # 1 + 3 (kanji) + 2 (kana) + 2 (full-width brackets)
    ("😀", 3),                   # outside the BMP: 2
    ("東京 tower", 6),           # 1 + ceil(3 + 6/3)
])
def test_estimate_table(text, expected):
    assert estimate_tokens(text) == expected


def test_estimate_errs_high_against_exact_cl100k_counts():
    """On Japanese and English text the batch budget's estimate is above tiktoken's exact
    cl100k count (ragdash.cost ships the encoding file), so a budget under the server's limit
    keeps requests under it."""
    from ragdash.cost import count_tokens

    texts = ["梅雨（つゆ、ばいう）は、北海道と小笠原諸島を除く日本、朝鮮半島南部、中国の南部から"
             "長江流域にかけての沿海部、および台湾など、東アジアの広範囲においてみられる特有の"
             "気象現象で、5月から7月にかけて来る曇りや雨の多い期間のこと。",
             "Retrieval-augmented generation pairs a retriever with a language model; the "
             "retriever's recall at K bounds what the model can cite.",
             "東京タワーは何メートルですか"]
    exact = count_tokens(texts, per_text=True, method="tiktoken").per_text
    for text, n in zip(texts, exact):
        assert estimate_tokens(text) >= n, text


@pytest.mark.parametrize("tokens, size, budget, expected", [
    ([], 4, 100, []),
    ([1] * 10, 4, 100, [(0, 4), (4, 8), (8, 10)]),
    ([10] * 6, 100, 25, [(0, 2), (2, 4), (4, 6)]),
    ([50, 1, 1], 10, 20, [(0, 1), (1, 3)]),          # one big text goes alone
    ([1, 50, 1], 10, 20, [(0, 1), (1, 2), (2, 3)]),
    ([5], 1, 1, [(0, 1)]),
])
def test_plan_table(tokens, size, budget, expected):
    assert [(r.start, r.stop) for r in plan_batches(tokens, size, budget)] == expected


@given(tokens=st.lists(st.integers(1, 50), max_size=60), size=st.integers(1, 10),
       budget=st.integers(1, 120))
def test_plan_properties(tokens, size, budget):
    plan = list(plan_batches(iter(tokens), size, budget))
    assert [i for r in plan for i in r] == list(range(len(tokens)))   # each text once, in order
    for r in plan:
        assert 1 <= len(r) <= size
        assert len(r) == 1 or sum(tokens[i] for i in r) <= budget


def test_plan_is_lazy():
    seen = []

    def estimates():
        for t in [1] * 100:
            seen.append(t)
            yield t

    first = next(plan_batches(estimates(), 4, 100))
    assert first == range(0, 4) and len(seen) == 5


@given(text=st.text(max_size=200), limit=st.integers(0, 100))
def test_truncate_gives_the_longest_prefix_within_the_limit(text, limit):
    cut = truncate_to_tokens(text, limit)
    assert text.startswith(cut)
    if cut != text:
        assert estimate_tokens(cut) <= limit or cut == ""
        assert estimate_tokens(text[: len(cut) + 1]) > limit
