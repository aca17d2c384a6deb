"""A third language is a column in the catalog and a table in languages.toml, no code change:
a copy of the package whose catalog gains ``fr`` offers it everywhere the languages are read
(lookup, plurals, a message's punctuation, the command line's --lang)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FRENCH = '''
[fr]
name = "Français"
plural = { one = "n == 0 or n == 1" }
list_separator = " ; "
sentence_end = " !"
sentence_gap = " "
capitalize = true
currency = "USD"
'''


def _french(value):
    """A stand-in translation: the English marked, placeholders kept."""
    if isinstance(value, dict):
        return {"one": "FR " + value.get("one", value["other"]), "other": "FR " + value["other"]}
    return "FR " + value


def _toml_line(lang: str, value) -> list[str]:
    if isinstance(value, dict):
        return [f"{lang}.{form} = {json.dumps(text, ensure_ascii=False)}"
                for form, text in value.items()]
    return [f"{lang} = {json.dumps(value, ensure_ascii=False)}"]


@pytest.fixture(scope="module")
def with_french(tmp_path_factory) -> Path:
    """A copy of ragdash whose catalog has a French column on every key (appended to each
    table's lines, as a translator would)."""
    root = tmp_path_factory.mktemp("fr")
    shutil.copytree(ROOT / "ragdash", root / "ragdash",
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    (root / "ragdash" / "data").symlink_to(ROOT / "ragdash" / "data")
    catalog = root / "ragdash" / "i18n" / "catalog"
    with (catalog / "languages.toml").open("a", encoding="utf-8") as f:
        f.write(FRENCH)
    for path in sorted(catalog.glob("*.toml")):
        if path.name == "languages.toml":
            continue
        entries = tomllib.loads(path.read_text(encoding="utf-8"))
        lines = path.read_text(encoding="utf-8").split("\n")
        out, key = [], None
        for line in [*lines, ""]:
            header = re.fullmatch(r"\[(\".*\")\]", line)
            if key is not None and not line.strip():  # the end of key's table
                out += _toml_line("fr", _french(entries[key]["en"]))
                key = None
            if header:
                key = json.loads(header.group(1))
            out.append(line)
        path.write_text("\n".join(out), encoding="utf-8")
        assert set(tomllib.loads(path.read_text(encoding="utf-8"))) == set(entries)
    return root


def _run(root: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root), "XDG_CACHE_HOME": str(root / "cache")}
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "ragdash", *args]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_a_column_and_a_languages_table_make_a_language(with_french):
    code = '''
import json
from ragdash import i18n
from ragdash.errors import DatasetError
from ragdash.i18n import dataset_error, message, t
exc = dataset_error("load.unknown_type", file="x.bin", ext=".bin")
print(json.dumps({
    "file": i18n.__file__,
    "languages": list(i18n.LANGUAGES), "names": i18n.LANGUAGE_NAMES,
    "problems": i18n.check_catalog(),
    "k_axis": t("chart.k_axis", "fr-FR"),
    "zero": t("cli.cmp.left_out", "fr", n=0), "two": t("cli.cmp.left_out", "fr", n=2),
    "message": message(exc, "fr"),
    "currency": i18n.convention("fr", "currency"),
}))
'''
    got = _run(with_french, code=code)
    assert got.returncode == 0, got.stderr
    said = json.loads(got.stdout)
    assert said["file"].startswith(str(with_french))  # the copy, not the repository
    assert said["languages"] == ["en", "ja", "fr"] and said["names"]["fr"] == "Français"
    assert said["problems"] == []
    assert said["k_axis"] == "FR K (number of top results)"
    assert said["zero"] == "FR Left out: 0 query missing from the qrels or from some run."
    assert said["two"] == "FR Left out: 2 queries missing from the qrels or from some run."
    assert said["message"].startswith("x.bin: FR cannot tell what this file is")
    assert said["message"].endswith(" !") and " FR " in said["message"]
    assert said["currency"] == "USD"


def test_the_command_line_speaks_it(with_french, tmp_path):
    bad = tmp_path / "a.json"
    bad.write_text('{"corpus": ["x"], "queries": [{"query": "q", "relevant_docs": [5]}]}',
                   encoding="utf-8")
    got = _run(with_french, "--lang", "fr", "evaluate", str(bad), "--retriever", "bm25")
    assert got.returncode == 2, got.stderr
    assert got.stderr.startswith("FR error: ") and "FR 1 document (position 0)" in got.stderr
