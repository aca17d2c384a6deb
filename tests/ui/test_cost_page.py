"""AppTest: the Cost page — token count and method, providers side by side in USD and JPY,
the exchange rate and price table saved under RAGDASH_HOME, estimate against actual."""

from __future__ import annotations

import json

import numpy as np
import pytest
from app_support import array, chart, frame_with, new_app, open_page, save_bm25_run, texts

from ragdash.cost import count_tokens, evaluation_texts, load_catalog, load_settings
from ragdash.run import Run
from ragdash.runs import get_store


def _cost_page(run_id):
    return open_page(new_app(run=run_id), "cost")


def test_tokens_and_providers_side_by_side(sample):
    at = _cost_page(save_bm25_run(sample, name="bm25"))
    docs, queries = evaluation_texts(sample)
    tokens = count_tokens(docs).tokens + count_tokens(queries).tokens
    assert any(m.value == f"{tokens:,}" for m in at.metric)
    assert "cl100k" in texts(at)
    table = frame_with(at, "provider", "model", "cost", "cost_jpy")
    assert len(table) == len(load_catalog().priced_rows())
    small = table[(table["provider"] == "OpenAI") & (table["model"] == "text-embedding-3-small")]
    assert small.iloc[0]["cost"] == pytest.approx(tokens * 0.02 / 1e6)
    assert small.iloc[0]["cost_jpy"] == pytest.approx(tokens * 0.02 / 1e6 * 155)
    usd = array(chart(at, "cost_bars")["data"][0]["x"])
    at.radio(key="w:rd_currency").set_value("JPY").run()
    jpy = array(chart(at, "cost_bars")["data"][0]["x"])
    np.testing.assert_allclose(jpy, usd * 155)
    assert chart(at, "cost_bars")["data"][0]["textangle"] == 0  # labels level, not on end
    # the choice outlives a visit to another page
    open_page(at, "results")
    open_page(at, "cost")
    assert at.radio(key="w:rd_currency").value == "JPY"


def test_the_exchange_rate_is_saved_under_ragdash_home(sample, home):
    at = _cost_page(save_bm25_run(sample, name="bm25"))
    at.number_input(key="cost_rate").set_value(150.0).run()
    at.button(key="cost_rate_save").click().run()
    assert (home / "cost_settings.json").exists()
    assert load_settings().jpy_per_usd == 150.0
    small = frame_with(at, "provider", "cost_jpy")
    assert small.iloc[0]["cost_jpy"] == pytest.approx(small.iloc[0]["cost"] * 150)


def test_price_edits_and_a_relay_row_are_saved(sample, home):
    at = _cost_page(save_bm25_run(sample, name="bm25"))
    frame = load_catalog().to_frame()
    row = int(frame.index[(frame["provider"] == "OpenAI")
                          & (frame["model"] == "text-embedding-3-large")][0])
    at.session_state["cost_prices"] = {
        "edited_rows": {row: {"usd_per_1m": 0.1}},
        "added_rows": [{"provider": "Relay", "model": "text-embedding-3-small",
                        "usd_per_1m": 0.02, "jpy_per_usd": 1.0}],
        "deleted_rows": []}
    at.run()
    at.button(key="cost_prices_save").click().run()
    assert not at.error, [e.value for e in at.error]
    catalog = load_catalog()
    assert catalog.find("text-embedding-3-large", "OpenAI").usd_per_1m == 0.1
    relay = catalog.find("text-embedding-3-small", "Relay")
    assert relay.jpy_per_usd == 1.0 and relay.origin == "user"
    assert (home / "prices.user.csv").read_text(encoding="utf-8").count("\n") == 3
    at.button(key="cost_prices_reset").click().run()
    assert not (home / "prices.user.csv").exists()


def test_past_runs_estimate_against_actual_and_cost_against_quality(sample):
    a = save_bm25_run(sample, name="bm25 a")
    save_bm25_run(sample, name="bm25 b", k1=0.5)
    at = _cost_page(a)
    past = frame_with(at, "name", "estimated", "actual")
    assert set(past["name"]) == {"bm25 a", "bm25 b"}
    assert list(past["actual"]) == ["$0", "$0"]  # BM25 is free
    assert list(past["estimated"]) == ["$0", "$0"]
    # nothing was paid: no chart of zeros, a sentence instead
    assert [c.key for c in at.get("plotly_chart")] == ["cost_bars"]
    assert "Nothing to chart" in texts(at)
    # a run with an embeddings API: estimate and actual (priced from the API's usage)
    store = get_store()
    store.save(Run.of_ranking(sample, store.load(a).ranking, name="api run", retriever="openai",
                              model="text-embedding-3-small",
                              usage={"prompt_tokens": 50_000, "requests": 3},
                              cost={"estimated_usd": 0.0012, "provider": "OpenAI",
                                    "model": "text-embedding-3-small"}))
    at.run()
    past = frame_with(at, "name", "estimated", "actual").set_index("name")
    assert past.loc["api run", "actual"] == "$0.001"  # 50,000 tokens at $0.02 per 1M
    assert past.loc["api run", "actual_jpy"] == "¥0.15"  # at 155 JPY/USD (0.155)
    assert past.loc["api run", "tokens"] == "50,000" and past.loc["bm25 a", "tokens"] == "0"
    assert "None" not in past.to_string() and not past.isna().any().any()
    bars = chart(at, "cost_past_bars")["data"]
    assert [array(b["x"]).tolist() for b in bars] == [[0.0012], [pytest.approx(0.001)]]
    quality = chart(at, "cost_quality")
    assert len(array(quality["data"][0]["y"])) == 3
    # money ticks people read ($0.0005), not plotly's SI prefixes (500µ)
    ticks = quality["layout"]["xaxis"]["ticktext"]
    assert ticks[0] == "$0" and all(x.startswith("$") and "µ" not in x for x in ticks)


