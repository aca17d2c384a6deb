"""One default per option: the app's widgets (read from the rendered Run page), the command
line's options and the library's signatures all say what ragdash.params declares — a default
written anywhere else that drifts fails here."""

from __future__ import annotations

import inspect

from app_support import new_app, open_page, open_sample
from paths import JSQUAD

from ragdash import params as P
from ragdash.cli import build_parser
from ragdash.cli._params import evaluate_setup, help_text
from ragdash.ui.declared import shown


def _number(at, key: str, param: P.Param, *, off: bool = False):
    """The rendered number field of ``param``: its value, bounds and step as declared."""
    widget = at.number_input(key=f"w:{key}")
    want = param.default if param.default is not None else 0
    assert widget.value == want, (param.name, widget.value, want)
    low = 0 if off else param.low
    bounds = (widget.proto.min if widget.proto.has_min else None,
              widget.proto.max if widget.proto.has_max else None)
    assert bounds == (low, param.high), (param.name, bounds)
    if param.step is not None:
        assert widget.step == param.step, (param.name, widget.step, param.step)
    if param.default is not None:  # the help says the default
        assert f"default {shown(param.default)}" in widget.help, (param.name, widget.help)


def test_the_run_page_widgets_take_the_declared_defaults_ranges_and_help():
    at = open_sample(new_app(), "article-ja")
    open_page(at, "run")
    assert at.radio(key="w:rd_retriever").value == P.RETRIEVER_KIND.default
    _number(at, "rd_bm25_k1", P.BM25["k1"])
    _number(at, "rd_bm25_b", P.BM25["b"])
    assert P.BM25["b"].range_text() in at.number_input(key="w:rd_bm25_b").help
    _number(at, "rd_kmax", P.EVALUATION["kmax"])
    _number(at, "rd_query_limit", P.EVALUATION["limit_queries"], off=True)
    _number(at, "rd_pipe_chunk_size", P.CHUNKING["size"], off=True)
    _number(at, "rd_pipe_chunk_overlap", P.CHUNKING["overlap"])
    assert at.selectbox(key="w:rd_pipe_aggregate").value == P.CHUNKING["aggregate"].default
    at.radio(key="w:rd_retriever").set_value("local").run()
    _number(at, "rd_local_batch_size", P.LOCAL["batch_size"])
    at.radio(key="w:rd_retriever").set_value("openai").run()
    assert at.text_input(key="w:rd_base_url").value == P.OPENAI["base_url"].default
    _number(at, "rd_batch_size", P.OPENAI["batch_size"])
    _number(at, "rd_concurrency", P.OPENAI["concurrency"])
    _number(at, "rd_dimensions", P.OPENAI["dimensions"], off=True)
    # BM25 and the model above: two first stages, so the fusion's widgets are drawn
    assert at.selectbox(key="w:rd_pipe_fusion").value == P.FUSION["method"].default
    _number(at, "rd_pipe_rrf_k", P.FUSION["rrf_k"])
    at.selectbox(key="w:rd_pipe_fusion").set_value("alpha").run()
    assert at.slider(key="w:rd_pipe_alpha").value == P.FUSION["alpha"].default
    at.toggle(key="w:rd_pipe_rerank").set_value(True).run()
    assert at.radio(key="w:rd_pipe_rerank_kind").value == P.RERANK_KIND.default
    assert at.selectbox(key="w:rd_pipe_rerank_protocol").options[1:] == list(
        P.RERANK_PROTOCOLS)
    _number(at, "rd_pipe_depth", P.RERANK_HTTP["depth"])


def test_the_command_line_fills_in_the_declared_defaults():
    parser = build_parser("evaluate")
    ks, kmax = P.EVALUATION["k"].default, P.EVALUATION["kmax"].default
    for kind, stage, extra in (("bm25", P.BM25, []), ("openai", P.OPENAI, ["--model", "m"]),
                               ("local", P.LOCAL, ["--model", "m"])):
        args = parser.parse_args(["evaluate", str(JSQUAD), "--retriever", kind, *extra])
        setup = evaluate_setup(args, ks=ks, kmax=kmax)
        options = setup.retrievers[0].options
        for param in stage:
            if param.default is not None:
                assert options[param.name] == param.default, (kind, param.name)
    assert setup.gain == P.EVALUATION["gain"].default
    assert setup.split == P.EVALUATION["split"].default
    # --help says each kind's own default (256 for openai, 32 for local)
    said = help_text(P.OPENAI["batch_size"], {"openai": P.OPENAI["batch_size"],
                                              "local": P.LOCAL["batch_size"]})
    assert (f"{P.OPENAI['batch_size'].default} for openai, "
            f"{P.LOCAL['batch_size'].default} for local") in said


def _defaults(fn) -> dict:
    return {n: p.default for n, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}


def test_the_library_defaults_are_the_declared_ones():
    from ragdash.embeddings.local import LocalEmbedder
    from ragdash.retrieval.bm25 import BM25Retriever
    from ragdash.retrieval.chunking import ChunkedRetriever
    from ragdash.retrieval.dense import DEFAULT_API_BATCH, DEFAULT_LOCAL_BATCH, make_dense_retriever
    from ragdash.retrieval.fusion import fuse
    from ragdash.retrieval.rerank import Reranker

    bm25 = _defaults(BM25Retriever.__init__)
    assert {k: bm25[k] for k in P.BM25.names} == P.BM25.defaults()
    assert P.OPENAI["batch_size"].default == DEFAULT_API_BATCH
    assert P.LOCAL["batch_size"].default == DEFAULT_LOCAL_BATCH
    assert _defaults(LocalEmbedder.__init__)["batch_size"] == P.LOCAL["batch_size"].default
    dense = _defaults(make_dense_retriever)
    for name in ("concurrency", "timeout", "encoding_format", "query_prefix",
                 "document_prefix", "vector_dtype"):
        assert dense[name] == P.OPENAI[name].default, name
    chunked = _defaults(ChunkedRetriever.__init__)
    assert chunked["overlap"] == P.CHUNKING["overlap"].default
    assert chunked["aggregate"] == P.CHUNKING["aggregate"].default
    fused = _defaults(fuse)
    assert fused["method"] == P.FUSION["method"].default
    assert fused["rrf_k"] == P.FUSION["rrf_k"].default
    assert _defaults(Reranker.__init__)["depth"] == P.RERANK_HTTP["depth"].default
