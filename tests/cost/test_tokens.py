"""Token counting: exact cl100k_base offline, the script-aware estimate, and how the file is found.

Oracles: token counts published in OpenAI's cookbook ("How to count tokens with tiktoken"),
and tiktoken's own ``get_encoding("cl100k_base")`` (built by tiktoken itself from a cache
folder holding the file, so no network) compared id for id with ours on real text.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from paths import JSQUAD

from ragdash.cost import tokens as tk
from ragdash.cost.tokens import METHOD_ESTIMATE, METHOD_TIKTOKEN, count_tokens, estimate_tokens
from ragdash.errors import CostError

SHIPPED = tk.SHIPPED_CL100K


def jsquad_texts() -> tuple[list[str], list[str]]:
    docs = [json.loads(line) for line in (JSQUAD / "corpus.jsonl").open(encoding="utf-8")]
    queries = [json.loads(line) for line in (JSQUAD / "queries.jsonl").open(encoding="utf-8")]
    return ([f"{d['title']} {d['text']}" if d.get("title") else d["text"] for d in docs],
            [q["text"] for q in queries])


def english_texts() -> list[str]:
    """The Python language reference topics that ship with Python (pydoc_data): ~465k
    characters of English technical prose, held out from the estimate's calibration."""
    import pydoc_data.topics

    return list(pydoc_data.topics.topics.values())


@pytest.fixture(autouse=True)
def _fresh_loader():
    tk._loaded.clear()
    yield
    tk._loaded.clear()


# -- exact counts --------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("tiktoken is great!", 6),
    ("お誕生日おめでとう", 9),
    ("antidisestablishmentarianism", 6),
    ("2 + 2 = 4", 7),
    ("hello world", 2),
    ("", 0),
], ids=["english", "japanese", "long-word", "arithmetic", "hello", "empty"])
def test_exact_counts_match_the_cookbook(text, expected):
    tc = count_tokens(text, method="tiktoken")
    assert tc.method == METHOD_TIKTOKEN and tc.exact
    assert tc.tokens == expected


def test_exact_token_ids_for_a_known_string():
    enc = tk.load_cl100k()
    assert enc.encode_ordinary("hello world") == [15339, 1917]
    assert enc.encode_ordinary("お誕生日おめでとう") == [
        33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699]


def test_shipped_file_is_the_published_cl100k():
    data = tk.SHIPPED_CL100K.read_bytes()
    assert hashlib.sha256(data).hexdigest() == tk.CL100K_SHA256
    # the hash tiktoken itself expects for this encoding
    src = Path(__import__("tiktoken_ext.openai_public", fromlist=["x"]).__file__).read_text()
    assert tk.CL100K_SHA256 in src
    assert "cl100k_base" in tk.tokenizer_status()["detail"]


def test_same_ids_as_tiktokens_own_encoding(tmp_path, monkeypatch):
    """tiktoken builds cl100k_base itself from a cache folder (no download): ids must match."""
    import tiktoken
    import tiktoken.registry

    shutil.copy(tk.SHIPPED_CL100K, tmp_path / tk.CL100K_CACHE_NAME)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tiktoken.load, "read_file",
                        lambda path: pytest.fail(f"tiktoken tried to download {path}"))
    tiktoken.registry.ENCODINGS.pop("cl100k_base", None)
    try:
        theirs = tiktoken.get_encoding("cl100k_base")
        ours = tk.load_cl100k()
        sample = [*english_texts()[:20], "", "<|endoftext|> plain", "  spaced\n\n\ttabs  "]
        if (JSQUAD / "corpus.jsonl").exists():
            docs, queries = jsquad_texts()
            sample += docs[:200] + queries[:200]
        for text in sample:
            assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)
        total = count_tokens(sample, method="tiktoken").tokens
        assert total == sum(len(t) for t in theirs.encode_ordinary_batch(sample))
    finally:
        tiktoken.registry.ENCODINGS.pop("cl100k_base", None)


def test_per_text_in_order_and_sums_to_total():
    texts = ["梅雨", "hello world", "", "2 + 2 = 4"]
    for method in ("tiktoken", "estimate"):
        tc = count_tokens(texts, per_text=True, method=method)
        assert len(tc.per_text) == 4 and sum(tc.per_text) == tc.tokens
        assert tc.per_text[2] == 0
    assert count_tokens(texts, per_text=True, method="tiktoken").per_text[1] == 2


def test_special_token_text_counts_as_plain_text():
    tc = count_tokens("<|endoftext|>", method="tiktoken")
    assert tc.tokens > 1  # not the single special token, and no error


def test_bad_inputs():
    assert count_tokens([]).tokens == 0
    with pytest.raises(TypeError, match="item 1 is int"):
        count_tokens(["a", 3])
    with pytest.raises(CostError, match="unknown token counting method"):
        count_tokens("a", method="words")


# -- finding the file ----------------------------------------------------------------------

def _hide_shipped_and_default(monkeypatch, tmp_path):
    monkeypatch.setattr(tk, "SHIPPED_CL100K", tmp_path / "absent" / tk.CL100K_FILENAME)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("RAGDASH_TIKTOKEN_DIR", raising=False)


