"""Rerankers: the top N of any first-stage ranking, scored again by a cross-encoder.

    scorer = RerankClient("https://api.cohere.com", "rerank-v3.5", api_key=...)
    reranked_run = Reranker(scorer, depth=50, cache=RerankCache()).rerank_run(run)

- :mod:`ragdash.rerank` — the remote scorer, :class:`RerankClient` (Cohere, Jina, Voyage,
  text-embeddings-inference, vLLM), a service like the embeddings client;
- :mod:`.local` — :class:`LocalCrossEncoder`, a sentence-transformers ``CrossEncoder`` from a
  folder or an installed package, offline only;
- :mod:`.cache` — :class:`RerankCache`, scores in ``$RAGDASH_HOME/rerank.sqlite``;
- :mod:`.stage` — :class:`Reranker`: plan, cache, score, assemble the derived run.
"""

from ...rerank import PROTOCOLS, RerankClient, resolve_rerank_endpoint
from .cache import RerankCache
from .stage import DEFAULT_DEPTH, Reranker, RerankPlan


def make_scorer(kind: str = "http", **options):
    """``"http"`` → :class:`RerankClient` (``base_url``, ``model``, ``protocol``, ...);
    ``"local"`` → :class:`~.local.LocalCrossEncoder` (``model``: a folder or a package)."""
    options = {k: v for k, v in options.items() if v is not None}
    if kind == "local":
        from .local import LocalCrossEncoder

        return LocalCrossEncoder(**options)
    base_url = options.pop("base_url", None)
    model = options.pop("model", "")
    return RerankClient(base_url, model, **options)


__all__ = ["DEFAULT_DEPTH", "PROTOCOLS", "RerankCache", "RerankClient", "RerankPlan",
           "Reranker", "make_scorer", "resolve_rerank_endpoint"]
