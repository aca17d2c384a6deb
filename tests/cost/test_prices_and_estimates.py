"""Prices, currencies and estimates: hand-worked tables, the catalog's file checks, user
overrides under RAGDASH_HOME, and the article's mistakes made impossible."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from ragdash.cost import (
    PriceRow,
    actual_cost,
    count_tokens,
    delete_user_row,
    effective_rate,
    estimate_evaluation,
    format_money,
    load_catalog,
    load_settings,
    per_provider_costs,
    reset_settings,
    reset_user_catalog,
    save_user_rows,
    set_jpy_per_usd,
    to_jpy,
    upsert_user_row,
    usd_cost,
)
from ragdash.cost.catalog import DEFAULT_PRICES, parse_catalog, read_catalog_file
from ragdash.cost.currency import CostSettings
from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import CostError


@pytest.fixture
def catalog():
    return load_catalog()


def row(model, provider=None):
    return load_catalog().find(model, provider)


# -- the shipped defaults ------------------------------------------------------------------

DEFAULTS = [
    ("OpenAI", "text-embedding-3-small", 0.02, 0.01),
    ("OpenAI", "text-embedding-3-large", 0.13, 0.065),
    ("OpenAI", "text-embedding-ada-002", 0.10, 0.05),
    ("Azure OpenAI", "text-embedding-3-small", 0.02, None),
    ("Azure OpenAI", "text-embedding-3-large", 0.13, None),
    ("Azure OpenAI", "text-embedding-ada-002", 0.10, None),
    ("Cohere", "embed-v4.0", 0.12, None),
    ("Voyage AI", "voyage-3.5", 0.06, None),
    ("Voyage AI", "voyage-3.5-lite", 0.02, None),
    ("Voyage AI", "voyage-3-large", 0.18, None),
    ("Mistral", "mistral-embed", 0.10, None),
    ("Google", "gemini-embedding-001", 0.15, 0.075),
    ("Amazon Bedrock", "titan-embed-text-v2", 0.02, None),
    ("local", "bm25", 0.0, None),
]


@pytest.mark.parametrize(("provider", "model", "price", "batch"), DEFAULTS,
                         ids=[f"{p}/{m}" for p, m, _, _ in DEFAULTS])
def test_default_prices(provider, model, price, batch):
    r = row(model, provider)
    assert (r.usd_per_1m, r.batch_usd_per_1m, r.origin) == (price, batch, "default")


def test_every_default_row_has_source_and_date(catalog):
    for r in catalog:
        assert r.as_of and len(r.as_of) == 10
        if r.provider != "local":
            assert r.source_url.startswith("https://"), r.label
    jina = catalog.find("jina-embeddings-v3")
    assert jina.usd_per_1m > 0 and "approximate" in jina.notes


def test_defaults_are_provider_neutral():
    text = DEFAULT_PRICES.read_text(encoding="utf-8").casefold()
    assert "holysheep" not in text
    assert all(r.jpy_per_usd is None for r in load_catalog())  # no row's own rate by default


# -- conversions ---------------------------------------------------------------------------

@pytest.mark.parametrize(("tokens", "model", "batch", "usd"), [
    (1_000_000, "text-embedding-3-small", False, 0.02),
    (1_000_000, "text-embedding-3-small", True, 0.01),
    (1_000_000, "text-embedding-3-large", False, 0.13),
    (1_000_000, "text-embedding-3-large", True, 0.065),
    (1_000_000, "text-embedding-ada-002", False, 0.10),
    (500_000, "text-embedding-3-small", False, 0.01),
    (1, "text-embedding-3-small", False, 2e-8),
    (0, "voyage-3-large", False, 0.0),
    (2_000_000, "bm25", False, 0.0),
], ids=["3-small-1M", "3-small-batch-halves", "3-large-1M", "3-large-batch", "ada-1M",
        "half-million", "one-token", "zero", "bm25-free"])
def test_usd_cost(tokens, model, batch, usd):
    assert usd_cost(tokens, row(model), batch=batch) == pytest.approx(usd, rel=1e-12)


def test_batch_without_a_batch_price_is_an_error():
    with pytest.raises(CostError, match="no batch price"):
        usd_cost(10, row("voyage-3.5"), batch=True)


@pytest.mark.parametrize(("usd", "row_rate", "global_rate", "jpy"), [
    (1.0, None, None, 155.0),        # the default: 155 JPY per USD
    (0.02, None, None, 3.1),
    (1.0, None, 150.0, 150.0),       # edited global rate
    (1.0, 1.0, None, 1.0),           # a row billing ¥1 per $1 converts at 1
    (0.13, 1.0, 150.0, 0.13),        # the row's own rate wins over the global one
], ids=["default-155", "3-small-1M", "edited-rate", "yen-per-dollar-row", "row-beats-global"])
def test_jpy_conversion(usd, row_rate, global_rate, jpy):
    r = replace(row("text-embedding-3-small"), jpy_per_usd=row_rate)
    settings = CostSettings() if global_rate is None else CostSettings(global_rate)
    rate = effective_rate(r, settings)
    assert to_jpy(usd, rate) == pytest.approx(jpy)


def test_bad_rates():
    with pytest.raises(CostError):
        to_jpy(1.0, 0)
    with pytest.raises(CostError):
        CostSettings(-3)
    with pytest.raises(CostError, match="not a number"):
        set_jpy_per_usd("abc")


@pytest.mark.parametrize(("amount", "currency", "text"), [
    (0, "USD", "$0"),
    (0.02, "USD", "$0.02"),
    (0.000123, "USD", "$0.000123"),
    (0.0001234567, "USD", "$0.000123"),
    (0.0234, "USD", "$0.0234"),
    (1, "USD", "$1.00"),
    (1234.567, "USD", "$1,234.57"),
    (-0.5, "USD", "-$0.5"),
    (0, "JPY", "¥0"),
    (3.1, "JPY", "¥3.10"), (4.58, "JPY", "¥4.58"), (5.49, "JPY", "¥5.49"),
    (99.994, "JPY", "¥99.99"), (100.4, "JPY", "¥100"),
    (1234.5, "JPY", "¥1,234"),
    (155000, "JPY", "¥155,000"),
    (0.37, "JPY", "¥0.37"),
    (0.0019, "JPY", "¥0.0019"),
    (0.01234, "USD", "$0.0123"), (0.000012, "USD", "$0.000012"), (1.5, "JPY", "¥1.50"),
    (12345.6, "JPY", "¥12,346"),
    (None, "USD", "—"), (float("nan"), "JPY", "—"), (float("inf"), "USD", "$?"),
], ids=lambda v: str(v))
def test_format_money(amount, currency, text):
    assert format_money(amount, currency) == text


def test_format_money_is_the_one_money_format():
    import ragdash.present.charts as charts
    import ragdash.present.report as report

    # charts and the report use this very function; there is no second copy to drift
    assert charts.format_money is format_money and report.format_money is format_money
    with pytest.raises(CostError, match="USD or JPY"):
        format_money(2.0, "CHF")


# -- finding a model -----------------------------------------------------------------------

def test_find_is_forgiving_about_spelling_of_known_names(catalog):
    assert catalog.find("TEXT-EMBEDDING-3-SMALL").provider == "OpenAI"  # listed first
    assert catalog.find("text-embedding-3-small", "azure openai").provider == "Azure OpenAI"
    assert catalog.find("Azure OpenAI/text-embedding-3-large").provider == "Azure OpenAI"
    assert catalog.find("amazon.titan-embed-text-v2:0").model == "titan-embed-text-v2"
    assert catalog.find("models/gemini-embedding-001").provider == "Google"
    local = catalog.find("intfloat/multilingual-e5-small", provider="local")
    assert (local.model, local.usd_per_1m) == ("*", 0.0)
    assert catalog.find("", provider="local").model == "*"
    assert catalog.find("bm25", provider="local").model == "bm25"


def test_unknown_model_lists_close_matches(catalog):
    with pytest.raises(CostError) as err:
        catalog.find("text-embeding-3-smal")
    msg = str(err.value)
    assert 'unknown model "text-embeding-3-smal"' in msg
    assert "text-embedding-3-small (OpenAI, Azure OpenAI)" in msg
    assert "prices.user.csv" in msg  # says how to add it
    assert "\n" not in msg


def test_unknown_model_for_a_provider_and_unknown_provider(catalog):
    with pytest.raises(CostError, match=r"voyage-3\.5"):
        catalog.find("voyage-35", provider="Voyage AI")
    with pytest.raises(CostError, match=r'unknown provider "opnai"\. Did you mean OpenAI'):
        catalog.find("text-embedding-3-small", provider="opnai")
    with pytest.raises(CostError, match="no model given"):
        catalog.find("")


# -- catalog file checks -------------------------------------------------------------------

HEADER = "provider,model,usd_per_1m,batch_usd_per_1m,source_url,as_of,jpy_per_usd,notes\n"

BAD_FILES = [
    ("missing-price-column", "provider,model\nOpenAI,x\n", 1, "missing column usd_per_1m",
     "The first line must name the columns"),
    ("missing-two-columns", "provider,price\nOpenAI,1\n", 1, "missing columns model, usd_per_1m",
     "The first line must name the columns"),
    ("non-numeric-price", HEADER + "OpenAI,a,0.02,,,,,\nOpenAI,b,two cents,,,,,\n", 3,
     'usd_per_1m "two cents" is not a number', "plain number"),
    ("negative-price", HEADER + "OpenAI,a,-0.02,,,,,\n", 2, "cannot be negative", "≥ 0"),
    ("negative-batch", HEADER + "OpenAI,a,0.02,-1,,,,\n", 2, "batch_usd_per_1m is -1",
     "≥ 0"),
    ("empty-price", HEADER + "OpenAI,a,,,,,,\n", 2, "usd_per_1m is empty", "number"),
    ("duplicate", HEADER + "OpenAI,a,0.02,,,,,\nopenai,A,0.03,,,,,\n", 3,
     "listed twice (first on line 2)", "one row per provider and model"),
    ("empty-provider", HEADER + ",a,0.02,,,,,\n", 2, "provider is empty", "Name the provider"),
    ("empty-model", HEADER + "OpenAI,,0.02,,,,,\n", 2, "model is empty", "Name the model"),
    ("bad-date", HEADER + "OpenAI,a,0.02,,,last week,,\n", 2, 'as_of "last week"',
     "YYYY-MM-DD"),
    ("zero-rate", HEADER + "Relay,a,0.02,,,,0,\n", 2, "jpy_per_usd is 0", "yen per dollar"),
    ("bad-rate", HEADER + "Relay,a,0.02,,,,one,\n", 2, 'jpy_per_usd "one"', "yen per dollar"),
    ("extra-field", HEADER + "OpenAI,a,0.02,,,,,note, with comma\n", 2, "9 fields",
     "Quote a value"),
    ("empty-file", "", 1, "the file is empty", "first line must name the columns"),
    ("nan-price", HEADER + "OpenAI,a,nan,,,,,\n", 2, "usd_per_1m is nan", "finite"),
]


@pytest.mark.parametrize(("text", "line", "problem", "fix"),
                         [b[1:] for b in BAD_FILES], ids=[b[0] for b in BAD_FILES])
def test_catalog_file_validation(tmp_path, text, line, problem, fix):
    path = tmp_path / "prices.user.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CostError) as err:
        read_catalog_file(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}, line {line}: "), msg
    assert problem in msg and fix in msg
    assert (err.value.file, err.value.line) == (str(path), line)


def test_lenient_parts_of_the_file_format():
    rows = parse_catalog("\ufeff# comment line\nProvider,Model,USD_per_1M\n\n"
                         'Relay,"my, model",$0.02\n')
    assert [(r.provider, r.model, r.usd_per_1m) for r in rows] == [("Relay", "my, model", 0.02)]


def test_to_frame_for_the_app(catalog):
    frame = catalog.to_frame()
    assert len(frame) == len(catalog)
    assert list(frame.columns)[:3] == ["provider", "model", "usd_per_1m"]
    assert set(frame["origin"]) == {"default"}


def test_shipped_file_passes_its_own_checks():
    rows = read_catalog_file(DEFAULT_PRICES)
    assert len(rows) == len({r.key for r in rows}) >= 16


# -- user rows under RAGDASH_HOME -----------------------------------------------------------

def test_user_overrides_are_saved_under_home_and_reloaded(home):
    package_hash = hashlib.sha256(DEFAULT_PRICES.read_bytes()).hexdigest()
    edited = replace(row("text-embedding-3-small"), usd_per_1m=0.025, as_of="2027-01-01")
    relay = PriceRow("Some relay", "text-embedding-3-small", 0.02, jpy_per_usd=1.0,
                     notes="bills ¥1 per $1 of list price")
    upsert_user_row(edited)
    path = upsert_user_row(relay)
    assert path == home / "prices.user.csv" and path.exists()

    cat = load_catalog()  # a fresh load reads the file back
    mine = cat.find("text-embedding-3-small", "OpenAI")
    assert (mine.usd_per_1m, mine.as_of, mine.origin) == (0.025, "2027-01-01", "user")
    assert cat.find("text-embedding-3-small").provider == "OpenAI"  # still in default order
    r = cat.find("text-embedding-3-small", "some relay")
    assert (r.jpy_per_usd, r.origin) == (1.0, "user")
    assert len(cat) == len(load_catalog(include_user=False)) + 1
    assert hashlib.sha256(DEFAULT_PRICES.read_bytes()).hexdigest() == package_hash

    # the relay's yen figure uses its own rate, the others the global one
    costs = {(c.provider, c.model): c for c in per_provider_costs(1_000_000, cat)}
    assert costs[("Some relay", "text-embedding-3-small")].jpy == pytest.approx(0.02)
    assert costs[("OpenAI", "text-embedding-3-small")].jpy == pytest.approx(0.025 * 155)

    assert delete_user_row("OpenAI", "text-embedding-3-small")
    assert load_catalog().find("text-embedding-3-small", "OpenAI").usd_per_1m == 0.02
    assert reset_user_catalog() and not path.exists()
    with pytest.raises(CostError):
        load_catalog().find("text-embedding-3-small", "some relay")


def test_save_user_rows_refuses_duplicates_and_bad_values(home):
    r = PriceRow("Relay", "m", 0.01)
    with pytest.raises(CostError, match="given twice"):
        save_user_rows([r, replace(r, model="M")])
    with pytest.raises(CostError, match="cannot be negative"):
        PriceRow("Relay", "m", -1.0)
    assert not (home / "prices.user.csv").exists()


def test_a_broken_user_file_names_itself(home):
    home.mkdir(parents=True)
    (home / "prices.user.csv").write_text(HEADER + "OpenAI,x,free,,,,,\n", encoding="utf-8")
    with pytest.raises(CostError, match=r"prices\.user\.csv, line 2: usd_per_1m \"free\""):
        load_catalog()


def test_exchange_rate_is_saved_and_reloaded(home):
    assert load_settings().jpy_per_usd == 155.0
    set_jpy_per_usd(148.5)
    assert (home / "cost_settings.json").exists()
    assert load_settings().jpy_per_usd == 148.5
    assert reset_settings() and load_settings().jpy_per_usd == 155.0
    (home / "cost_settings.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CostError, match=r"cost_settings\.json"):
        load_settings()
    (home / "cost_settings.json").write_text('{"jpy_per_usd": -1}', encoding="utf-8")
    with pytest.raises(CostError, match="positive"):
        load_settings()


# -- estimates -----------------------------------------------------------------------------

def small_dataset() -> Dataset:
    docs = [Document("d1", "梅雨は東アジアの気象現象である。", title="梅雨"),
            Document("d2", "Retrieval-augmented generation retrieves documents first."),
            Document("d3", "BM25 is a ranking function.", title="BM25")]
    queries = [Query("q1", "梅雨とは何か？"), Query("q2", "What is RAG?"),
               Query("q3", "no judgements for me"), Query("q4", "BM25 とは")]
    qrels = {"q1": {"d1": 2.0}, "q2": {"d2": 1.0}, "q4": {"d3": 1.0}}
    return Dataset(docs, queries, qrels, name="small")


def exact(texts: list[str]) -> int:
    from ragdash.cost.tokens import load_cl100k

    enc = load_cl100k()
    return sum(len(enc.encode_ordinary(t)) for t in texts)


def test_tokens_are_exactly_what_evaluate_embeds():
    ds = small_dataset()
    est = estimate_evaluation(ds, "text-embedding-3-small")
    docs = ["梅雨 梅雨は東アジアの気象現象である。",
            "Retrieval-augmented generation retrieves documents first.",
            "BM25 BM25 is a ranking function."]
    queries = ["梅雨とは何か？", "What is RAG?", "BM25 とは"]  # q3 has no qrels
    assert est.tokens_documents == exact(docs)
    assert est.tokens_queries == exact(queries)
    assert est.tokens == exact(docs) + exact(queries)
    assert (est.n_documents, est.n_queries) == (3, 3)
    assert est.token_method == "tiktoken cl100k_base"
    limited = estimate_evaluation(ds, "text-embedding-3-small", limit_queries=2)
    assert limited.tokens_queries == exact(queries[:2])
    assert limited.tokens_documents == est.tokens_documents


def test_estimate_money_and_the_naive_contrast():
    ds = small_dataset()
    est = estimate_evaluation(ds, "text-embedding-3-large", settings=CostSettings(150.0))
    assert est.usd == pytest.approx(est.tokens * 0.13 / 1e6)
    assert est.jpy == pytest.approx(est.usd * 150.0)
    assert est.batch_usd == pytest.approx(est.usd / 2)
    # the article's way: every document again for each query, plus each query once
    assert est.naive_tokens == 3 * est.tokens_documents + est.tokens_queries
    assert est.naive_usd == pytest.approx(est.naive_tokens * 0.13 / 1e6)
    assert est.warm_cache_usd == 0.0 and est.due_usd == est.usd


def test_cached_tokens_and_predicate():
    ds = small_dataset()
    full = estimate_evaluation(ds, "text-embedding-3-small")
    part = estimate_evaluation(ds, "text-embedding-3-small", cached=100)
    assert part.due_tokens == max(full.tokens - 100, 0)
    everything = estimate_evaluation(ds, "text-embedding-3-small", cached=lambda t, role: True)
    assert (everything.due_tokens, everything.due_usd) == (0, 0.0)
    docs_only = estimate_evaluation(ds, "text-embedding-3-small",
                                    cached=lambda t, role: role == "document")
    assert docs_only.cached_tokens == full.tokens_documents
    assert docs_only.due_tokens == full.tokens_queries
    with pytest.raises(CostError):
        estimate_evaluation(ds, "text-embedding-3-small", cached=-1)


def test_per_provider_is_every_priced_row_cheapest_first(catalog):
    est = estimate_evaluation(small_dataset(), "voyage-3.5", catalog=catalog)
    listed = [(p.provider, p.model) for p in est.per_provider]
    assert sorted(listed) == sorted((r.provider, r.model) for r in catalog if r.model != "*")
    assert [p.usd for p in est.per_provider] == sorted(p.usd for p in est.per_provider)
    for p in est.per_provider:
        assert p.usd == pytest.approx(est.tokens * p.usd_per_1m / 1e6)
        assert p.jpy == pytest.approx(p.usd * 155.0)
    assert "Voyage AI counts with its own tokenizer" in " ".join(est.notes)


def test_estimate_without_the_cl100k_file_says_so(monkeypatch, tmp_path):
    import tempfile

    from ragdash.cost import tokens as tk

    monkeypatch.setattr(tk, "SHIPPED_CL100K", tmp_path / "none")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("RAGDASH_TIKTOKEN_DIR", raising=False)
    tk._loaded.clear()
    try:
        est = estimate_evaluation(small_dataset(), "text-embedding-3-small")
        assert est.token_method == "estimate (script-aware)"
        assert any("estimated" in n for n in est.notes)
    finally:
        tk._loaded.clear()


def test_the_articles_thousandfold_error_is_impossible():
    """1,000 documents of 500 characters and 100 queries cost cents, not dollars.

    The article priced text-embedding-3-large at $0.00013 per token (that is $130 per 1M,
    1,000× the list price) and counted 500 // 4 tokens per text with queries twice, giving
    $19.50 for this workload."""
    ja = ("梅雨は北海道と小笠原諸島を除く日本、朝鮮半島南部、中国の南部から長江流域にかけての"
          "沿海部でみられる気象現象で、5月から7月にかけて来る曇りや雨の多い期間のこと。") * 8
    en = ("Retrieval evaluation measures how often the relevant passage appears among the "
          "first results returned for a question, averaged over many questions. ") * 4
    docs = [Document(f"d{i}", (ja if i % 2 else en)[:500]) for i in range(1000)]
    queries = [Query(f"q{i}", "梅雨はいつ始まりますか？") for i in range(100)]
    ds = Dataset(docs, queries, {f"q{i}": {"d1": 1.0} for i in range(100)})
    est = estimate_evaluation(ds, "text-embedding-3-large")
    article_usd = (100 * (500 // 4) * 2 + 1000 * (500 // 4)) * 0.00013
    assert article_usd == pytest.approx(19.5)
    assert est.usd < 0.10                       # cents
    assert est.usd < article_usd / 100
    assert row("text-embedding-3-large").usd_per_1m / 1e6 == pytest.approx(1.3e-7)
    # and Japanese is not 4 characters per token
    assert est.tokens_documents > 1000 * 500 / 4


# -- actual cost after a run -----------------------------------------------------------------

def test_actual_cost_from_usage_and_fallbacks():
    ds = small_dataset()
    est = estimate_evaluation(ds, "text-embedding-3-small")
    a = actual_cost({"prompt_tokens": 1_000_000, "model": "text-embedding-3-small"},
                    estimate=est)
    assert (a.source, a.tokens, a.usd, a.jpy) == ("usage", 1_000_000, 0.02, pytest.approx(3.1))
    assert a.estimate_usd == est.usd

    silent = actual_cost({"prompt_tokens": None, "embedded_texts": 6}, estimate=est)
    assert (silent.source, silent.tokens) == ("estimate", est.tokens)
    assert "reported no token usage" in silent.note

    half = actual_cost({"embedded_texts": 3, "cached_texts": 3}, estimate=est)
    assert half.tokens == round(est.tokens / 2) and half.source == "estimate"

    zero_but_embedded = actual_cost({"prompt_tokens": 0, "embedded_texts": 6}, estimate=est)
    assert zero_but_embedded.source == "estimate"

    warm = actual_cost({"prompt_tokens": 0, "embedded_texts": 0, "cached_texts": 6},
                       estimate=est)
    assert (warm.source, warm.usd) == ("usage", 0.0)

    explicit = actual_cost({"prompt_tokens": 500_000}, model="text-embedding-3-large",
                        provider="OpenAI")
    assert explicit.usd == pytest.approx(0.065)

    with pytest.raises(CostError, match="no estimate"):
        actual_cost({"model": "text-embedding-3-small"})
    with pytest.raises(CostError, match="names no model"):
        actual_cost({"prompt_tokens": 5})


def test_count_tokens_is_reexported():
    assert count_tokens("hello world").tokens == 2
