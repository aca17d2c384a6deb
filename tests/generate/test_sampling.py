"""Sampling (spread across sources and lengths, seeded) and reading a corpus, with bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragdash.dataset import Document
from ragdash.errors import DatasetError, RetrievalError
from ragdash.generate.corpus import Corpus, read_corpus
from ragdash.generate.sample import MIN_CHARS, allocate, sample_documents


def _five_files(sizes):
    sources = [f"file{i}.md" for i, size in enumerate(sizes) for _ in range(size)]
    rng = np.random.default_rng(0)
    lengths = rng.integers(MIN_CHARS, 5_000, len(sources))
    return sources, lengths


def test_no_file_beyond_its_share_plus_ten_percent():
    """Five files of very different sizes: each gives n/5 (a proportional draw would give the
    largest 73 of 100); with small files that run out, the rest is shared equally."""
    n = 100
    sources, lengths = _five_files([2000, 500, 120, 60, 30])
    got = sample_documents(sources, lengths, n, seed=1).per_source
    assert sum(got.values()) == n
    assert all(count <= n / 5 + 0.1 * n for count in got.values()), got
    assert set(got.values()) == {20}

    sources, lengths = _five_files([1000, 300, 60, 15, 5])
    got = sample_documents(sources, lengths, n, seed=1).per_source
    assert got["file3.md"] == 15 and got["file4.md"] == 5  # small files give all they have
    # the 80 left are shared by the three larger files: 27, 27, 26 in some order
    assert sorted(got[f"file{i}.md"] for i in range(3)) == [26, 27, 27]
    assert max(got.values()) <= (n - 20) / 3 + 0.1 * n


def test_folders_are_shared_before_files_and_per_source_caps():
    sources = ["a/x.md"] * 50 + ["a/y.md"] * 50 + ["b/z.md"] * 50
    lengths = np.full(len(sources), 100)
    got = sample_documents(sources, lengths, 20, seed=3).per_source
    assert got["b/z.md"] == 10 and got["a/x.md"] + got["a/y.md"] == 10
    capped = sample_documents(sources, lengths, 40, seed=3, per_source=5).per_source
    assert capped == {"a/x.md": 5, "a/y.md": 5, "b/z.md": 5}


def test_lengths_are_spread_within_a_source():
    lengths = np.arange(MIN_CHARS, MIN_CHARS + 1000)
    picked = sample_documents(["one"] * 1000, lengths, 10, seed=5).indices
    # one document from each tenth of the length order
    assert sorted((lengths[picked] - MIN_CHARS) // 100) == list(range(10))


def test_same_seed_same_sample():
    sources, lengths = _five_files([300, 200, 100, 50, 25])
    a = sample_documents(sources, lengths, 60, seed=1).indices
    b = sample_documents(sources, lengths, 60, seed=1).indices
    c = sample_documents(sources, lengths, 60, seed=2).indices
    assert a.tolist() == b.tolist()
    assert set(a.tolist()) != set(c.tolist())
    assert len(set(a.tolist())) == 60  # no document twice


def test_allocate_water_fills():
    rng = np.random.default_rng(0)
    got = allocate(10, [1, 100, 100], rng)
    assert got[0] == 1 and sorted(got[1:]) == [4, 5]
    assert allocate(500, [3, 4], rng) == [3, 4]


def test_a_folder_of_files_is_a_corpus_with_sources(tmp_path):
    (tmp_path / "guide").mkdir()
    long_text = " ".join(f"Sentence number {i} explains the setup of part {i}." for i in range(400))
    (tmp_path / "guide" / "setup.md").write_text(long_text, encoding="utf-8")
    (tmp_path / "faq.jsonl").write_text(
        "\n".join(json.dumps({"_id": str(i), "text": f"answer {i} about billing and plans",
                              "source": "billing" if i % 2 else "plans"})
                  for i in range(6)) + "\n", encoding="utf-8")
    (tmp_path / "table.csv").write_text("id,text\n0,first row of the table\n1,second row\n",
                                        encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text('{"_id": "q", "text": "not corpus"}\n',
                                            encoding="utf-8")
    corpus = read_corpus(tmp_path)
    counts = corpus.source_counts()
    assert counts["billing"] == 3 and counts["plans"] == 3  # the source column
    assert counts["table.csv"] == 2
    assert counts["guide/setup.md"] > 5  # the long text cut into passages
    ids = [d.id for d in corpus.documents]
    assert "guide/setup.md#0" in ids
    assert "table.csv:0" in ids and "faq.jsonl:0" in ids  # "0" was in two files
    assert not any("not corpus" in d.text for d in corpus.documents)


def test_bad_corpora_are_one_sentence(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError) as err:
        read_corpus(tmp_path / "empty")
    assert "no document" in str(err.value) and "\n" not in str(err.value)
    one = tmp_path / "one.jsonl"
    one.write_text('{"_id": "a", "text": "the only document there is"}\n', encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        read_corpus(one)
    assert "single document" in str(err.value)


def test_tiny_and_huge_passages_are_bounded():
    """3-character passages are not asked about (counted); a 50,000-character one shows one
    chunk within the passage budget."""
    from ragdash.cost.tokens import count_tokens
    from ragdash.generate.job import GenerateJob
    from ragdash.generate.prompt import build_prompt

    docs = [Document(f"t{i}", "abc") for i in range(3)]
    docs += [Document(f"d{i}", f"document {i} talks about topic {i} at some length")
             for i in range(4)]
    sentence = "節では、制度の運用について詳しく説明します。"
    huge = "".join(f"第{i}{sentence}" for i in range(2_000))[:50_000]
    docs.append(Document("huge", huge, "長い文書"))
    corpus = Corpus(docs, ["s"] * len(docs))
    job = GenerateJob(corpus, endpoint="http://127.0.0.1:9/v1", model="m", n=10, seed=1,
                      passage_tokens=256)
    est = job.estimate()
    assert est["too_short"] == 3 and est["sampled"] == 5 and est["chunked"] == 1
    assert "t0" not in job.doc_ids
    shown = job.passages[job.doc_ids.index("huge")]
    assert shown.language == "ja" and shown.chunks > 100
    assert count_tokens(shown.text.split("\n", 1)[1]).tokens <= 256
    assert "日本語で" in build_prompt(shown, "question")
    with pytest.raises(RetrievalError):
        GenerateJob(corpus, endpoint="http://127.0.0.1:9/v1", model="m", copy_share=0)
