"""A run store written by an earlier ragdash (schema version 1, commit 086b16d) still opens.

``tests/data/runstore-v1/runs.sqlite`` was made by ``make_v1_store.py`` with that commit;
``expected.json`` holds what that code recorded: names, sources, sizes and headline means.
Today's code must list both runs, load them and recompute the same numbers from the rankings.
"""

from __future__ import annotations

import json
import shutil

import pytest
from paths import TESTS

from ragdash.runs.store import RunStore

FIXTURE = TESTS / "data" / "runstore-v1"


@pytest.fixture
def old_store(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(FIXTURE / "runs.sqlite", home / "runs.sqlite")  # never write the fixture
    return RunStore(home)


def test_a_version_1_store_lists_loads_and_rescores_its_runs(old_store):
    expected = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    listed = {s.id: s for s in old_store.list()}
    assert set(listed) == set(expected)
    for run_id, want in expected.items():
        summary = listed[run_id]
        assert (summary.name, summary.source) == (want["name"], want["source"])
        assert (summary.n_queries, summary.kmax) == (want["n_queries"], want["kmax"])
        run = old_store.load(run_id)
        table = run.table()
        for metric, value in want["headline"].items():
            assert table.mean(metric) == pytest.approx(value, abs=1e-12), (run_id, metric)


def test_a_version_1_store_takes_new_runs_beside_the_old(old_store):
    run_id = next(iter(json.loads((FIXTURE / "expected.json").read_text())))
    old = old_store.load(run_id)
    new_id = old_store.save(dataset=old.dataset, ranking=old.ranking, retriever="copy",
                            kmax=old.kmax, query_ids=old.query_ids)
    assert {s.id for s in old_store.list()} >= {run_id, new_id}
    assert old_store.load(new_id).table().mean("ndcg@10") == pytest.approx(
        old.table().mean("ndcg@10"))
