"""AppTest: the Cost page with hand-edited or mistyped figures — a cost_settings.json whose
rate is text, a cleared price cell, prices and rates far outside any real range — each one
sentence, never a traceback, and nothing absurd saved."""

from __future__ import annotations

import json

import pytest
from app_support import frame_with, new_app, open_page, save_bm25_run

from ragdash.cost import load_catalog, load_settings


def errors(at) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


@pytest.mark.parametrize("value, said", [("155", 'jpy_per_usd is "155", not a number'),
                                         (1e30, "outside 0.01–10,000 yen per dollar")])
def test_a_hand_edited_rate_is_one_sentence_and_saving_a_rate_repairs_it(sample, home, value,
                                                                        said):
    home.mkdir(parents=True, exist_ok=True)
    (home / "cost_settings.json").write_text(json.dumps({"jpy_per_usd": value}))
    at = open_page(new_app(run=save_bm25_run(sample, name="bm25")), "cost")
    assert not at.exception, [e.value for e in at.exception]
    (error,) = errors(at)
    assert "cost_settings.json" in error and said in error, error
    table = frame_with(at, "provider", "cost", "cost_jpy")  # still priced, at the default
    assert table.iloc[0]["cost_jpy"] == pytest.approx(table.iloc[0]["cost"] * 155)
    at.number_input(key="cost_rate").set_value(150.0).run()
    at.button(key="cost_rate_save").click().run()
    assert not errors(at) and load_settings().jpy_per_usd == 150.0


def _save_added_row(sample, row: dict):
    at = open_page(new_app(run=save_bm25_run(sample, name="bm25")), "cost")
    at.session_state["cost_prices"] = {"edited_rows": {}, "deleted_rows": [],
                                       "added_rows": [row]}
    at.run()
    at.button(key="cost_prices_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_cleared_price_cell_is_called_missing(sample, home):
    at = _save_added_row(sample, {"provider": "Relay", "model": "m-3", "usd_per_1m": None})
    (error,) = errors(at)
    assert "Relay / m-3: usd_per_1m is missing" in error, error
    assert "-1" not in error and "negative" not in error
    assert not (home / "prices.user.csv").exists()


@pytest.mark.parametrize("row, said", [
    ({"usd_per_1m": 1e308}, "usd_per_1m is 1e+308: more than $10,000"),
    ({"usd_per_1m": 0.02, "jpy_per_usd": "1e30"},
     "jpy_per_usd is 1e+30: a rate must be between 0.01 and 10,000 yen per dollar"),
])
def test_absurd_prices_and_rates_are_refused_with_a_sentence(sample, home, row, said):
    at = _save_added_row(sample, {"provider": "Relay", "model": "m-4", **row})
    (error,) = errors(at)
    assert said in error, error
    assert not (home / "prices.user.csv").exists()
    assert not [r for r in load_catalog().rows if r.model == "m-4"]
