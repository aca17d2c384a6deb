"""Every parameter of a setup, declared once: name, type, default, range or choices, help.

A *setup* is what decides a run: the first stages (BM25, an embedding model, a deployed
collection), how documents are cut into chunks, how several rankings are fused, how the top is
reranked, and how the ranking is scored (K, the relevance level, the gain). Each stage is a
:class:`Stage` — a tuple of :class:`Param` — declared here and nowhere else, in the manner of
ir_measures' ``SUPPORTED_PARAMS`` / ``ParamInfo``. Everything else is a view of these
declarations:

- the library's defaults and allowed values (``retrieval.dense``, ``retrieval.chunking``,
  ``retrieval.fusion``, ``retrieval.bm25``, ... read them from here);
- the command line's flags (:func:`ragdash.cli._params.add_stage_options` builds argparse
  options from a stage: flag, type, choices, metavar, help with its default and range);
- the app's widgets (``ragdash.ui`` takes default, range, step and help from a Param);
- a setup file's keys and their checks (:mod:`ragdash.setup`), and its reference page
  (``python -m ragdash.setup.reference`` writes ``docs/setup-file.md``);
- ``Run.config["setup"]``, the declared description a run was made from.

This module sits at the bottom of the layers (it imports only :mod:`ragdash.i18n`), so any
layer may read a default from it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .i18n import Text, text

__all__ = ["BM25", "BM25_METHODS", "CHUNKING", "ENGINE", "EVALUATION", "FUSION", "FUSION_METHODS",
           "FUSION_NORMS", "HTTP", "JUDGE", "KINDS", "LOCAL", "OPENAI", "OWN_KINDS", "PYTHON",
           "RERANK_HTTP", "RERANK_KINDS", "RERANK_LOCAL", "RERANK_PROTOCOLS", "RETRIEVER_KINDS",
           "Param", "Stage",
           "embedding_stage", "retriever_stage"]

#: the types a parameter can have (``ints`` / ``floats``: a list of them)
KINDS = ("int", "float", "str", "bool", "ints", "floats")


@dataclass(frozen=True)
class Param:
    """One parameter of a stage.

    - ``name``: its key in a setup file and in ``Run.config``; the command line's flag is
      ``flag`` (default ``--name-with-dashes``; ``""``: the command line has none).
    - ``kind``: one of :data:`KINDS`.
    - ``default``: the value when none is given; None means "not set" (the parameter is
      then left out, or ``required``).
    - ``low`` / ``high``: the allowed range, inclusive (``above``: ``low`` itself is not
      allowed); ``choices``: the allowed values of a text parameter.
    - ``help``: the catalog key of its help text (:mod:`ragdash.i18n`), said by the command
      line's ``--help``, the app's widget and the setup file's reference.
    - ``env``: the value names an environment variable that holds a credential (the
      credential itself is never a parameter).
    - ``step``: the app's number widget step; ``metavar``: the command line's placeholder.
    - ``applies``: the values of the stage's ``method`` it applies to (empty: all).
    - ``own_check``: the stage itself says what is wrong with a value out of range, in words
      the command line has always used ("BM25 k1 must be a number >= 0"); a flag's value is
      left to it (a setup file's is checked here, naming the key and the line).
    """

    name: str
    kind: str
    default: Any = None
    help: str = ""
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    above: bool = False
    required: bool = False
    flag: str | None = None
    metavar: str | None = None
    step: float | None = None
    env: bool = False
    applies: tuple = ()
    own_check: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.default is not None and self.problem(self.default) is not None:
            raise ValueError(f"{self.name}: the default {self.default!r} is not allowed")

    @property
    def cli_flag(self) -> str | None:
        """The command line's option (None: there is none)."""
        if self.flag == "":
            return None
        return self.flag or "--" + self.name.replace("_", "-")

    # -- checking ------------------------------------------------------------------------
    def problem(self, value: Any) -> str | None:
        """None when ``value`` is allowed, else ``"type"``, ``"range"`` or ``"choice"``."""
        if self.kind in ("ints", "floats"):
            if not isinstance(value, (list, tuple)) or not value:
                return "type"
            one = Param(self.name, self.kind[:-1], low=self.low, high=self.high,
                        above=self.above)
            return next((p for p in map(one.problem, value) if p is not None), None)
        if self.kind == "bool":
            return None if isinstance(value, bool) else "type"
        if self.kind == "str":
            if not isinstance(value, str):
                return "type"
            return "choice" if self.choices and value not in self.choices else None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "type"
        if self.kind == "int" and (isinstance(value, float) and not value.is_integer()):
            return "type"
        if not math.isfinite(value):
            return "type"
        if self.low is not None and (value < self.low or (self.above and value == self.low)):
            return "range"
        if self.high is not None and value > self.high:
            return "range"
        return None

    def coerce(self, value: Any) -> Any:
        """``value`` (already allowed) in the parameter's type: ``3`` for a float is
        ``3.0``, a list is a list."""
        if self.kind == "float":
            return float(value)
        if self.kind == "int":
            return int(value)
        if self.kind == "floats":
            return [float(v) for v in value]
        if self.kind == "ints":
            return [int(v) for v in value]
        return value

    def expected(self) -> Text:
        """What the parameter takes, as a phrase with a message id ("a whole number from 1
        to 2048")."""
        lo, hi = _number(self.low), _number(self.high)
        if self.kind == "str":
            if self.choices:
                return text("param.expect.choice", choices=", ".join(self.choices))
            return text("param.expect.str")
        if self.kind == "bool":
            return text("param.expect.bool")
        if self.kind == "ints":
            if self.low is not None and self.high is not None:
                return text("param.expect.ints_range", low=lo, high=hi)
            return text("param.expect.ints")
        if self.kind == "floats":
            return text("param.expect.floats")
        if self.kind == "int":
            if self.low is not None and self.high is not None:
                return text("param.expect.int_range", low=lo, high=hi)
            if self.low is not None:
                return text("param.expect.int_min", low=lo)
            return text("param.expect.int")
        if self.low is not None and self.high is not None:
            if self.above:
                return text("param.expect.float_above_max", low=lo, high=hi)
            return text("param.expect.float_range", low=lo, high=hi)
        if self.low is not None:
            if self.above:
                return text("param.expect.float_above", low=lo)
            return text("param.expect.float_min", low=lo)
        return text("param.expect.float")

    def range_text(self) -> str:
        """The range or choices in a few characters, for reference tables: ``1–2048``,
        ``> 0``, ``≥ 0``, ``max | first | mean2``; empty when anything goes."""
        if self.choices:
            return " | ".join(self.choices)
        lo, hi = _number(self.low), _number(self.high)
        if self.low is not None and self.high is not None:
            return f"> {lo}, ≤ {hi}" if self.above else f"{lo}–{hi}"
        if self.low is not None:
            return f"{'> ' if self.above else '≥ '}{lo}"
        if self.high is not None:
            return f"≤ {hi}"
        return ""


def _number(x: float | None) -> str:
    if x is None:
        return ""
    return f"{int(x)}" if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True)
