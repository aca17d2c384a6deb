"""A local cross-encoder (sentence-transformers ``CrossEncoder``), loaded from disk only.

``--reranker local --model SPEC``: SPEC is a folder holding a cross-encoder (``config.json``)
or an installed package that ships one, found as the local embedding models are
(:func:`ragdash.embeddings.local.resolve_local_model`). Loading sets ``HF_HUB_OFFLINE=1`` and
``TRANSFORMERS_OFFLINE=1`` and passes ``local_files_only=True``: a name that is not on disk fails
at once instead of downloading.

Same surface as :class:`~ragdash.rerank.RerankClient` (``score_groups``, ``usage``, ``notes``,
``config``, ``model``, ``label``, ``cache_base``), so the rerank stage and its cache treat both
alike: scores are cached under base URL ``"local"`` and, as the model, the package and version
or the folder's absolute path. ``requests`` counts predicted batches; nothing is billed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from ...embeddings.local import INSTALL_COMMAND, require_extra, resolve_local_model
from ...errors import Cancelled, RetrievalError
from ...i18n import error
from ...rerank.client import ProgressFn, ScoresFn


class LocalCrossEncoder:
    cache_base = "local"
    protocol = None
    billing = None

    def __init__(self, model: str, *, batch_size: int = 32, device: str = "cpu") -> None:
        require_extra()
        self.source = resolve_local_model(model)
        self.model = self.source.cache_model
        self.label = self.source.label
        self.batch_size = max(1, int(batch_size))
        self.device = device
        self.usage = {"requests": 0, "pairs_scored": 0, "retries": 0}
        self._model = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalCrossEncoder({self.model!r})"

    def config(self) -> dict:
        return {"reranker": "local", "base_url": "local", "model": self.model,
                "path": str(self.source.path), "batch_size": self.batch_size,
                "device": self.device}

    @property
    def notes(self) -> list[str]:
        if self._model is None:
            return []
        return [f"The local cross-encoder reads at most {self._model.max_length} tokens of "
                "each (query, document) pair; the rest is ignored."]

    def load(self):
        with self._lock:
            if self._model is None:
                os.environ["HF_HUB_OFFLINE"] = "1"
                os.environ["TRANSFORMERS_OFFLINE"] = "1"
                try:
                    from sentence_transformers import CrossEncoder
                except ImportError as exc:
                    raise error(RetrievalError, "rerank.local_extra",
                                install=INSTALL_COMMAND) from exc
                try:
                    self._model = CrossEncoder(str(self.source.path), device=self.device,
                                               local_files_only=True)
                except Exception as exc:  # bad files, versions: one sentence
                    raise error(RetrievalError, "rerank.local_load", path=self.source.path,
                                detail=f"{type(exc).__name__}: {exc}") from exc
        return self._model

    def score_groups(self, groups: Sequence[tuple[str, Sequence[str]]], *,
                     on_scores: ScoresFn | None = None, progress: ProgressFn | None = None,
                     cancel: threading.Event | None = None) -> list[np.ndarray]:
        """Scores of every group, predicted ``batch_size`` pairs at a time; each batch goes
        to ``on_scores`` (to be cached) before the next starts."""
        model = self.load()
        total = sum(len(d) for _, d in groups)
        done = 0
        out = []
        for g, (query, docs) in enumerate(groups):
            scores = np.empty(len(docs), dtype=np.float64)
            for lo in range(0, len(docs), self.batch_size):
                if cancel is not None and cancel.is_set():
                    raise error(Cancelled, "rerank.local_cancelled_after", done=done,
                                total=total)
                part = [(str(query), str(d)) for d in docs[lo: lo + self.batch_size]]
                raw = model.predict(part, batch_size=len(part), show_progress_bar=False,
                                    convert_to_numpy=True)
                values = np.asarray(raw, dtype=np.float64).reshape(len(part), -1)[:, 0]
                if not np.isfinite(values).all():
                    raise error(RetrievalError, "rerank.local_nan", model=self.label)
                scores[lo: lo + len(part)] = values
                self.usage["requests"] += 1
                self.usage["pairs_scored"] += len(part)
                done += len(part)
                if on_scores is not None:
                    on_scores(g, np.arange(lo, lo + len(part)), values)
                if progress is not None:
                    progress({"stage": "rerank", "done": done, "total": total,
                              "calls": self.usage["requests"], "tokens": 0})
            out.append(scores)
        return out
