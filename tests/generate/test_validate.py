"""--validate's comparison, and a dense retriever in the pool (a real embeddings server)."""

from __future__ import annotations

import math

import pytest
from fake_chat import FakeChat
from fake_openai import FakeOpenAI
from paths import JSQUAD
from world import Writer

from ragdash.dataset import Dataset
from ragdash.generate import GenerateJob
from ragdash.generate.cache import GenerateCache
from ragdash.generate.corpus import Corpus
from ragdash.generate.validate import BM25_SYSTEMS, METRICS, validate
from ragdash.judge.cache import JudgeCache
from ragdash.loaders import load_dataset
from ragdash.services.chat import ChatClient
from ragdash.stats.agreement import kendall_tau


@pytest.fixture(scope="module")
def small() -> Dataset:
    full = load_dataset(JSQUAD)
    docs = full.documents[:150]
    keep = {d.id for d in docs}
    qrels = {q: r for q, r in full.qrels.items() if set(r) <= keep}
    return Dataset(docs, [q for q in full.queries if q.id in qrels], qrels, name="small")


def test_the_same_queries_on_both_sides_agree_perfectly(small):
    report = validate(small, small)
    assert [r["system"] for r in report["systems"]] == [s[0] for s in BM25_SYSTEMS]
    for metric in METRICS:
        scores = [r["human"][metric] for r in report["systems"]]
        if len(set(scores)) > 1:  # τ is undefined when every system ties
            assert report["tau"][metric] == pytest.approx(1.0)
        assert all(r["difference"][metric] == 0 for r in report["systems"])
    assert report["published_tau"] == [0.83, 0.85]
    assert report["same_corpus"] is True


def test_tau_is_kendall_of_the_two_orders(small):
    """Half the queries against all: τ is kendall_tau of the two score lists."""
    half = Dataset(small.documents, small.queries[::2],
                   {q.id: small.qrels[q.id] for q in small.queries[::2]}, name="half")
    report = validate(half, small)
    for metric in METRICS:
        x = [r["generated"][metric] for r in report["systems"]]
        y = [r["human"][metric] for r in report["systems"]]
        want = kendall_tau(x, y)
        got = report["tau"][metric]
        assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want)
        assert [r["difference"][metric] for r in report["systems"]] == \
            pytest.approx([a - b for a, b in zip(x, y)])
    fewer = Dataset(small.documents[:100], half.queries, half.qrels, name="fewer")
    assert validate(fewer, small)["documents"] == {"generated": 100, "human": 150,
                                                    "shared": 100}


def test_a_dense_retriever_joins_the_pool(tmp_path, small):
    from ragdash.retrieval import make_retriever

    docs = small.documents[:40]
    corpus = Corpus(docs, ["a"] * len(docs))
    with FakeChat(answer=Writer({})) as chat, FakeOpenAI() as emb:
        dense = make_retriever("openai", model="emb-1", base_url=emb.url,
                               cache_dir=tmp_path / "emb")
        client = ChatClient(chat.url, "gpt-4o-mini")
        job = GenerateJob(corpus, endpoint=client.endpoint.base, model="gpt-4o-mini", n=6,
                          seed=1, cache=GenerateCache(tmp_path), judge_cache=JudgeCache(tmp_path),
                          retrievers=2)
        assert job.estimate()["pool_at_most"]["requests"] == 6 * 10 * 2
        bm25_only = GenerateJob(corpus, endpoint=client.endpoint.base, model="gpt-4o-mini",
                                n=6, seed=1, cache=GenerateCache(tmp_path / "b"),
                                judge_cache=JudgeCache(tmp_path / "b"))
        result = job.run(client, dense=dense)
        alone = bm25_only.run(client)
        assert emb.requests  # the dense model ranked the kept queries
    assert result.pool["retrievers"] == ["bm25", "openai:emb-1"]
    assert result.kept == alone.kept
    assert result.pool["pairs"] > alone.pool["pairs"]  # the union of two top 10s
