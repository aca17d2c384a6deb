"""Rerank prices: the shipped rows (source and date on each), the user's rows over them, the
formulas, and one-sentence errors for a bad file."""

from __future__ import annotations

import pytest

from ragdash.cost.rerank import (
    find_rerank_price,
    load_rerank_prices,
    parse_rerank_prices,
    rerank_cost,
)
from ragdash.errors import CostError


def test_every_shipped_row_has_a_source_and_a_date_and_one_unit():
    rows = load_rerank_prices()
    assert {r.provider for r in rows} >= {"Cohere", "Voyage AI", "Jina AI", "local"}
    for r in rows:
        assert r.as_of
        assert (r.usd_per_1k_search_units is None) != (r.usd_per_1m_tokens is None)
        if r.provider != "local":
            assert r.source_url.startswith("https://")


def test_formulas_search_units_and_tokens():
    cohere = find_rerank_price("rerank-v3.5", "Cohere")
    assert cohere.unit == "search_units"
    assert rerank_cost(1500, cohere)["usd"] == pytest.approx(1500 * cohere.usd_per_1k_search_units
                                                             / 1000)
    voyage = find_rerank_price("rerank-2.5", "Voyage AI")
    assert voyage.unit == "tokens"
    assert rerank_cost(2_000_000, voyage)["usd"] == pytest.approx(2 * voyage.usd_per_1m_tokens)
    assert find_rerank_price("anything", "local").usd(10**6) == 0
    assert not rerank_cost(3, find_rerank_price("nope-model", "Cohere"))["priced"]


def test_user_rows_win(tmp_path):
    user = tmp_path / "r.csv"
    user.write_text("provider,model,usd_per_1k_search_units,usd_per_1m_tokens\n"
                    "Cohere,rerank-v3.5,1.5,\n", encoding="utf-8")
    rows = load_rerank_prices(user)
    assert find_rerank_price("rerank-v3.5", "Cohere", rows).usd_per_1k_search_units == 1.5


@pytest.mark.parametrize(("text", "words"), [
    ("provider,model\nA,b\n", "missing column"),
    ("provider,model,usd_per_1k_search_units,usd_per_1m_tokens\nA,b,1,2\n", "exactly one"),
    ("provider,model,usd_per_1k_search_units,usd_per_1m_tokens\nA,b,abc,\n", "not a number"),
])
def test_bad_price_files_name_the_line(text, words):
    with pytest.raises(CostError, match=words) as info:
        parse_rerank_prices(text, file="p.csv")
    assert "p.csv" in str(info.value)
