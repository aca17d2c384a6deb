"""AppTest: a run's link opens its dataset on Results without validating it (seconds at
200,000 documents); the Data page makes the report when it shows it, once for the server."""

from __future__ import annotations

import pytest
from app_support import new_app, open_page, save_bm25_run

from ragdash.ui import keys, state


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = state.validate

    def validate(ds, **kw):
        calls.append(ds.name)
        return real(ds, **kw)

    monkeypatch.setattr(state, "validate", validate)
    monkeypatch.setattr(state, "_REPORTS", type(state._REPORTS)())
    return calls


def test_a_run_link_does_not_validate_and_the_data_page_does_once(sample, counted):
    run_id = save_bm25_run(sample, name="lazy")
    at = open_page(new_app(run=run_id), "results")
    assert at.session_state[keys.DATASET_FP] == sample.fingerprint()
    assert counted == []
    assert at.session_state[keys.VALIDATION] is None
    open_page(at, "data")
    assert counted == [sample.name]
    report = at.session_state[keys.VALIDATION]
    assert report.sizes["documents"] == len(sample.documents)
    other = open_page(new_app(run=run_id), "data")  # another session: the kept report
    assert other.session_state[keys.VALIDATION] is report
    assert counted == [sample.name]
