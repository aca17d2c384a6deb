"""BM25: scores against an independent plain-Python BM25 on real Japanese data, the zero-score
rule, ties, empty queries, and retrieval quality on jsquad-valid."""

from __future__ import annotations

import json
import math
import threading
from collections import Counter

import numpy as np
import pytest
from paths import JSQUAD

from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import Cancelled, RetrievalError
from ragdash.retrieval import BM25Retriever, make_retriever, tokenize


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def jsquad() -> Dataset:
    docs = [Document(o["_id"], o["text"], o.get("title", ""))
            for o in read_jsonl(JSQUAD / "corpus.jsonl")]
    queries = [Query(o["_id"], o["text"]) for o in read_jsonl(JSQUAD / "queries.jsonl")]
    qrels: dict[str, dict[str, float]] = {}
    lines = (JSQUAD / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]
    for line in lines:
        q, d, g = line.split("\t")
        qrels.setdefault(q, {})[d] = float(g)
    return Dataset(docs, queries, qrels, name="jsquad-valid")


@pytest.fixture(scope="module")
def jsquad_slice(jsquad) -> Dataset:
    """The first 250 passages and the queries judged against them."""
    docs = jsquad.documents[:250]
    keep = {d.id for d in docs}
    qrels = {q: r for q, r in jsquad.qrels.items() if set(r) <= keep}
    queries = [q for q in jsquad.queries if q.id in qrels][:120]
    return Dataset(docs, queries, {q.id: qrels[q.id] for q in queries}, name="slice")


# -- an independent BM25, written out from the formulas ---------------------------------
class PlainBM25:
    """Scores of every document for one query, in float64, term by term."""

    def __init__(self, doc_tokens, *, k1, b, method="lucene"):
        self.n = len(doc_tokens)
        self.avgdl = sum(len(d) for d in doc_tokens) / self.n
        self.df = Counter(t for d in doc_tokens for t in set(d))
        self.tfs = [Counter(d) for d in doc_tokens]
        self.lengths = [len(d) for d in doc_tokens]
        self.k1, self.b, self.method = k1, b, method

    def idf(self, t):
        n, df = self.n, self.df[t]
        if self.method == "lucene":      # Lucene >= 8
            return math.log(1 + (n - df + 0.5) / (df + 0.5))
        if self.method == "robertson":
            return math.log(max(1.0, (n - df + 0.5) / (df + 0.5)))
        return math.log(n / df)          # atire

    def scores(self, query_tokens):
        k1, b = self.k1, self.b
        out = []
        for tf, length in zip(self.tfs, self.lengths):
            norm = k1 * (1 - b + b * length / self.avgdl)
            s = 0.0
            for t in query_tokens:       # a repeated query token counts each time
                if tf[t]:
                    part = tf[t] / (tf[t] + norm)
                    if self.method == "atire":
                        part *= k1 + 1
                    s += self.idf(t) * part
            out.append(s)
        return np.array(out)


def expected_ranking(scores, doc_ids, k):
    """Documents scoring > 0, by score desc then doc id desc (trec_eval), cut at k."""
    keys = np.unique(np.asarray(doc_ids, dtype=str), return_inverse=True)[1]
    order = np.lexsort((-keys, -scores))
    order = order[scores[order] > 0]
    return order[:k]


@pytest.mark.parametrize("method,k1,b", [("lucene", 1.2, 0.75), ("lucene", 0.9, 0.4),
                                         ("robertson", 1.5, 0.75), ("atire", 1.2, 0.3)])
def test_scores_equal_an_independent_bm25(jsquad_slice, method, k1, b):
    ds = jsquad_slice
    doc_tokens = tokenize(ds.doc_texts())
    retriever = BM25Retriever(k1=k1, b=b, method=method)
    index = retriever.index(ds)
    q_tokens = tokenize(q.text for q in ds.queries)
    ours = index.scores(q_tokens)
    plain = PlainBM25(doc_tokens, k1=k1, b=b, method=method)
    for i, qt in enumerate(q_tokens):
        ref = plain.scores(qt)
        np.testing.assert_allclose(ours[i], ref, rtol=2e-6, atol=2e-6)
    # bm25s's own index and scorer agree with ours
    model = _bm25s_model(doc_tokens, method, k1, b)
    np.testing.assert_allclose(ours[0], model.get_scores(q_tokens[0]), rtol=1e-6)