def test_cost_against_quality_shows_one_dataset_at_a_time(sample):
    from ragdash.samples import load_sample

    other = load_sample("article-ja")
    store = get_store()
    paid = {"estimated_usd": 0.001, "provider": "OpenAI", "model": "text-embedding-3-small"}
    for ds, tag in ((sample, "mini"), (other, "article")):
        ref = save_bm25_run(ds, name=f"bm25 {tag}")
        for i in range(2):
            store.save(Run.of_ranking(ds, store.load(ref).ranking, name=f"api {tag} {i}",
                                      retriever="openai", model="text-embedding-3-small",
                                      config={"dimensions": 256 * (i + 1)},
                                      usage={"prompt_tokens": 10_000 * (i + 1)}, cost=paid))
    at = _cost_page(ref)  # a run of article-ja: that dataset is current
    points = chart(at, "cost_quality")["data"][0]
    names = {s.id: s.name for s in store.list()}
    assert sorted(names[i] for i in points["customdata"]) == ["api article 0", "api article 1",
                                                               "bm25 article"]
    pick = at.selectbox(key="w:rd_cost_quality_dataset")
    pick.set_value(sample.fingerprint()).run()
    points = chart(at, "cost_quality")["data"][0]
    assert sorted(names[i] for i in points["customdata"]) == ["api mini 0", "api mini 1",
                                                               "bm25 mini"]


def test_without_a_dataset_the_price_table_still_works():
    at = open_page(new_app(), "cost")
    assert "Load a dataset" in texts(at)
    assert frame_with(at, "provider", "model", "usd_per_1m") is not None
    # every column of the editable table has a reader-facing label, in Japanese too
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    editor = next(d for d in at.dataframe if "usd_per_1m" in d.value.columns)
    labels = {k: v.get("label") for k, v in json.loads(editor.proto.columns).items()}
    assert set(editor.value.columns) <= {k for k, v in labels.items() if v}
    assert labels["provider"] == "プロバイダー" and labels["as_of"] == "価格の時点"
    assert labels["notes"] == "備考"


def test_no_table_on_the_cost_page_shows_none(sample, home):
    """Unset figures (a batch price, a row's own rate) show as "—", never a literal "None"."""
    at = _cost_page(save_bm25_run(sample, name="bm25"))
    providers = frame_with(at, "provider", "batch_usd")
    assert set(providers["batch_usd"]) >= {"—"} and providers["batch_usd"].notna().all()
    prices = frame_with(at, "provider", "batch_usd_per_1m", "jpy_per_usd")
    assert not prices.isna().any().any()
    assert "" in set(prices["batch_usd_per_1m"]) and "" in set(prices["jpy_per_usd"])
    # blank stays unset, a number is saved, a word is refused in a sentence
    at.session_state["cost_prices"] = {
        "edited_rows": {}, "deleted_rows": [],
        "added_rows": [{"provider": "Relay", "model": "m-1", "usd_per_1m": 0.02,
                        "batch_usd_per_1m": "", "jpy_per_usd": "1"}]}
    at.run()
    at.button(key="cost_prices_save").click().run()
    assert not at.error, [e.value for e in at.error]
    relay = load_catalog().find("m-1", "Relay")
    assert relay.jpy_per_usd == 1.0 and relay.batch_usd_per_1m is None
    at = _cost_page(save_bm25_run(sample, name="bm25 again"))
    at.session_state["cost_prices"] = {
        "edited_rows": {}, "deleted_rows": [],
        "added_rows": [{"provider": "Relay", "model": "m-2", "usd_per_1m": 0.02,
                        "jpy_per_usd": "cheap"}]}
    at.run()
    at.button(key="cost_prices_save").click().run()
    assert at.error, [s.value for s in at.success]
    assert "is not a number" in at.error[0].value.replace("\\", "")


def test_a_bad_price_row_is_refused_in_the_pages_language(sample, home):
    at = new_app(run=save_bm25_run(sample, name="bm25")).run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    open_page(at, "cost")
    at.session_state["cost_prices"] = {
        "edited_rows": {}, "deleted_rows": [],
        "added_rows": [{"provider": "Relay", "model": "m-3", "usd_per_1m": -0.5}]}
    at.run()
    at.button(key="cost_prices_save").click().run()
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "Relay / m-3: usd_per_1m が -0.5 です。価格は負にできません" in error, error
    assert "cannot be negative" not in error
