"""make_retriever and the Retriever protocol."""

from __future__ import annotations

import pytest

from ragdash.errors import RetrievalError
from ragdash.retrieval import RETRIEVERS, BM25Retriever, Retriever, make_retriever


def test_bm25_is_built_and_follows_the_protocol():
    r = make_retriever("bm25")
    assert isinstance(r, BM25Retriever) and isinstance(r, Retriever)
    assert make_retriever(" BM25 ", k1=None).k1 == 1.2   # None means "default"


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(RetrievalError) as err:
        make_retriever("splade")
    message = str(err.value)
    assert "splade" in message
    assert all(name in message for name in RETRIEVERS)


def test_unknown_bm25_option_is_named():
    with pytest.raises(RetrievalError, match="model"):
        make_retriever("bm25", model="x")


@pytest.mark.parametrize("kind", ["openai", "local"])
def test_dense_retrievers_need_a_model(kind):
    with pytest.raises(RetrievalError, match="model"):
        make_retriever(kind)


def test_openai_retriever_comes_from_the_embeddings_package(tmp_path):
    r = make_retriever("openai", model="text-embedding-3-small", api_key="sk-test-secret",
                       base_url="http://127.0.0.1:9/v1", cache_dir=tmp_path)
    from ragdash.retrieval.dense import DenseRetriever

    assert isinstance(r, DenseRetriever) and isinstance(r, Retriever)
    assert "openai" in r.name
    assert "sk-test-secret" not in repr(r.config())
    assert set(r.usage) >= {"requests", "prompt_tokens", "embedded_texts", "cached_texts"}