def test_no_file_anywhere_falls_back_to_the_estimate(monkeypatch, tmp_path):
    _hide_shipped_and_default(monkeypatch, tmp_path)
    tc = count_tokens(["梅雨は東アジアの気象現象である。"])
    assert tc.method == METHOD_ESTIMATE and not tc.exact
    assert "RAGDASH_TIKTOKEN_DIR" in tc.detail
    with pytest.raises(CostError, match="RAGDASH_TIKTOKEN_DIR"):
        count_tokens("x", method="tiktoken")


@pytest.mark.parametrize("env", ["RAGDASH_TIKTOKEN_DIR", "TIKTOKEN_CACHE_DIR"])
@pytest.mark.parametrize("name", [tk.CL100K_FILENAME, tk.CL100K_CACHE_NAME])
def test_user_folder_is_honoured(monkeypatch, tmp_path, env, name):
    _hide_shipped_and_default(monkeypatch, tmp_path)
    folder = tmp_path / "enc"
    folder.mkdir()
    shutil.copy(SHIPPED, folder / name)
    monkeypatch.setenv(env, str(folder))
    tc = count_tokens("tiktoken is great!")
    assert (tc.method, tc.tokens) == (METHOD_TIKTOKEN, 6)
    assert str(folder) in tc.detail


def test_a_file_with_the_wrong_hash_is_skipped(monkeypatch, tmp_path):
    folder = tmp_path / "enc"
    folder.mkdir()
    (folder / tk.CL100K_FILENAME).write_bytes(b"aGVsbG8= 0\n")
    monkeypatch.setenv("RAGDASH_TIKTOKEN_DIR", str(folder))
    path, notes = tk.find_cl100k_file()
    assert path == tk.SHIPPED_CL100K  # fell through to the shipped copy
    assert any("sha256 differs" in n for n in notes)
    assert count_tokens("hello world").tokens == 2


# -- the estimate --------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("", 0.0),
    ("日本", 2 * tk.RATES["kanji"]),
    ("ひらがな", 4 * tk.RATES["hiragana"]),
    ("カタカナ", 4 * tk.RATES["katakana"]),
    ("「」", 2 * tk.RATES["fullwidth"]),
    ("the cat sat", 3 * tk.LATIN_WORD_TOKENS[3]),
    ("1234567", 3.0),                              # 123 456 7: one token per 1-3 digits
    ("a, b", 2.0 + tk.RATES["punct_run"]),
    ("x\n\ny", 2.0 + tk.RATES["newline_run"]),
    ("a" * 40, 40 / 8.3),                          # long words ≈ len / 8.3
    ("😀", 4 * tk.RATES["other_symbol_byte"]),
], ids=["empty", "kanji", "hiragana", "katakana", "fullwidth", "words", "digits", "punct",
        "newline", "long-word", "emoji"])
def test_estimate_hand_worked(text, expected):
    assert estimate_tokens(text) == pytest.approx(max(expected, 1.0) if text else 0.0)


def _rel_error(texts: list[str]) -> float:
    exact = count_tokens(texts, method="tiktoken").tokens
    est = count_tokens(texts, method="estimate").tokens
    return est / exact - 1


def test_estimate_within_10_percent_on_jsquad_documents():
    docs, _ = jsquad_texts()
    assert abs(_rel_error(docs)) < 0.10


def test_estimate_within_10_percent_on_jsquad_queries():
    _, queries = jsquad_texts()
    assert abs(_rel_error(queries)) < 0.10


def test_estimate_within_10_percent_on_english_prose():
    texts = english_texts()
    assert sum(map(len, texts)) > 300_000  # a sizable corpus, not a toy
    assert abs(_rel_error(texts)) < 0.10


def test_four_characters_per_token_is_far_off_for_japanese():
    """The article's rule (1 token = 4 characters) undercounts Japanese about 4-5×."""
    docs, _ = jsquad_texts()
    exact = count_tokens(docs, method="tiktoken").tokens
    assert sum(map(len, docs)) / 4 < exact / 3


def test_estimate_many_gives_estimate_tokens_numbers_for_every_kind_of_text():
    """The batch estimate (array operations on plain ASCII texts, the regular expressions
    for the rest) against the one-text estimate, number for number."""
    import random

    from ragdash.cost.tokens import estimate_many

    rng = random.Random(7)
    plain = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 \t\r\n!/:@[`{~.,-"
    hostile = plain + "\x00\x0b\x0c\x1c\x1f\x7fé\u00a0\u3000日本ひらカタ「」😀"
    texts = ["", " ", "\n", "a", "  x", "a  b", "a \n  b", " \t\nq", "x\r\n\t y", "a" * 40,
             "1234567", "the cat sat", "東京 tower 2024", "\x0cform feed", "tab\tthen  two"]
    for alphabet in (plain, hostile):
        texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
                  for _ in range(600)]
    got = estimate_many(texts)
    assert got.tolist() == [estimate_tokens(x) for x in texts]
    assert count_tokens(texts, method="estimate", per_text=True).per_text == tuple(
        round(estimate_tokens(x)) for x in texts)
