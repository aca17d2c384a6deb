"""A slow embeddings server: on timeouts the client halves its batch size and its requests at
once, grows them back on successes, says so in its progress events, and keeps (caches) every
batch that did arrive.

The server is real (tests/fake_openai.py on 127.0.0.1) and slow the way a model on a CPU is:
one batch computed at a time, in proportion to its size, and a batch whose client gave up is
computed all the same (``seconds_per_text``)."""

import threading

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from fake_server import fast_backoff  # noqa: F401

from ragdash.dataset import Dataset, Document, Query
from ragdash.embeddings import EmbeddingClient
from ragdash.embeddings.batching import GROW_AFTER, Pace, pace_note
from ragdash.errors import ServerUnreachableError
from ragdash.retrieval.dense import make_dense_retriever

TEXTS = [f"text number {i}" for i in range(64)]


def expected(texts, dim=8):
    v = np.stack([FakeOpenAI.vector(t, dim) for t in texts]).astype(np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


# -- the pace, alone ------------------------------------------------------------------------
def test_a_timeout_halves_both_once_per_change_down_to_one_and_one():
    pace = Pace(256, 4)
    assert pace.event() == {}
    assert pace.timed_out(0, 256)
    assert (pace.batch_size, pace.concurrency, pace.generation) == (128, 2, 1)
    # the other requests of the same wave were sent at 256 x 4: they say nothing new
    assert not pace.timed_out(0, 256)
    assert (pace.batch_size, pace.concurrency) == (128, 2)
    assert pace.event() == {"pace": {"batch_size": 128, "batch_size_set": 256,
                                     "concurrency": 2, "concurrency_set": 4}}
    assert pace.timed_out(1, 20)  # a short last batch timed out: half of what it held
    assert (pace.batch_size, pace.concurrency) == (10, 1)
    for generation in range(2, 6):
        pace.timed_out(generation, pace.batch_size)
    assert (pace.batch_size, pace.concurrency) == (1, 1)
    assert not pace.timed_out(pace.generation, 1)  # the floor: the retry policy decides
    assert pace.slowest == (1, 1)


def test_successes_grow_it_back_never_above_the_configured_and_later_after_a_relapse():
    pace = Pace(256, 4)
    pace.timed_out(0, 256)
    pace.timed_out(1, 128)
    assert (pace.batch_size, pace.concurrency) == (64, 1)
    stale = pace.generation - 1
    for _ in range(3 * GROW_AFTER):
        assert not pace.succeeded(stale)  # sent before the last change: not evidence
    for _ in range(GROW_AFTER - 1):
        assert not pace.succeeded(pace.generation)
    assert pace.succeeded(pace.generation)
    assert (pace.batch_size, pace.concurrency) == (128, 2)
    # growing back timed out: the next growth waits for twice as many successes
    assert pace.timed_out(pace.generation, 128)
    assert (pace.batch_size, pace.concurrency) == (64, 1)
    for _ in range(2 * GROW_AFTER - 1):
        assert not pace.succeeded(pace.generation)
    assert pace.succeeded(pace.generation)
    while pace.reduced:
        pace.succeeded(pace.generation)
    assert (pace.batch_size, pace.concurrency) == (256, 4)
    assert not pace.succeeded(pace.generation)  # never above the configured values
    assert (pace.batch_size, pace.concurrency) == (256, 4) and pace.event() == {}


def test_the_progress_line_words():
    event = {"pace": {"batch_size": 128, "batch_size_set": 256, "concurrency": 2,
                      "concurrency_set": 4}}
    assert pace_note(event) == "server slow: batch 256 → 128, 4 → 2 requests at once"
    assert "256 → 128" in pace_note(event, "ja") and "4 → 2" in pace_note(event, "ja")
    assert pace_note({"done": 3}) is None and pace_note({"pace": "x"}) is None


# -- against a slow server ------------------------------------------------------------------
@pytest.fixture
def slow_server():
    """Each batch takes 10 ms per text, one batch at a time; abandoned batches are computed."""
    with FakeOpenAI(seconds_per_text=0.01) as server:
        yield server


def test_a_slow_server_is_sent_smaller_batches_and_fewer_at_once_and_the_run_finishes(
        slow_server):
    """16 texts take 0.16 s, within the 0.3 s timeout, but 4 requests at once queue up to
    0.64 s: at the configured pace every retry lands behind the abandoned batches and times
    out too (the client as it was gave up after 7 attempts). Halving the pace drains the queue
    and the run finishes, with the right vectors, and says what it did."""
    events = []
    c = EmbeddingClient(slow_server.url, "m", batch_size=16, concurrency=4, timeout=0.3,
                        seed=0)
    got = c.embed(TEXTS, progress=events.append)
    np.testing.assert_allclose(got, expected(TEXTS), atol=1e-6)
    assert set(slow_server.served) == set(TEXTS)
    shrunk = [e["pace"] for e in events if "pace" in e]
    assert shrunk, "the progress events say the server is slow"
    first = shrunk[0]
    assert (first["batch_size_set"], first["concurrency_set"]) == (16, 4)
    assert (first["batch_size"], first["concurrency"]) == (8, 2)
    assert min(p["batch_size"] for p in shrunk) < 16
    # the first pace event comes as the pace changes, before the next batch arrives
    i = next(i for i, e in enumerate(events) if "pace" in e)
    assert events[i]["done"] == events[i - 1]["done"]
    # what went out after the first timeouts was smaller than what was configured
    sizes = [len(r.inputs) for r in slow_server.requests]
    assert sizes[:4] == [16, 16, 16, 16] and max(sizes[4:]) < 16
    # the server really computed the batches the client gave up on
    assert sum(slow_server.computed) > len(TEXTS)
    assert c.pace.slowest is not None
    (note,) = [n for n in c.notes if "was slow" in n]
    assert "16 texts per request and 4 requests at once" in note
    assert c.config()["batch_size"] == 16 and c.config()["concurrency"] == 4  # as set


def test_at_one_text_and_one_request_the_timeout_is_final_with_the_sentence(slow_server):
    slow_server.seconds_per_text = 0.5  # even one text takes longer than the timeout
    c = EmbeddingClient(slow_server.url, "m", batch_size=4, concurrency=2, timeout=0.2,
                        max_retries=1, seed=0)
    with pytest.raises(ServerUnreachableError, match=r"raise the timeout"):
        c.embed(TEXTS[:4])
    assert (c.pace.batch_size, c.pace.concurrency) == (1, 1)
    assert min(len(r.inputs) for r in slow_server.requests) == 1


def test_cancel_while_slowed_down_stops_without_sending_the_rest(slow_server):
    cancel = threading.Event()
    c = EmbeddingClient(slow_server.url, "m", batch_size=16, concurrency=4, timeout=0.3,
                        seed=0)

    def progress(event):
        if "pace" in event:
            cancel.set()

    from ragdash.errors import Cancelled

    with pytest.raises(Cancelled):
        c.embed(TEXTS, progress=progress, cancel=cancel)
    assert len(slow_server.served) < len(TEXTS)


def small_dataset(n=40) -> Dataset:
    docs = [Document(f"d{i}", f"document {i} about stones and rivers") for i in range(n)]
    queries = [Query("q0", "stones")]
    return Dataset(docs, queries, {"q0": {"d0": 1.0}}, name="slow")


def test_every_batch_that_arrived_is_cached_and_a_second_try_pays_only_for_the_rest(
        tmp_path):
    """One document always times out: its batch is cut down around it, the pieces that
    arrive are cached, the run fails on that document (and sends nothing new after it); once
    the server is fixed the next run sends only what never arrived."""
    ds = small_dataset()
    bad = ds.documents[13].text
    with FakeOpenAI() as server:
        server.fault("timeout", seconds=0.5, match=bad, times=99)
        retriever = make_dense_retriever("openai", model="m", base_url=server.url,
                                         cache_dir=tmp_path, batch_size=8, concurrency=2,
                                         timeout=0.25, max_retries=1)
        with pytest.raises(ServerUnreachableError):
            retriever.document_vectors(ds)
        assert (retriever.embedder.pace.batch_size, retriever.embedder.pace.concurrency) \
            == (1, 1)
        paid = set(server.served)
        # the batch around the bad document was cut down to it: its neighbours arrived
        assert bad not in paid and ds.documents[12].text in paid
        assert ds.documents[8].text in paid
        server._faults.clear()
        before = len(server.requests)
        again = make_dense_retriever("openai", model="m", base_url=server.url,
                                     cache_dir=tmp_path, batch_size=8, concurrency=2)
        vectors = again.document_vectors(ds)
        sent_again = [t for r in server.requests[before:] for t in r.inputs]
        assert bad in sent_again and not paid & set(sent_again)  # nothing is paid twice
        assert set(sent_again) | paid == {d.text for d in ds.documents}
        np.testing.assert_allclose(vectors, expected([d.text for d in ds.documents]),
                                   atol=1e-6)


def test_the_command_lines_progress_bar_says_it_too(capsys):
    from ragdash.cli.evaluate import ProgressBar

    bar = ProgressBar("openai")
    bar({"stage": "documents", "done": 16, "total": 64, "calls": 5, "tokens": 300,
         "pace": {"batch_size": 8, "batch_size_set": 16, "concurrency": 2,
                  "concurrency_set": 4}})
    assert "(server slow: batch 16 → 8, 4 → 2 requests at once)" in capsys.readouterr().err
