"""The local cross-encoder: a tiny BERT with random weights and a tokenizer from a small
vocabulary, built and saved by the test itself (no download), reranks like the model says."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")

from test_rerank import make_dataset, make_run

from ragdash.errors import RetrievalError
from ragdash.retrieval.rerank import RerankCache, Reranker, make_scorer


def test_local_cross_encoder_orders_the_top_n_by_its_own_scores(tiny_model):
    import torch

    folder, model, tokenizer = tiny_model
    ds = make_dataset()
    run = make_run(ds)
    scorer = make_scorer("local", model=str(folder))
    out = Reranker(scorer, depth=10, cache=RerankCache()).rerank_run(run)
    texts = {d.id: d.embed_text for d in ds.documents}
    q = ds.queries[0]
    before, _ = run.ranking.get(q.id)
    after, scores = out.ranking.get(q.id)
    # the oracle: the same weights through transformers directly
    enc = tokenizer([q.text] * 10, [texts[d] for d in before[:10]], padding=True,
                    truncation=True, return_tensors="pt")
    with torch.no_grad():
        logits = model(**enc).logits[:, 0].numpy()
    expected = [before[i] for i in np.argsort(-logits, kind="stable")]
    assert after[:10] == expected
    assert after[10:] == before[10:]
    # CrossEncoder's default activation for one label is the sigmoid
    np.testing.assert_allclose(scores[:10], np.sort(1 / (1 + np.exp(-logits)))[::-1],
                               rtol=1e-5, atol=1e-7)
    assert out.usage["pairs_scored"] == 10 * len(ds.queries)
    assert out.config["transform"]["reranker"] == "local"
    # cached: a second run scores nothing
    again = Reranker(make_scorer("local", model=str(folder)), depth=10,
                     cache=RerankCache()).rerank_run(run)
    assert again.usage["pairs_scored"] == 0 and again.usage["cached_pairs"] == 60
    assert again.ranking.to_dict() == out.ranking.to_dict()


def test_a_name_not_on_disk_fails_without_downloading():
    with pytest.raises(RetrievalError, match="never downloaded"):
        make_scorer("local", model="cross-encoder/ms-marco-MiniLM-L-6-v2")
