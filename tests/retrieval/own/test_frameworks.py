"""The retrievers a RAG team ships, handed in as they are (real libraries, no model, no
download): LangChain (a ``BaseRetriever`` subclass; ``InMemoryVectorStore`` with a hashed
character-n-gram embedding), LlamaIndex (a ``VectorStoreIndex`` retriever with such an
embedding), Haystack (``InMemoryBM25Retriever`` over jsquad-valid, alone and in a pipeline).
Each run's metrics equal pytrec_eval's on the ranking the retriever returned, chunks folded to
their document's first rank."""

from __future__ import annotations

import pytest
from own_support import assert_equals_pytrec, chunks_of, folded, hashed_vector
from paths import JSQUAD

import ragdash
from ragdash.errors import RetrievalError
from ragdash.loaders import load_dataset
from ragdash.samples import load_sample

N_QUERIES = 25


@pytest.fixture(scope="module")
def mini():
    return load_sample("jsquad-mini")


def _queries(ds):
    return ds.evaluated_queries(N_QUERIES)


# -- LangChain ----------------------------------------------------------------------------------
def _langchain_store(ds):
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    class Hashed(Embeddings):
        def embed_documents(self, texts):
            return [hashed_vector(t) for t in texts]

        def embed_query(self, text):
            return hashed_vector(text)

    store = InMemoryVectorStore(Hashed())
    chunks, ids = [], []
    for d in ds.documents:  # each document cut in chunks: doc_id in the metadata
        for i, piece in enumerate(chunks_of(d.text, 80)):
            chunks.append(Document(page_content=piece, metadata={"doc_id": d.id, "n": i}))
            ids.append(f"{d.id}#{i}")
    store.add_documents(chunks, ids=ids)
    return store


def test_langchain_vector_store_retriever_over_chunks_with_id_field(mini):
    store = _langchain_store(mini)
    retriever = store.as_retriever(search_kwargs={"k": 4})
    run = ragdash.evaluate_search(mini, retriever, k=100, id_field="doc_id",
                                  limit_queries=N_QUERIES, resume=False)
    # the ranking it returned: k=100 chunks asked (k reaches the vector store's retriever),
    # folded to their documents
    returned = {}
    for q in _queries(mini):
        docs = retriever.invoke(q.text, k=100)
        assert len(docs) == 100
        returned[q.id] = folded((doc.metadata["doc_id"], None) for doc in docs)
    assert_equals_pytrec(run, mini, returned)
    assert run.usage["duplicates_folded"] > 0 and run.usage["no_score_queries"] == N_QUERIES
    assert run.config["framework"] == "langchain"
    # without the id field the chunk ids ("a0p0#1") are not the corpus's: refused, naming it
    with pytest.raises(RetrievalError, match="--id-field"):
        ragdash.evaluate_search(mini, retriever, k=10, limit_queries=5, resume=False)


def test_langchain_base_retriever_subclass_ids_from_document_id(mini):
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    texts = {d.id: d.text for d in mini.documents}

    class Overlap(BaseRetriever):
        """Documents sharing character bigrams with the query; no k of its own."""

        top: int = 30

        def _get_relevant_documents(self, query: str, *,
                                    run_manager: CallbackManagerForRetrieverRun):
            grams = {query[i:i + 2] for i in range(len(query) - 1)}
            scored = sorted(((sum(g in t for g in grams), d) for d, t in texts.items()),
                            key=lambda x: (-x[0], x[1]))[:self.top]
            return [Document(page_content=texts[d], id=d) for s, d in scored if s]

    retriever = Overlap()
    run = ragdash.evaluate_search(mini, retriever, k=100, limit_queries=N_QUERIES,
                                  resume=False)
    returned = {q.id: folded((doc.id, None) for doc in retriever.invoke(q.text))
                for q in _queries(mini)}
    assert_equals_pytrec(run, mini, returned)
    assert run.table().mean("recall@10") > 0.3


# -- LlamaIndex ---------------------------------------------------------------------------------
def _llama_index(ds, *, with_source: bool):
    from llama_index.core import Settings, VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    class Hashed(BaseEmbedding):
        def _get_query_embedding(self, query):
            return hashed_vector(query)

        async def _aget_query_embedding(self, query):
            return hashed_vector(query)

        def _get_text_embedding(self, text):
            return hashed_vector(text)

    Settings.llm = None
    nodes = []
    for d in ds.documents:
        for i, piece in enumerate(chunks_of(d.text, 80)):
            node = TextNode(id_=f"{d.id}#{i}", text=piece, metadata={"doc_id": d.id})
            if with_source:
                node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=d.id)
            nodes.append(node)
    return VectorStoreIndex(nodes, embed_model=Hashed())


@pytest.mark.parametrize("id_field,with_source", [("doc_id", False), (None, True)])
def test_llamaindex_retriever_metadata_field_or_ref_doc_id(mini, id_field, with_source):
    index = _llama_index(mini, with_source=with_source)
    retriever = index.as_retriever(similarity_top_k=60)
    run = ragdash.evaluate_search(mini, retriever, k=100, id_field=id_field,
                                  limit_queries=N_QUERIES, resume=False)
    returned = {}
    for q in _queries(mini):
        got = retriever.retrieve(q.text)
        returned[q.id] = folded(((n.node.metadata["doc_id"] if id_field else
                                  n.node.ref_doc_id), n.score) for n in got)
    assert_equals_pytrec(run, mini, returned)
    assert run.usage["no_score_queries"] == 0 and run.usage["duplicates_folded"] > 0
    assert run.config["framework"] == "llamaindex"


def test_llamaindex_node_ids_that_are_chunks_are_refused_in_one_sentence(mini):
    retriever = _llama_index(mini, with_source=False).as_retriever(similarity_top_k=10)
    with pytest.raises(RetrievalError) as got:
        ragdash.evaluate_search(mini, retriever, k=10, limit_queries=5, resume=False)
    assert "--id-field" in str(got.value) and "#" in str(got.value)


# -- Haystack -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def jsquad():
    return load_dataset(JSQUAD)


@pytest.fixture(scope="module")
def haystack_retriever(jsquad):
    from haystack import Document
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents([Document(id=d.id, content=d.text, meta={"para": d.id})
                           for d in jsquad.documents])
    return InMemoryBM25Retriever(store)


def _haystack_returned(retriever, ds, key):
    out = {}
    for q in ds.evaluated_queries(N_QUERIES):
        docs = retriever.run(query=q.text, top_k=100)["documents"]
        out[q.id] = folded((key(d), d.score) for d in docs)
    return out


def test_haystack_bm25_component_over_jsquad_valid(jsquad, haystack_retriever):
    run = ragdash.evaluate_search(jsquad, haystack_retriever, k=100,
                                  limit_queries=N_QUERIES, resume=False)
    returned = _haystack_returned(haystack_retriever, jsquad, lambda d: d.id)
    assert_equals_pytrec(run, jsquad, returned)
    assert all(len(v) == 100 for v in returned.values())  # top_k=k reached it
    assert run.config["framework"] == "haystack" and run.table().mean("ndcg@10") > 0.3


def test_haystack_pipeline_with_a_meta_id_field(jsquad, haystack_retriever):
    from haystack import Pipeline

    pipeline = Pipeline()
    pipeline.add_component("bm25", haystack_retriever)
    run = ragdash.evaluate_search(jsquad, pipeline, k=100, id_field="para",
                                  limit_queries=N_QUERIES, concurrency=2, resume=False)
    returned = _haystack_returned(haystack_retriever, jsquad, lambda d: d.meta["para"])
    assert_equals_pytrec(run, jsquad, returned)
