"""The catalog's data files: read with tomllib, the parse cached and refreshed, plural rules as
data, a bad file named, every file shipped in the package."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from ragdash import i18n
from ragdash.i18n import loader

ROOT = Path(__file__).resolve().parents[2]

LANGS = '[en]\nname = "English"\nplural = { one = "n == 1" }\n\n[ja]\nname = "日本語"\n'


def _folder(tmp_path: Path, area: str) -> Path:
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "languages.toml").write_text(LANGS, encoding="utf-8")
    (folder / "a.toml").write_text(area, encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def _cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_a_file_is_read_as_the_catalog_says(tmp_path):
    folder = _folder(tmp_path, '["x.y"]\nen = "Hello {name}"\nja = "こんにちは {name}"\n')
    languages, areas = loader.read(folder)
    assert list(languages) == ["en", "ja"] and languages["ja"]["name"] == "日本語"
    assert areas == {"a": {"x.y": {"en": "Hello {name}", "ja": "こんにちは {name}"}}}


def test_the_parse_is_cached_and_a_changed_file_is_read_again(tmp_path, monkeypatch):
    folder = _folder(tmp_path, '["x.y"]\nen = "one"\nja = "一"\n')
    first = loader.read(folder)
    assert loader.cache_file(folder).is_file()
    assert loader.cache_file(folder).is_relative_to(tmp_path / "cache")

    def no_parse(path):
        raise AssertionError(f"parsed {path} although the cache is current")

    monkeypatch.setattr(loader, "_parse", no_parse)
    assert loader.read(folder) == first
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (folder / "a.toml").write_text('["x.y"]\nen = "one, changed"\nja = "一"\n', encoding="utf-8")
    assert loader.read(folder)[1]["a"]["x.y"]["en"] == "one, changed"
    (folder / "b.toml").write_text('["z"]\nen = "new file"\nja = "新"\n', encoding="utf-8")
    assert set(loader.read(folder)[1]) == {"a", "b"}


def test_a_cache_folder_that_cannot_be_written_only_costs_a_parse(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    folder = _folder(tmp_path, '["x.y"]\nen = "one"\nja = "一"\n')
    assert loader.read(folder)[1]["a"]["x.y"]["ja"] == "一"


def test_a_corrupt_cache_is_ignored(tmp_path):
    folder = _folder(tmp_path, '["x.y"]\nen = "one"\nja = "一"\n')
    loader.read(folder)
    loader.cache_file(folder).write_bytes(b"\x00garbage")
    assert loader.read(folder)[1]["a"]["x.y"]["en"] == "one"


@pytest.mark.parametrize("text, said", [
    ('["x.y"]\nen = "a\n', "a.toml"),                       # TOML syntax: the file is named
    ('"x.y" = "flat"\n', "is not a table"),
    ('["x.y"]\nen = 3\n', "must be a string"),
    ('["x.y"]\nen = { one = 1, other = "x" }\n', "plural forms must be strings"),
])
def test_a_bad_file_is_one_sentence_naming_it(tmp_path, text, said):
    folder = _folder(tmp_path, text)
    with pytest.raises(ValueError, match=said) as got:
        loader.read(folder)
    assert "a.toml" in str(got.value)


@pytest.mark.parametrize("rules, counts", [
    ({"one": "n == 1"}, {0: "other", 1: "one", 2: "other", 21: "other", 1.5: "other"}),
    ({}, {0: "other", 1: "other"}),
    ({"one": "n in (0, 1)"}, {0: "one", 1: "one", 2: "other"}),             # French
    ({"one": "n % 10 == 1 and n % 100 != 11",                                # Russian
      "few": "n % 10 in (2, 3, 4) and not n % 100 in (12, 13, 14)", "many": "n >= 0"},
     {1: "one", 21: "one", 11: "many", 3: "few", 13: "many", 5: "many"}),
])
def test_plural_rules_are_data(rules, counts):
    rule = loader.plural_rule(rules)
    assert {n: rule(n) for n in counts} == counts
    assert rule(None) == rule("many") == "other"


@pytest.mark.parametrize("rules", [{"one": "__import__('os')"}, {"one": "x == 1"},
                                   {"one": "n.real == 1"}, {"several": "n > 1"},
                                   {"other": "n > 1"}])
def test_a_plural_rule_is_only_arithmetic_on_n(rules):
    with pytest.raises(ValueError):
        loader.plural_rule(rules)


def test_a_plural_text_takes_the_form_of_n(monkeypatch):
    entry = {"en": {"one": "{n} query", "other": "{n} queries"}, "ja": "{n} クエリ"}
    monkeypatch.setitem(i18n.CATALOG, "test.queries", entry)
    assert [i18n.t("test.queries", "en", n=n) for n in (0, 1, 2)] == [
        "0 queries", "1 query", "2 queries"]
    assert i18n.t("test.queries", "ja", n=1) == "1 クエリ"
    assert i18n.check_catalog({"test.queries": entry}) == []
    assert i18n.placeholders(entry["en"]) == {"n"}


def test_check_catalog_names_plural_forms_a_language_does_not_have():
    problems = i18n.check_catalog({
        "a": {"en": {"other": "{n} x"}, "ja": "{n} x"},                  # en lacks one
        "b": {"en": {"one": "x", "other": "{n} xs"}, "ja": {"one": "x", "other": "{n} x"}},
        "c": {"en": {"one": "1 x", "other": "{n} xs"}, "ja": "{n} 件"},   # fine
        "d": {"en": {"one": "", "other": "{n} xs"}, "ja": "{n} 件"},     # an empty form
    })
    assert any(p.startswith("a: en has plural forms") for p in problems), problems
    assert any(p.startswith("b: ja has plural forms") for p in problems), problems
    assert not any(p.startswith("c:") for p in problems), problems
    assert any(p.startswith("d: no text for en") for p in problems), problems


def test_the_languages_are_declared_in_data():
    data = tomllib.loads((loader.CATALOG_DIR / "languages.toml").read_text(encoding="utf-8"))
    assert tuple(data) == i18n.LANGUAGES and i18n.DEFAULT_LANG == "en"
    assert {lang: d["name"] for lang, d in data.items()} == i18n.LANGUAGE_NAMES


def test_every_catalog_file_is_shipped_with_the_package():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = conf["tool"]["setuptools"]["package-data"]["ragdash"]
    files = sorted(loader.CATALOG_DIR.glob("*.toml"))
    assert len(files) >= 7
    for f in files:
        rel = f.relative_to(ROOT / "ragdash").as_posix()
        assert any(fnmatch.fnmatch(rel, g) for g in globs), rel


def test_no_module_in_the_i18n_package_holds_catalog_text():
    import ast

    for path in sorted((ROOT / "ragdash" / "i18n").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        texts = [n.value for n in ast.walk(tree)
                 if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        catalog_texts = {v for e in i18n.CATALOG.values() for value in e.values()
                         for v in i18n.forms(value).values() if len(v) > 12}
        assert not catalog_texts & set(texts), path
        assert "MESSAGES" not in {getattr(n, "id", None) for n in ast.walk(tree)}, path


def test_a_form_for_an_exact_count_comes_before_the_rule(monkeypatch):
    entry = {"en": {"one": "1 document (position 0)", "other": "{n} documents (0 to {last})"},
             "ja": {"=1": "1 件の文書(位置 0)", "other": "{n} 件の文書(位置 0 から {last})"}}
    monkeypatch.setitem(i18n.CATALOG, "test.has", entry)
    assert i18n.check_catalog({"test.has": entry}) == []
    assert i18n.t("test.has", "ja", n=1, last=0) == "1 件の文書(位置 0)"
    assert i18n.t("test.has", "ja", n=2, last=1) == "2 件の文書(位置 0 から 1)"
    assert i18n.t("test.has", "en", n=1, last=0) == "1 document (position 0)"


def test_a_missing_translation_of_a_plural_takes_the_english_forms(monkeypatch):
    entry = {"en": {"one": "{n} query", "other": "{n} queries"}, "ja": ""}
    monkeypatch.setitem(i18n.CATALOG, "test.q", entry)
    assert i18n.t("test.q", "ja", n=1) == "1 query"
    assert i18n.t("test.q", "ja", n=2) == "2 queries"


@pytest.mark.parametrize("key, params, one, other", [
    ("cli.cmp.left_out", {}, "Left out: 1 query missing", "Left out: 2 queries missing"),
    ("cli.cmp.header", {"metric": "m", "queries": "9", "conf": "95%", "resamples": "10",
                        "test": "t"}, "over 1 pair)", "over 2 pairs)"),
    ("msg.embed.tried", {}, "after 1 attempt", "after 2 attempts"),
    ("msg.article.has", {"last": 0}, "1 document (position 0)", "2 documents (positions 0"),
    ("msg.stats.too_few", {}, "have 1 query in common", "have 2 queries in common"),
    ("msg.fusion.tune_sides", {"tune": 0.5, "rest": 0.5}, "; 1 query cannot", "; 2 queries"),
    ("msg.cli.findings", {"dataset": "d"}, "1 finding in d", "2 findings in d"),
    ("msg.cli.verb_apply", {}, "applies", "apply"),
])
def test_the_texts_that_were_twin_keys_take_their_form_from_n(key, params, one, other):
    assert i18n.t(key, "en", n=1, **params).find(one) >= 0, i18n.t(key, "en", n=1, **params)
    assert i18n.t(key, "en", n=2, **params).find(other) >= 0, i18n.t(key, "en", n=2, **params)
    assert i18n.t(key, "ja", n=1, **params) and i18n.t(key, "ja", n=2, **params)
