"""The bundled samples: what the article wrote, a reproducible JSQuAD slice, metadata."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from article_sample import ARTICLE
from paths import JSQUAD, ROOT

from ragdash.errors import DatasetError
from ragdash.loaders import load_dataset, write_beir
from ragdash.samples import DEFAULT_SAMPLE, SAMPLES_DIR, list_samples, load_sample, sample_path
from ragdash.validation import validate

#: the article ships beside the project, not in it (it promotes a vendor); look where it lives
ARTICLE_TXT = next(
    (p for p in (base / "seed" / "rag-retrieval-metrics-article.txt"
                 for base in (ROOT.parent / "shared", Path("/work/shared"))) if p.exists()),
    ROOT.parent / "shared" / "seed" / "rag-retrieval-metrics-article.txt")


def article_generate_sample_dataset() -> dict:
    """Run the article's own generate_sample_dataset(), cut out of the article's text."""
    text = ARTICLE_TXT.read_text(encoding="utf-8")
    m = re.search(r"def generate_sample_dataset\(\) -> dict:\n.*?\n    return \{[^\n]*\}\n",
                  text, re.S)
    assert m, "the function is in the article"
    namespace: dict = {}
    exec(m.group(0), namespace)
    return namespace["generate_sample_dataset"]()


@pytest.mark.skipif(not ARTICLE_TXT.exists(), reason="the article is not in ../shared/seed")
def test_our_transcription_is_what_the_article_generates():
    assert article_generate_sample_dataset() == ARTICLE


def test_article_sample_is_what_the_article_generates():
    original = ARTICLE  # the article's generate_sample_dataset(), checked above when present
    assert len(original["corpus"]) == 10 and len(original["queries"]) == 3
    # What the article's script writes to rag_eval_dataset.json, read back:
    expected = json.loads(json.dumps(original, ensure_ascii=False))
    shipped = json.loads((SAMPLES_DIR / "article_ja.json").read_text(encoding="utf-8"))
    assert shipped == expected
    ds = load_sample("article-ja")
    assert [d.text for d in ds.documents] == original["corpus"]
    assert [q.text for q in ds.queries] == [q["query"] for q in original["queries"]]
    for i, q in enumerate(original["queries"]):
        assert ds.qrels[f"q{i}"] == {str(k): float(v) for k, v in q["relevance_scores"].items()}
    assert ds.qrels["q0"] == {"1": 0.9, "6": 1.0}


def test_article_sample_metadata_and_validation():
    ds = load_sample("article-ja")
    assert ds.name == "article-ja" and ds.source == "sample:article-ja"
    report = validate(ds, tokens=False)
    assert report.ok and not report.warnings
    assert report.get("fractional_grades") is not None


def test_list_samples():
    samples = list_samples()
    assert [s.name for s in samples] == ["jsquad-mini", "article-ja"]
    assert DEFAULT_SAMPLE == "jsquad-mini"
    for s in samples:
        assert s.title["en"] and s.title["ja"] and s.description["en"] and s.description["ja"]
        assert s.license and s.attribution
        assert sample_path(s.name).exists()
        d = s.to_dict()
        assert json.loads(json.dumps(d, ensure_ascii=False))["name"] == s.name
        ds = load_sample(s.name)
        assert (len(ds.documents), len(ds.queries)) == (s.documents, s.queries)
    assert samples[0].title_for("ja").startswith("JSQuAD") and samples[0].title_for("xx")


def test_unknown_sample():
    with pytest.raises(DatasetError, match=r"no sample named 'nope'.*jsquad-mini, article-ja"):
        load_sample("nope")


def test_jsquad_mini_is_small_clean_and_licensed():
    folder = sample_path("jsquad-mini")
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 500 * 1024
    ds = load_sample("jsquad-mini")
    assert 200 <= len(ds.documents) <= 300 and 250 <= len(ds.queries) <= 350
    assert len(ds.evaluated_queries()) == len(ds.queries)
    assert {g for r in ds.qrels.values() for g in r.values()} == {1.0, 2.0}
    assert all(d in ds.doc_index for r in ds.qrels.values() for d in r)
    report = validate(ds, tokens=False)
    assert report.ok and not report.warnings, report.lines()
    readme = (folder / "README.md").read_text(encoding="utf-8")
    license_text = (folder / "LICENSE").read_text(encoding="utf-8")
    for needle in ("JSQuAD", "JGLUE", "Yahoo Japan", "Wikipedia", "CC BY-SA 4.0", "slice"):
        assert needle in readme, needle
    assert "CC BY-SA 4.0" in license_text and "Wikipedia" in license_text
    assert f"{len(ds.documents)} documents" in readme and f"{len(ds.queries)} questions" in readme


def test_jsquad_mini_is_a_faithful_reproducible_slice(tmp_path: Path):
    full = load_dataset(JSQUAD)
    mini = load_sample("jsquad-mini")
    for d in mini.documents:
        assert full.document(d.id) == d
    for q in mini.queries:
        assert full.query(q.id) == q
        assert mini.qrels[q.id] == full.qrels[q.id]
    # Whole articles: every paragraph of each chosen article is in the slice.
    articles = {d.id.split("p")[0] for d in mini.documents}
    assert {d.id for d in full.documents if d.id.split("p")[0] in articles} == set(mini.doc_ids)
    # The script regenerates the shipped files byte for byte.
    spec = importlib.util.spec_from_file_location("make_jsquad_mini",
                                                  ROOT / "scripts" / "make_jsquad_mini.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "mini"
    assert module.main(["make", str(JSQUAD), str(out)]) == 0
    shipped = sample_path("jsquad-mini")
    for rel in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "README.md", "LICENSE"):
        assert (out / rel).read_bytes() == (shipped / rel).read_bytes(), rel


def test_write_beir_round_trip_of_the_samples(tmp_path: Path):
    for s in list_samples():
        ds = load_sample(s.name)
        again = load_dataset(write_beir(ds, tmp_path / s.name))
        assert again.fingerprint() == ds.fingerprint()