def test_ranking_equals_independent_ranking(jsquad_slice):
    ds = jsquad_slice
    doc_tokens = tokenize(ds.doc_texts())
    ranking = BM25Retriever().rank(ds, ds.queries, 20)
    plain = PlainBM25(doc_tokens, k1=1.2, b=0.75)
    for q in ds.queries:
        ref = plain.scores(tokenize([q.text])[0])
        expect = [ds.documents[i].id for i in expected_ranking(ref, ds.doc_ids, 20)]
        got, scores = ranking.get(q.id)
        assert len(got) == len(expect)
        for p, (g, e) in enumerate(zip(got, expect)):
            if g != e:  # only where float32 cannot tell two float64 scores apart
                gi, ei = ds.doc_index[g], ds.doc_index[e]
                assert 0 < abs(ref[gi] - ref[ei]) < 1e-5 * max(1.0, ref[ei]), (q.id, p)
        np.testing.assert_allclose(scores, ref[[ds.doc_index[d] for d in got]], rtol=2e-6)


def tiny(docs, queries):
    return Dataset([Document(i, t) for i, t in docs], [Query(i, t) for i, t in queries],
                   {i: {} for i, _ in queries})


def test_only_documents_sharing_a_token_are_returned():
    ds = tiny([("d1", "梅雨の季節"), ("d2", "富士山に登る"), ("d3", "梅雨前線が北上"),
               ("d4", "apple pie")],
              [("q1", "梅雨"), ("q2", "banana"), ("q3", "？！。"), ("q4", "Apple")])
    ranking = BM25Retriever().rank(ds, ds.queries, 10)
    assert set(ranking.get("q1")[0]) == {"d1", "d3"}          # not d2/d4 at score 0
    assert ranking.get("q2")[0] == []                        # no token in the index
    assert ranking.get("q3")[0] == []                        # no token at all
    assert ranking.get("q4")[0] == ["d4"]
    assert all(s > 0 for _, _, ss in ranking.items() for s in ss)
    assert ranking.query_ids == ["q1", "q2", "q3", "q4"]


def test_equal_scores_are_ordered_by_doc_id_descending_and_cut_consistently():
    docs = [(f"doc{i:02d}", "同じ文章です") for i in range(12)] + [("zz", "別の話")]
    ds = tiny(docs, [("q", "同じ文章")])
    ranking = BM25Retriever().rank(ds, ds.queries, 5)
    ids, scores = ranking.get("q")
    assert ids == ["doc11", "doc10", "doc09", "doc08", "doc07"]
    assert len(set(scores.tolist())) == 1


def test_empty_corpus_text_and_kmax_validation():
    ds = tiny([("a", ""), ("b", "。")], [("q", "東京")])
    assert BM25Retriever().rank(ds, ds.queries, 3).get("q")[0] == []
    with pytest.raises(RetrievalError, match="kmax"):
        BM25Retriever().rank(ds, ds.queries, 0)


def test_options_and_config():
    r = make_retriever("bm25", k1=0.9, b=0.4)
    cfg = r.config()
    assert cfg["k1"] == 0.9 and cfg["b"] == 0.4 and cfg["method"] == "lucene"
    assert cfg["tokenizer"] and cfg["retriever"] == "bm25"
    json.dumps(cfg)
    assert r.name == "bm25"
    assert r.usage == {"requests": 0, "prompt_tokens": 0, "embedded_texts": 0,
                       "cached_texts": 0}
    for bad in ({"k1": -1}, {"b": 1.5}, {"method": "bm42"}):
        with pytest.raises(RetrievalError):
            BM25Retriever(**bad)


def test_progress_events_and_index_reuse(jsquad_slice):
    events = []
    r = BM25Retriever()
    r.rank(jsquad_slice, jsquad_slice.queries, 10, progress=events.append)
    stages = [e["stage"] for e in events]
    # documents tokenized, documents indexed, queries retrieved: in that order
    assert stages == sorted(stages, key=["tokenizing", "indexing", "retrieving"].index)
    assert set(stages) == {"tokenizing", "indexing", "retrieving"}
    for stage in ("tokenizing", "indexing"):
        ends = [e for e in events if e["stage"] == stage]
        assert ends[0]["done"] == 0 and ends[-1]["done"] == ends[-1]["total"] == len(
            jsquad_slice.documents)
    last = events[-1]
    assert last["done"] == last["total"] == len(jsquad_slice.queries)
    assert all(set(e) == {"stage", "done", "total", "calls", "tokens"} for e in events)
    index = r._index
    r.rank(jsquad_slice, jsquad_slice.queries[:3], 10)
    assert r._index is index   # same data: the index is not rebuilt


