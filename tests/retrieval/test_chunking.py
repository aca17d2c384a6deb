"""Chunking: spans by cl100k tokens (and by the estimate), at sentence ends, never inside a
word; MaxP / FirstP / mean of the top 2 folded back to documents against a brute-force fold;
``evaluate --chunk-size``; vectors of identical chunks reused across sizes (counted on the fake
embeddings server)."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from paths import ROOT

from ragdash.cli import main
from ragdash.cost import count_tokens
from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import RetrievalError
from ragdash.retrieval import BM25Retriever
from ragdash.retrieval.chunking import (
    ChunkedRetriever,
    check_chunking,
    chunk_dataset,
    chunk_spans,
    chunk_text,
    fold,
    matched_chunk,
)

SAMPLE = str(ROOT / "ragdash" / "data" / "samples" / "jsquad-mini")
WORD = re.compile(r"[0-9A-Za-z]")

EN = ("The quick brown fox jumps over the lazy dog. Retrieval systems rank documents by "
      "relevance! Does chunking help long documents? Sometimes it does, sometimes not. ") * 12
JA = ("東京は日本の首都である。人口は約千四百万人で、世界有数の大都市だ。"
      "江戸時代には江戸と呼ばれていた！明治維新の後に東京と改められた？") * 10


def _assert_good_spans(text, spans, size, overlap):
    assert spans, "no chunk"
    for s, e, n in spans:
        assert 0 <= s < e <= len(text)
        assert n <= size
        assert not (0 < s < len(text) and WORD.match(text[s - 1]) and WORD.match(text[s])), \
            text[s - 5:s + 5]
        assert not (0 < e < len(text) and WORD.match(text[e - 1]) and WORD.match(text[e])), \
            text[e - 5:e + 5]
    # every character is in some chunk (apart from spaces between them)
    covered = np.zeros(len(text), dtype=bool)
    for s, e, _ in spans:
        covered[s:e] = True
    assert all(covered[i] or text[i].isspace() for i in range(len(text)))
    starts = [s for s, _, _ in spans]
    assert starts == sorted(set(starts))
    if overlap:  # each chunk starts before the previous one ended
        assert all(spans[i + 1][0] < spans[i][1] for i in range(len(spans) - 1))


@pytest.mark.parametrize("text", [EN, JA, EN[:400] + JA[:300]])
@pytest.mark.parametrize("size, overlap", [(16, 0), (32, 8), (100, 30)])
def test_spans_hold_at_most_size_tokens_never_cut_a_word_and_cover_the_text(text, size,
                                                                           overlap):
    spans, method = chunk_spans(text, size, overlap)
    assert method == "tiktoken cl100k_base"
    _assert_good_spans(text, spans, size, overlap)
    # the token figure is cl100k's count of the span (within a token at each end)
    for s, e, n in spans:
        assert abs(count_tokens(text[s:e]).tokens - n) <= 2


@pytest.mark.parametrize("text", [EN, JA])
def test_chunks_end_at_sentence_ends(text):
    spans, _ = chunk_spans(text, 40, 0)
    assert len(spans) > 3
    for s, e, _ in spans[:-1]:
        assert text[s:e].rstrip()[-1] in "。！？.!?", text[s:e][-10:]


@pytest.mark.parametrize("text", [EN, JA])
def test_the_overlap_repeats_whole_sentences_when_one_starts_inside_it(text):
    # sentences here are 8-21 tokens: an overlap of 30 always holds the start of one
    spans, _ = chunk_spans(text, 64, 30)
    assert len(spans) > 3
    for (_, e0, _), (s1, _, _) in itertools.pairwise(spans):
        assert s1 < e0  # overlapping
        before = text[:s1].rstrip()
        assert before[-1] in "。！？.!?", text[s1 - 10:s1 + 10]


def test_the_estimate_cuts_the_same_way_when_cl100k_is_missing(monkeypatch):
    monkeypatch.setattr("ragdash.cost.tokens.load_cl100k", lambda: None)
    for text in (EN, JA):
        spans, method = chunk_spans(text, 32, 8)
        assert method == "estimate (script-aware)"
        _assert_good_spans(text, spans, 32, 8)


def test_a_short_text_is_one_chunk_and_a_long_word_is_cut_at_the_limit():
    assert chunk_spans("short text.", 16)[0] == [(0, 11, 3)]
    word = "x" * 2000
    spans, _ = chunk_spans(word, 16, 0)
    assert len(spans) > 1 and "".join(word[s:e] for s, e, _ in spans) == word


@pytest.mark.parametrize("size, overlap, aggregate, words", [
    (8, 0, "max", "too small"), (15, 0, "max", "16 tokens or more"),
    (64, 64, "max", "smaller than the chunk size"), (64, -1, "max", "at least 0"),
    (64, 8, "best", "unknown chunk aggregate"), (64.5, 0, "max", "whole numbers"),
])
def test_bad_chunk_settings_are_one_sentence(size, overlap, aggregate, words):
    with pytest.raises(RetrievalError, match=words) as exc:
        check_chunking(size, overlap, aggregate)
    assert "\n" not in str(exc.value)


def _brute_fold(chunks, cs, doc_ids, aggregate):
    out = {}
    for q, docs, scores in chunks.items():
        per = {}
        for c, s in zip(docs, scores):
            per.setdefault(int(cs.doc[int(c[1:])]), []).append(float(s))
        low = float(min(scores)) if len(scores) else 0.0
        counts = np.bincount(cs.doc, minlength=len(doc_ids))
        res = {}
        for d, ss in per.items():
            if aggregate == "mean2" and counts[d] > 1:
                res[doc_ids[d]] = (ss[0] + (ss[1] if len(ss) > 1 else low)) / 2
            else:
                res[doc_ids[d]] = ss[0]
        out[q] = res
    return out


@pytest.fixture(scope="module")
def long_docs():
    docs = [Document(f"d{i}", (EN if i % 2 else JA)[i * 7:] + f" topic{i} 話題{i}。",
                     title=f"t{i}") for i in range(12)]
    queries = [Query(f"q{i}", f"topic{i} fox 東京 {i}") for i in range(12)]
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(12)}
    return Dataset(docs, queries, qrels, name="long")


@pytest.mark.parametrize("aggregate", ["max", "mean2"])
def test_fold_matches_a_brute_force_fold(long_docs, aggregate):
    cs = chunk_dataset(long_docs, 32, 8)
    assert cs.most_per_document > 2
    chunks = BM25Retriever().rank(cs.dataset, long_docs.queries, cs.count)
    doc_ids = [d.id for d in long_docs.documents]
    folded, rows = fold(chunks, cs, doc_ids, aggregate=aggregate)
    want = _brute_fold(chunks, cs, doc_ids, aggregate)
    got = folded.to_dict()
    assert set(got) == set(want)
    for q in want:
        assert got[q] == pytest.approx(want[q], abs=1e-12)
    assert len(rows) == len(folded.doc_ids)
    # the matched chunk is the best chunk of that document for that query
    c_docs = {q: list(d) for q, d, _ in chunks.items()}
    for (q, docs, _), lo in zip(folded.items(), folded.offsets[:-1]):
        for i, d in enumerate(docs[:5]):
            best = next(c for c in c_docs[q] if doc_ids[cs.doc[int(c[1:])]] == d)
            assert rows[lo + i] == cs.number[int(best[1:])]


def test_first_indexes_only_first_chunks_and_the_run_keeps_which_chunk_matched(long_docs):
    first = ChunkedRetriever(BM25Retriever(), size=32, overlap=8, aggregate="first")
    assert first.chunks(long_docs).count == len(long_docs.documents)
    from ragdash.pipeline import run_evaluation

    run = run_evaluation(long_docs, ChunkedRetriever(BM25Retriever(), size=32, overlap=8),
                         kmax=5)
    info = run.resources["chunks"]
    assert info["chunks"] > len(long_docs.documents) and info["aggregate"] == "max"
    assert run.config["chunking"] == {"size": 32, "overlap": 8, "aggregate": "max"}
    q = run.query_ids[0]
    docs, _ = run.ranking.get(q)
    n = matched_chunk(run.resources, q, 1)
    text = chunk_text(long_docs, docs[0], n, 32, 8)
    assert text and text in long_docs.documents[long_docs.doc_index[docs[0]]].text
    assert matched_chunk(run.resources, q, 99) is None and matched_chunk({}, q, 1) is None


def _json(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_evaluate_chunk_options(capsys):
    plain = _json(capsys, ["evaluate", SAMPLE, "--k", "1,10", "--format", "json"])
    whole = _json(capsys, ["evaluate", SAMPLE, "--k", "1,10", "--chunk-size", "100000",
                           "--format", "json"])
    # chunks bigger than every document: one chunk each, the same ranking
    assert whole["chunks"] == plain["dataset"]["documents"]
    assert whole["metrics"] == pytest.approx(plain["metrics"], abs=1e-12)
    cut = _json(capsys, ["evaluate", SAMPLE, "--k", "1,10", "--chunk-size", "64",
                         "--chunk-overlap", "8", "--aggregate", "mean2", "--format", "json"])
    assert cut["chunks"] > whole["chunks"] and cut["metrics"] != plain["metrics"]
    assert cut["chunking"]["aggregate"] == "mean2" and cut["chunking"]["size"] == 64
    assert cut["retriever"]["chunking"] == {"size": 64, "overlap": 8, "aggregate": "mean2"}
    # said before the run: how many chunks and tokens
    assert main(["evaluate", SAMPLE, "--k", "10", "--chunk-size", "64", "--chunk-overlap", "8",
                 "--aggregate", "mean2"]) == 0
    err = capsys.readouterr().err
    assert f"chunks: {cut['chunks']:,} chunks of 284 documents" in err
    assert "tokens (tiktoken cl100k_base)" in err
    for argv, words in ((["--chunk-size", "8"], "too small"),
                        (["--chunk-size", "64", "--chunk-overlap", "64"], "smaller than"),
                        (["--chunk-overlap", "8"], "only with --chunk-size")):
        assert main(["evaluate", SAMPLE, *argv]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


def test_identical_chunks_are_embedded_once_across_chunk_sizes(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(dim=8) as server:
        base = ["evaluate", SAMPLE, "--retriever", "openai", "--model", "text-embedding-3-small",
                "--base-url", server.url, "--limit-queries", "20", "--k", "10",
                "--format", "json"]
        assert main([*base, "--chunk-size", "64", "--chunk-overlap", "8"]) == 0
        out = capsys.readouterr()
        a = json.loads(out.out)
        assert "embedding chunks and queries" in out.err and "$" in out.err
        served_a = list(server.served)
        assert len(served_a) == len(set(served_a)) > a["chunks"] // 2
        b = _json(capsys, [*base, "--chunk-size", "128", "--chunk-overlap", "8"])
        served_b = server.served[len(served_a):]
        # only chunk texts not embedded before were sent (short documents are one chunk in
        # both, so their vectors came from the cache)
        assert not set(served_b) & set(served_a)
        assert b["usage"]["cached_texts"] > 0
        again = _json(capsys, [*base, "--chunk-size", "64", "--chunk-overlap", "8"])
        assert len(server.served) == len(served_a) + len(served_b)  # a rerun: nothing new
        assert again["usage"]["requests"] == 0 and again["metrics"] == a["metrics"]
