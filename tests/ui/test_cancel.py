"""AppTest: Cancel gives control back within a second, and nothing already paid for is lost.

Before, Cancel waited for the requests in flight (21 s on a slow server): the job stayed
"running" and its button disabled until the server had answered them all.
"""

from __future__ import annotations

import time

import pytest
from app_support import custom_server, new_app, open_sample, texts
from fake_openai import FakeOpenAI

from ragdash.jobs import get_manager
from ragdash.runs import get_store

KEY = "sk-test-0123456789abcdefSECRET"
LATENCY = 4.0  # seconds each reply takes: the requests in flight outlast the cancel by far


@pytest.fixture
def slow_server():
    with FakeOpenAI(api_key=KEY, latency=LATENCY) as fake:
        yield fake


def _in_flight(server, timeout: float = 20.0) -> int:
    """Requests sent and not answered yet, once there are at least two."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        waiting = sum(1 for r in list(server.requests) if not r.finished)
        if waiting >= 2:
            return waiting
        time.sleep(0.05)
    return 0


def _start(at, server):
    custom_server(at, server.url, model="text-embedding-3-small", key=KEY)
    at.number_input(key="w:rd_batch_size").set_value(8)
    at.number_input(key="w:rd_concurrency").set_value(3)
    at.number_input(key="w:rd_query_limit").set_value(20).run()
    at.button(key="run_start").click().run()
    job = get_manager().active(at.session_state["rd_owner"])
    assert job is not None
    return job


def test_cancel_returns_at_once_and_the_replies_in_flight_reach_the_cache(slow_server):
    at = open_sample(new_app())
    job = _start(at, slow_server)
    assert _in_flight(slow_server) >= 2, "requests in flight"

    clicked = time.monotonic()
    at.button(key=f"cancel:{job.id}").click().run()
    assert job.wait(1.0), f"still {job.state} a second after Cancel"
    assert time.monotonic() - clicked < 2.0  # the page's own run included
    assert job.state == "cancelled"
    at.run()
    assert "cancelled" in texts(at)
    assert not at.button(key="run_start").disabled, "a new run can be started at once"

    # the replies already on their way are paid for: they arrive and go into the cache
    assert job.wait_settled(3 * LATENCY + 10)
    paid = list(slow_server.served)
    assert all(r.finished for r in slow_server.requests)
    sent = [text for r in slow_server.requests for text in r.inputs]
    assert sorted(paid) == sorted(sent), "every request in flight was answered"
    assert get_store().list() == []  # a cancelled run is not saved

    # the same run again pays only for the texts not yet embedded
    slow_server.latency = 0.0
    at.button(key="run_start").click().run()
    job2 = get_manager().active(at.session_state["rd_owner"])
    assert job2 is not None and job2.wait(60) and job2.state == "done", job2.error
    again = slow_server.served[len(paid):]
    assert not set(again) & set(paid), "a text paid for before was embedded again"


def test_a_restart_during_the_drain_waits_for_it_instead_of_paying_twice(slow_server):
    at = open_sample(new_app())
    job = _start(at, slow_server)
    assert _in_flight(slow_server) >= 2
    at.button(key=f"cancel:{job.id}").click().run()
    assert job.wait(1.0) and job.state == "cancelled"
    slow_server.latency = 0.0
    at.button(key="run_start").click().run()  # while the three replies are still coming
    job2 = get_manager().active(at.session_state["rd_owner"])
    assert job2 is not None and job2.wait(60) and job2.state == "done", job2.error
    served = list(slow_server.served)
    assert len(served) == len(set(served)), "a text was embedded (and paid for) twice"