def test_the_index_is_rebuilt_for_other_documents(jsquad_slice):
    from ragdash.dataset import Dataset

    r = BM25Retriever()
    r.rank(jsquad_slice, jsquad_slice.queries[:3], 10)
    index = r._index
    fewer = Dataset(documents=jsquad_slice.documents[:-1], queries=jsquad_slice.queries,
                    qrels=jsquad_slice.qrels)
    r.rank(fewer, fewer.queries[:3], 10)
    assert r._index is not index and r._index.n_docs == len(jsquad_slice.documents) - 1
    same = Dataset(documents=list(fewer.documents), queries=[], qrels={})
    r.rank(same, fewer.queries[:3], 10)
    assert r._index.n_docs == len(fewer.documents)


def test_the_app_names_bm25s_stages(jsquad_slice):
    import time

    from ragdash.jobs import Job

    job = Job(id="x", owner="o", kind="k", label="l", state="running", started_at=time.time())
    events = []
    BM25Retriever().rank(jsquad_slice, jsquad_slice.queries[:5], 10, progress=events.append)
    shown = set()
    for event in events:
        job._report(event)
        shown.add(job.status_text("en").split(":")[0])
    assert shown == {"Tokenizing documents", "Indexing documents", "Retrieving queries"}


def test_cancel(jsquad_slice):
    event = threading.Event()
    event.set()
    with pytest.raises(Cancelled):
        BM25Retriever().rank(jsquad_slice, jsquad_slice.queries, 10, cancel=event)


def test_quality_on_jsquad_valid_is_far_above_random(jsquad):
    """Measured: nDCG@10 = 0.882, Recall@100 = 0.938 over all 4,442 queries (k1=1.2, b=0.75).
    A random ranking of the 1,145 passages scores about 0.01."""
    from ragdash.metrics import evaluate

    queries = jsquad.evaluated_queries()
    ranking = BM25Retriever().rank(jsquad, queries, 100)
    table = evaluate(ranking, jsquad.qrels, kmax=100, queries=[q.id for q in queries])
    assert table.mean("ndcg@10") > 0.85
    assert table.mean("recall@100") > 0.9

    rng = np.random.default_rng(0)
    ids = np.array(jsquad.doc_ids, dtype=object)
    random_run = {q.id: {str(d): float(100 - r) for r, d in
                         enumerate(ids[rng.permutation(len(ids))[:100]])} for q in queries}
    from ragdash.ranking import Ranking
    random_table = evaluate(Ranking.from_dict(random_run), jsquad.qrels, kmax=100,
                            queries=[q.id for q in queries])
    assert random_table.mean("ndcg@10") < 0.05


def _bm25s_model(doc_tokens, method, k1=1.2, b=0.75):
    """bm25s's own index of the same tokens (the same token ids as ours)."""
    import bm25s

    from ragdash.retrieval.bm25 import TokenIds

    ids = TokenIds()
    ids.add(doc_tokens)
    flat, lengths = ids.flat()
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    per_doc = [flat[bounds[i]:bounds[i + 1]].tolist() for i in range(len(lengths))]
    model = bm25s.BM25(k1=k1, b=b, method=method)
    model.index((per_doc, ids.vocab), create_empty_token=False, show_progress=False)
    return model


def _bm25s_matrix(doc_tokens, method, k1=1.2, b=0.75):
    """bm25s's own index of the same tokens, as a (terms x documents) CSR matrix."""
    from scipy.sparse import csr_matrix

    s = _bm25s_model(doc_tokens, method, k1, b).scores
    lengths = [len(d) for d in doc_tokens]
    return csr_matrix((s["data"], s["indices"], s["indptr"]),
                      shape=(len(s["indptr"]) - 1, len(lengths)))


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire"])
@pytest.mark.parametrize("k1,b", [(1.2, 0.75), (0.9, 0.4), (2.0, 1.0), (1.5, 0.0)])
def test_vectorized_index_equals_bm25s_entry_by_entry(jsquad_slice, method, k1, b):
    from ragdash.retrieval.bm25 import BM25Index

    docs = tokenize(jsquad_slice.doc_texts())
    ours = BM25Index(docs, k1=k1, b=b, method=method).matrix
    theirs = _bm25s_matrix(docs, method, k1, b)
    ours.sort_indices()
    theirs.sort_indices()
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_array_equal(ours.data, theirs.data)  # bit for bit