class Stage:
    """The parameters of one stage, in the order help texts list them."""

    name: str
    params: tuple[Param, ...]
    help: str = ""

    def __getitem__(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return any(p.name == name for p in self.params)

    def __iter__(self) -> Iterator[Param]:
        return iter(self.params)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def defaults(self) -> dict[str, Any]:
        """``{name: default}`` of every parameter that has one."""
        return {p.name: p.default for p in self.params if p.default is not None}

    def plus(self, name: str, params: Sequence[Param], help: str = "") -> Stage:
        """This stage with ``params`` added after its own (a name given twice keeps the
        first)."""
        mine = set(self.names)
        return Stage(name, (*self.params, *(p for p in params if p.name not in mine)),
                     help or self.help)


# -- the choices -----------------------------------------------------------------------------
#: first-stage kinds, in the order help texts list them
RETRIEVER_KINDS = ("bm25", "openai", "local", "milvus", "qdrant", "chroma", "python", "http")
#: the retriever kinds that are a team's own search (ragdash.retrieval.own): they chunk,
#: embed and rank themselves
OWN_KINDS = ("python", "http")
#: how an own search's results are mapped to the corpus besides by id
OWN_MATCHES = ("text",)
#: the retriever kinds served by a vector engine (a deployed collection)
ENGINE_KINDS = ("milvus", "qdrant", "chroma")
#: BM25 variants (see ragdash.retrieval.bm25)
BM25_METHODS = ("lucene", "robertson", "atire")
#: how chunk scores fold into a document's score (see ragdash.retrieval.chunking)
AGGREGATES = ("max", "first", "mean2")
#: fusion methods and score normalizations (see ragdash.retrieval.fusion)
FUSION_METHODS = ("rrf", "combsum", "combmnz", "alpha", "dbsf")
FUSION_NORMS = ("minmax", "zscore", "rank")
#: rerank API request shapes (see ragdash.rerank.protocols)
RERANK_PROTOCOLS = ("cohere", "jina", "voyage", "tei", "vllm")
RERANK_KINDS = ("http", "local")
#: nDCG gains (see ragdash.metrics)
GAINS = ("linear", "exponential")
#: the document vectors' file precision
VECTOR_DTYPES = ("float32", "float16")
ENCODING_FORMATS = ("float", "base64")

# -- how the ranking is scored: a setup file's top-level keys ------------------------------------
EVALUATION = Stage("evaluation", (
    Param("dataset", "str", help="param.dataset", flag="", metavar="PATH"),
    Param("dataset_fingerprint", "str", help="param.dataset_fingerprint", flag=""),
    Param("split", "str", "test", help="param.split", metavar="NAME"),
    Param("k", "ints", [1, 3, 5, 10, 20, 50, 100], help="param.k", low=1, high=10_000,
          metavar="LIST"),
    Param("kmax", "int", 100, help="param.kmax", low=1, high=10_000, metavar="N", step=10),
    Param("limit_queries", "int", help="param.limit_queries", low=1, metavar="N"),
    Param("relevance_level", "float", help="param.relevance_level", metavar="N"),
    Param("gain", "str", "linear", help="param.gain", choices=GAINS),
    Param("name", "str", help="param.name", metavar="TEXT"),
), help="param.stage.evaluation")

# -- first stages ----------------------------------------------------------------------------
RETRIEVER_KIND = Param("kind", "str", "bm25", help="param.retriever.kind",
                       choices=RETRIEVER_KINDS, flag="--retriever")

BM25 = Stage("bm25", (
    Param("k1", "float", 1.2, help="param.bm25.k1", low=0, metavar="X", step=0.1,
          own_check=True),
    Param("b", "float", 0.75, help="param.bm25.b", low=0, high=1, metavar="X", step=0.05,
          own_check=True),
    Param("method", "str", "lucene", help="param.bm25.method", choices=BM25_METHODS,
          flag="--bm25-method"),
), help="param.stage.bm25")

_PREFIXES = (
    Param("query_prefix", "str", "", help="param.embed.query_prefix", metavar="TEXT"),
    Param("document_prefix", "str", "", help="param.embed.document_prefix", metavar="TEXT"),
)
_DIMENSIONS = Param("dimensions", "int", help="param.embed.dimensions", low=1, high=65_536,
                    metavar="N")
_VECTOR_DTYPE = Param("vector_dtype", "str", "float32", help="param.embed.vector_dtype",
                      choices=VECTOR_DTYPES)

OPENAI = Stage("openai", (
    Param("model", "str", help="param.openai.model", required=True, metavar="NAME"),
    Param("base_url", "str", "https://api.openai.com/v1", help="param.openai.base_url",
          metavar="URL"),
    Param("api_key_env", "str", "OPENAI_API_KEY", help="param.openai.api_key_env",
          metavar="NAME", env=True),
    Param("api_key_header", "str", help="param.openai.api_key_header", metavar="NAME"),
    Param("api_version", "str", help="param.openai.api_version", metavar="V"),
    _DIMENSIONS,
    # texts per request: big batches make few requests; 2048 is OpenAI's limit per request
    Param("batch_size", "int", 256, help="param.openai.batch_size", low=1, high=2048,
          metavar="N", step=16),
    Param("concurrency", "int", 4, help="param.openai.concurrency", low=1, high=64,
          metavar="N"),
    Param("timeout", "float", 60.0, help="param.openai.timeout", low=0, high=3600, above=True,
          metavar="SECONDS", step=5.0),
    Param("encoding_format", "str", "float", help="param.openai.encoding_format",
          choices=ENCODING_FORMATS),
    *_PREFIXES,
    _VECTOR_DTYPE,
), help="param.stage.openai")

LOCAL = Stage("local", (
    Param("model", "str", help="param.local.model", required=True, metavar="NAME"),
    _DIMENSIONS,
    # per model call: on a CPU each call of 32 texts is a second or so, and each is a
    # progress step (256 texts of a base model took ~30 s between two updates)
    Param("batch_size", "int", 32, help="param.local.batch_size", low=1, high=2048,
          metavar="N", step=8),
    *_PREFIXES,
    _VECTOR_DTYPE,
), help="param.stage.local")

ENGINE = Stage("engine", (
    Param("uri", "str", help="param.engine.uri", required=True, metavar="URI"),
    Param("collection", "str", help="param.engine.collection", required=True, metavar="NAME"),
    Param("id_field", "str", help="param.engine.id_field", required=True, metavar="FIELD"),
    Param("vector_field", "str", help="param.engine.vector_field", metavar="F"),
    Param("filter", "str", help="param.engine.filter", metavar="EXPR"),
    Param("engine_token_env", "str", "RAGDASH_ENGINE_TOKEN", help="param.engine.token_env",
          metavar="NAME", env=True),
    Param("engine_timeout", "float", 30.0, help="param.engine.timeout", low=0, high=3600,
          above=True, metavar="SECONDS"),
    Param("embedder", "str", "openai", help="param.engine.embedder", choices=("openai", "local")),
), help="param.stage.engine")

#: a Chroma collection (``uri``: its folder, ``--path``): the engine's parameters, its id the
#: Chroma record id unless a metadata field is named
CHROMA_ENGINE = Stage("engine", tuple(
    Param("id_field", "str", "id", help="param.chroma.id_field", metavar="FIELD")
    if p.name == "id_field" else p for p in ENGINE.params), help="param.stage.engine")

#: a team's own search in Python (``--retriever python --entry module:attribute``):
#: ragdash.retrieval.own
PYTHON = Stage("python", (
    Param("entry", "str", help="param.python.entry", required=True, metavar="MODULE:ATTR"),
    Param("id_field", "str", help="param.python.id_field", metavar="FIELD"),
    Param("match", "str", help="param.python.match", choices=OWN_MATCHES),
    Param("concurrency", "int", 1, help="param.python.concurrency", low=1, high=256,
          metavar="N"),
    Param("timeout", "float", 60.0, help="param.python.timeout", low=0, high=3600,
          above=True, metavar="SECONDS", step=5.0),
    Param("allow_failures", "bool", False, help="param.python.allow_failures"),
), help="param.stage.python")

#: how a search service is asked (ragdash.retrieval.own.http)
HTTP_METHODS = ("POST", "GET")

#: a team's search service over HTTP (``--retriever http --url URL --ids PATH``):
#: ragdash.retrieval.own.http; the key comes from the variable ``api_key_env`` names
HTTP = Stage("http", (
    Param("url", "str", help="param.http.url", required=True, metavar="URL"),
    Param("request", "str", help="param.http.request", metavar="TEMPLATE"),
    Param("method", "str", "POST", help="param.http.method", choices=HTTP_METHODS),
    Param("ids", "str", help="param.http.ids", metavar="PATH"),
    Param("scores", "str", help="param.http.scores", metavar="PATH"),
    Param("texts", "str", help="param.http.texts", metavar="PATH"),
    Param("api_key_env", "str", help="param.http.api_key_env", metavar="NAME", env=True),
    Param("api_key_header", "str", help="param.http.api_key_header", metavar="NAME"),
    PYTHON["match"],
    Param("concurrency", "int", 4, help="param.http.concurrency", low=1, high=256,
          metavar="N"),
    Param("timeout", "float", 30.0, help="param.http.timeout", low=0, high=3600, above=True,
          metavar="SECONDS", step=5.0),
    PYTHON["allow_failures"],
), help="param.stage.http")

# -- chunking, fusion, rerank ----------------------------------------------------------------
CHUNKING = Stage("chunking", (
    Param("size", "int", help="param.chunking.size", required=True, low=16,
          flag="--chunk-size", metavar="TOKENS", step=32, own_check=True),
    Param("overlap", "int", 0, help="param.chunking.overlap", low=0,
          flag="--chunk-overlap", metavar="TOKENS", step=8, own_check=True),
    Param("aggregate", "str", "max", help="param.chunking.aggregate", choices=AGGREGATES),
), help="param.stage.chunking")

FUSION = Stage("fusion", (
    Param("method", "str", "rrf", help="param.fusion.method", choices=FUSION_METHODS),
    Param("norm", "str", help="param.fusion.norm", choices=FUSION_NORMS,
          applies=("combsum", "combmnz")),
    Param("weights", "floats", help="param.fusion.weights", metavar="W,W,..."),
    Param("alpha", "float", 0.5, help="param.fusion.alpha", low=0, high=1, metavar="A",
          step=0.1, applies=("alpha",)),
    Param("rrf_k", "float", 60.0, help="param.fusion.rrf_k", low=0, high=1000, metavar="K",
          step=1.0, applies=("rrf",)),
), help="param.stage.fusion")

RERANK_KIND = Param("kind", "str", "http", help="param.rerank.kind", choices=RERANK_KINDS,
                    flag="--reranker")
_RERANK_DEPTH = Param("depth", "int", 50, help="param.rerank.depth", low=1, high=10_000,
                      metavar="N", step=10)

RERANK_HTTP = Stage("rerank", (
    Param("model", "str", help="param.rerank.model", required=True, metavar="NAME"),
    _RERANK_DEPTH,
    Param("base_url", "str", help="param.rerank.base_url", required=True, metavar="URL"),
    Param("protocol", "str", help="param.rerank.protocol", choices=RERANK_PROTOCOLS),
    Param("api_key_env", "str", help="param.rerank.api_key_env", metavar="NAME", env=True),
    Param("api_key_header", "str", help="param.rerank.api_key_header", metavar="NAME"),
    Param("max_documents", "int", 1000, help="param.rerank.max_documents", low=1,
          high=10_000, metavar="N"),
    Param("concurrency", "int", 4, help="param.rerank.concurrency", low=1, high=64,
          metavar="N"),
    Param("timeout", "float", 60.0, help="param.rerank.timeout", low=0, high=3600,
          above=True, metavar="SECONDS"),
), help="param.stage.rerank")

RERANK_LOCAL = Stage("rerank_local", (
    Param("model", "str", help="param.rerank.local_model", required=True, metavar="NAME"),
    _RERANK_DEPTH,
), help="param.stage.rerank_local")


#: ``python -m ragdash judge``: an LLM judge for the pairs the human labels leave out (not a
#: stage of a setup: it makes labels, not rankings)
JUDGE = Stage("judge", (
    Param("model", "str", help="param.judge.model", required=True, metavar="M"),
    Param("base_url", "str", help="param.judge.base_url", required=True, metavar="URL"),
    Param("depth", "int", 10, help="param.judge.depth", low=1, high=10_000, metavar="N"),
    Param("calibrate", "int", help="param.judge.calibrate", low=0, high=1_000_000,
          metavar="N"),
    Param("doc_tokens", "int", 512, help="param.judge.doc_tokens", low=16, high=1_000_000,
          metavar="N"),
    Param("max_tokens", "int", 256, help="param.judge.max_tokens", low=1, high=1_000_000,
          metavar="N"),
    Param("api_key_env", "str", "OPENAI_API_KEY", help="param.judge.api_key_env",
          metavar="NAME", env=True),
    Param("concurrency", "int", 4, help="param.judge.concurrency", low=1, high=64,
          metavar="N"),
    Param("timeout", "float", 120.0, help="param.judge.timeout", low=0, high=3600,
          above=True, metavar="SECONDS"),
), help="param.stage.judge")


def embedding_stage(kind: str) -> Stage:
    """The parameters of the embedder ``kind`` ("openai" or "local")."""
    return OPENAI if kind == "openai" else LOCAL


def retriever_stage(kind: str, embedder: str | None = None) -> Stage:
    """The parameters of a first stage of ``kind`` (a vector engine's: the engine's and its
    query embedder's)."""
    if kind == "bm25":
        return BM25
    if kind in ("openai", "local"):
        return embedding_stage(kind)
    if kind == "python":
        return PYTHON
    if kind == "http":
        return HTTP
    if kind in ENGINE_KINDS:
        base = CHROMA_ENGINE if kind == "chroma" else ENGINE
        return base.plus(kind, embedding_stage(embedder or ENGINE["embedder"].default).params)
    raise KeyError(kind)


# -- run names -------------------------------------------------------------------------------
#: the longest run name ragdash takes (a setup file's ``name``, ``--name``, the Run page's
#: field): tables, legends and reports show a name whole
NAME_MAX = 200
#: control characters (C0, DEL, C1: ESC, BEL, a line break, ...): never in a name, never
#: written raw to a terminal
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def name_problem(name: str) -> str | None:
    """None when ``name`` can be a run's name, else ``"long"`` (more than :data:`NAME_MAX`
    characters) or ``"control"`` (it holds a control character)."""
    if len(name) > NAME_MAX:
        return "long"
    return "control" if _CONTROL.search(name) else None


def clean_name(name: str) -> str:
    """``name`` as a run may have it, for a text field where a refusal would be in the way:
    control characters dropped, spaces trimmed, at most :data:`NAME_MAX` characters."""
    return _CONTROL.sub("", str(name)).strip()[:NAME_MAX].strip()


def escape_controls(text: str) -> str:
    """``text`` with every control character written as ``\\xNN`` (ESC as ``\\x1b``): a
    name or key from a file, safe to print on a terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))
