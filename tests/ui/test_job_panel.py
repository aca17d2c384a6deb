"""AppTest: evaluations started from the app as background jobs — the one-click start on the
sample, saved once however often it is clicked."""

from __future__ import annotations

from app_support import new_app, texts, wait_for_jobs

from ragdash.runs import get_store


def test_try_it_on_the_sample_twice_saves_one_run_and_says_so():
    """A second click of "Try it on the sample" finds the run saved and says so."""
    at = new_app().run()
    at.button(key="home_quick").click().run()
    wait_for_jobs(at)
    first = [s.id for s in get_store().list()]
    assert len(first) == 1
    at.switch_page("app.py").run()
    at.button(key="home_quick").click().run()
    assert [j.state for j in wait_for_jobs(at)] == ["done", "done"]
    at.switch_page("pages/3_Results.py").run()
    assert [s.id for s in get_store().list()] == first
    assert ("the same run (same dataset, configuration and ranking) was saved already; it is "
            "shown, not saved again.") in texts(at)