@pytest.mark.parametrize("block", [100_000, 37, 1])
def test_vectorized_index_equals_bm25s_on_random_corpora(monkeypatch, block):
    from ragdash.retrieval import bm25
    from ragdash.retrieval.bm25 import BM25Index

    monkeypatch.setattr(bm25, "BUILD_BLOCK_DOCS", block)  # built in blocks of that many docs
    rng = np.random.default_rng(7)
    for trial in range(5):
        vocab = [f"t{i}" for i in range(int(rng.integers(5, 300)))]
        docs = [list(rng.choice(vocab, int(rng.integers(0, 40)))) for _ in
                range(int(rng.integers(1, 400)))]
        docs[0] = docs[0] or ["t0"]
        for method in ("lucene", "robertson", "atire"):
            ids = bm25.TokenIds()
            for lo in range(0, len(docs), 13):  # chunks of 13 documents
                ids.add(docs[lo:lo + 13])
            ours = BM25Index(ids, k1=1.2, b=0.75, method=method).matrix
            theirs = _bm25s_matrix(docs, method)
            assert ours.shape == theirs.shape
            assert (ours != theirs).nnz == 0, (trial, method)
            np.testing.assert_array_equal(ours.indptr, theirs.indptr)


def test_parallel_tokenization_gives_the_same_index_as_one_process(jsquad_slice, monkeypatch):
    from ragdash.retrieval import bm25

    texts = jsquad_slice.doc_texts()
    one = bm25.tokenize_corpus(texts, workers=1, chunk=97)
    two = bm25.tokenize_corpus(texts, workers=2, chunk=97)
    assert one.vocab == two.vocab
    for a, b in zip(one.flat(), two.flat()):
        np.testing.assert_array_equal(a, b)
    direct = [t for doc in tokenize(texts) for t in doc]
    flat, lengths = two.flat()
    inverse = {i: t for t, i in two.vocab.items()}
    assert [inverse[i] for i in flat.tolist()] == direct
    assert lengths.tolist() == [len(d) for d in tokenize(texts)]


def test_block_scores_are_the_sparse_products_bit_for_bit():
    """scores() multiplies only the block's term rows, dense queries x sparse postings; the
    float32 sums must be the sparse x sparse product's, entry by entry (ties depend on it)."""
    from ragdash.retrieval.bm25 import BM25Index

    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(300)]
    weights = 1.0 / np.arange(1, 301)
    weights /= weights.sum()
    docs = [list(rng.choice(words, rng.integers(1, 40), p=weights)) for _ in range(2000)]
    queries = [list(rng.choice(words, rng.integers(1, 9), p=weights)) for _ in range(60)]
    queries += [[], ["unknown"], ["w0", "w0", "w0"]]
    for method in ("lucene", "robertson", "atire"):
        index = BM25Index(docs, k1=1.2, b=0.75, method=method)
        want = (index.query_matrix(queries) @ index.matrix).toarray()
        got = index.scores(queries)
        assert got.dtype == np.float32 and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want.astype(np.float32))


def test_chunks_are_bounded_by_characters_too(jsquad_slice):
    from itertools import pairwise

    from ragdash.retrieval import bm25

    texts = ["x" * 50, "y" * 500, "z", "w" * 30, "v" * 30, "u" * 10] * 5
    spans = bm25.chunk_spans(texts, docs=4, chars=100)
    assert spans[0][0] == 0 and spans[-1][1] == len(texts)
    assert all(a[1] == b[0] for a, b in pairwise(spans))  # contiguous, in order
    for lo, hi in spans:
        assert 1 <= hi - lo <= 4
        # at most 100 characters unless one text alone is longer
        assert sum(map(len, texts[lo:hi])) <= 100 or hi - lo == 1
    assert (1, 2) in spans  # the 500-character text is a chunk of its own
    # the tokens do not depend on how the corpus is cut
    corpus = jsquad_slice.doc_texts()
    whole = bm25.tokenize_corpus(corpus, workers=1, chunk=10**9, chunk_chars=10**12)
    for workers in (1, 2):
        cut = bm25.tokenize_corpus(corpus, workers=workers, chunk=50, chunk_chars=3_000)
        assert cut.vocab == whole.vocab
        for a, b in zip(cut.flat(), whole.flat()):
            np.testing.assert_array_equal(a, b)
