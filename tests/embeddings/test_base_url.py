"""The base URL as typed, and its other form on a first 404, against real servers on
127.0.0.1 that serve at the root only, or under /v1 only; a run made through the other form
or through a URL ending in /embeddings records the URL it used, so later uses reach it again
with the same cache keys."""

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from fake_server import fast_backoff  # noqa: F401
from paths import ROOT

from ragdash import Dataset, Document, Query
from ragdash.cli import main
from ragdash.embeddings import EmbeddingClient
from ragdash.errors import NotFoundError
from ragdash.pipeline import run_evaluation
from ragdash.retrieval.dense import make_dense_retriever
from ragdash.retrieval.sweep import dense_retriever_for
from ragdash.setup import setup_from_run

SAMPLE = str(ROOT / "ragdash" / "data" / "samples" / "jsquad-mini")


def paths(server):
    return [r.path for r in server.requests]


@pytest.mark.parametrize("typed", ["{root}", "{root}/v1", "{root}/v1/"])
def test_a_root_only_server_works_from_the_url_as_typed(typed):
    with FakeOpenAI(only_path="/embeddings") as server:
        root = server.root
        client = EmbeddingClient(typed.format(root=root), "m", concurrency=1)
        vectors = client.embed(["a", "b"])
        client.embed(["c"])
    assert vectors.shape == (2, 8)
    assert paths(server) == ["/v1/embeddings", "/embeddings", "/embeddings"]
    assert client.endpoint.url == root + "/embeddings"
    assert client.cache_base == root
    assert client.config()["base_url"] == root + "/embeddings"  # reaches it again
    assert client.config()["moved_from"] == root + "/v1/embeddings"
    assert any("answered 404" in n and "/embeddings" in n for n in client.notes)


def test_a_v1_only_server_works_from_the_bare_host_and_from_a_path_without_v1():
    with FakeOpenAI(only_path="/v1/embeddings") as server:
        EmbeddingClient(server.root, "m").embed(["a"])
        assert paths(server) == ["/v1/embeddings"]  # a bare host is tried as /v1 first
    with FakeOpenAI(only_path="/api/v1/embeddings") as server:
        client = EmbeddingClient(server.root + "/api", "m")
        client.embed(["a"])
        assert paths(server) == ["/api/embeddings", "/api/v1/embeddings"]
        assert client.config()["base_url"] == server.root + "/api/v1"


def test_neither_form_is_one_sentence_about_the_url_as_typed_after_two_requests():
    with FakeOpenAI(only_path="/other/embeddings") as server:
        root = server.root
        with pytest.raises(NotFoundError) as caught:
            EmbeddingClient(root + "/v1", "m", max_retries=3).embed(["a", "b"])
        assert len(server.requests) == 2
    assert str(caught.value).startswith(root + "/v1/embeddings has no embeddings model")
    assert "with and without /v1" in str(caught.value)


def test_an_unknown_model_is_not_sent_to_the_other_form():
    with FakeOpenAI(models={"m"}) as server, pytest.raises(NotFoundError):
        EmbeddingClient(server.url, "other").embed(["a"])
    assert len(server.requests) == 1


def test_the_command_line_says_so_in_one_line(capsys):
    with FakeOpenAI(only_path="/embeddings") as server:
        root = server.root
        code = main(["evaluate", SAMPLE, "--retriever", "openai", "--model", "m",
                     "--base-url", root, "--limit-queries", "3"])
    err = capsys.readouterr().err
    assert code == 0
    said = [line for line in err.splitlines() if "answered 404" in line]
    assert said == [f"{root}/v1/embeddings answered 404 and {root}/embeddings answered, so "
                    f"ragdash used {root}/embeddings; give that as the base URL next time."]


def small_dataset() -> Dataset:
    words = ["東京", "river", "stone", "cloud", "train", "paper", "music", "garden"]
    rng = np.random.default_rng(3)
    docs = [Document(f"d{i}", " ".join(rng.choice(words, 5))) for i in range(30)]
    queries = [Query(f"q{i}", " ".join(rng.choice(words, 2))) for i in range(8)]
    return Dataset(docs, queries, {q.id: {f"d{i}": 1.0} for i, q in enumerate(queries)},
                   name="base-url")


@pytest.mark.parametrize("typed", ["{root}/embeddings", "{root}"])
def test_later_uses_of_a_run_reach_the_same_url_and_cache_keys(typed, tmp_path):
    """A run through a root-served server (typed with /embeddings, or found by the fallback):
    the sweep's and the latency probe's retriever, and the setup file's, send no request
    for a cached text and POST to the same URL."""
    ds = small_dataset()
    with FakeOpenAI(only_path="/embeddings") as server:
        retriever = make_dense_retriever("openai", model="m", cache_dir=tmp_path,
                                         base_url=typed.format(root=server.root))
        run = run_evaluation(ds, retriever, kmax=10)
        again = dense_retriever_for(run, cache_dir=tmp_path)
        assert again.embedder.endpoint.url == server.root + "/embeddings"
        assert again.embedder.cache_base == retriever.embedder.cache_base == server.root
        texts = [q.text for q in ds.queries]
        assert again.uncached([(again.query_prefix, texts)]) == 0
        before = len(server.requests)
        again.embedder.embed(["a text not in the cache"])
        assert paths(server)[before:] == ["/embeddings"]  # straight there, no 404 first
        first = setup_from_run(run).retrievers[0]
        assert first.options["base_url"] == server.root + "/embeddings"
