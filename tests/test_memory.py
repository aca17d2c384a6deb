"""Python's cycle collector around the steps that make millions of lasting objects: paused
while a dataset is read and a BM25 index built, back on after (even after an error or a
cancel)."""

from __future__ import annotations

import gc

import pytest
from paths import JSQUAD

from ragdash.errors import DatasetError
from ragdash.loaders import load_dataset


def test_loading_leaves_the_collector_as_it_found_it(tmp_path):
    assert gc.isenabled()
    assert load_dataset(JSQUAD).documents
    assert gc.isenabled()
    with pytest.raises(DatasetError):
        load_dataset(tmp_path / "nosuch")
    assert gc.isenabled()
    gc.disable()
    try:
        load_dataset(JSQUAD)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_collector_paused_restores_what_it_found():
    from ragdash.memory import collector_paused

    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), collector_paused():
        1 / 0  # noqa: B018
    assert gc.isenabled()


def test_bm25_indexing_pauses_the_collector_and_restores_it():
    import threading

    from ragdash.errors import Cancelled
    from ragdash.retrieval import BM25Retriever

    seen = []
    dataset = load_dataset(JSQUAD)
    retriever = BM25Retriever()
    retriever.index(dataset, progress=lambda event: seen.append(gc.isenabled()))
    assert seen and not any(seen) and gc.isenabled()
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        BM25Retriever().index(dataset, cancel=cancel)
    assert gc.isenabled()
