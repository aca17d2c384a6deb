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

from ragdash.run import Run
from ragdash.runs.store import SCHEMA_VERSION, RunStore

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


def test_a_run_saved_before_the_migration_is_not_saved_again(old_store):
    """The migration gives every old run its identity: saving one of them again returns its
    id rather than a copy."""
    run_id = next(iter(json.loads((FIXTURE / "expected.json").read_text())))
    again = old_store.load(run_id, cached=False)
    again.id = None
    assert old_store.save(again) == run_id and again.reused
    assert len(old_store.list()) == len(json.loads((FIXTURE / "expected.json").read_text()))


def test_a_version_1_store_takes_new_runs_beside_the_old(old_store):
    run_id = next(iter(json.loads((FIXTURE / "expected.json").read_text())))
    old = old_store.load(run_id)
    new_id = old_store.save(Run.of_ranking(old.dataset, old.ranking, retriever="copy",
                                           kmax=old.kmax, query_ids=old.query_ids))
    assert {s.id for s in old_store.list()} >= {run_id, new_id}
    assert old_store.load(new_id).table().mean("ndcg@10") == pytest.approx(
        old.table().mean("ndcg@10"))


# -- a store written by main at 2ddbea2 (schema 1; parents/resources were kept in the config) --
FIXTURE_2DDBEA2 = TESTS / "data" / "runstore-2ddbea2"


@pytest.fixture
def store_2ddbea2(tmp_path):
    home = tmp_path / "home2"
    home.mkdir()
    shutil.copy(FIXTURE_2DDBEA2 / "runs.sqlite", home / "runs.sqlite")
    return RunStore(home)


def test_a_store_from_2ddbea2_opens_with_parents_and_resources_as_fields(store_2ddbea2):
    import sqlite3

    expected = json.loads((FIXTURE_2DDBEA2 / "expected.json").read_text(encoding="utf-8"))
    listed = {s.id: s for s in store_2ddbea2.list()}
    assert set(listed) == set(expected)
    for run_id, want in expected.items():
        run = store_2ddbea2.load(run_id, cached=False)
        assert (run.name, run.source, run.kmax) == (want["name"], want["source"], want["kmax"])
        assert run.parents == want.get("parents", [])
        assert listed[run_id].parents == tuple(want.get("parents", []))
        assert run.resources == want.get("resources", {})
        assert "parents" not in run.config and "resources" not in run.config
        assert run.timings == {}
        for metric, value in want["headline"].items():
            assert run.table().mean(metric) == pytest.approx(value, abs=1e-12), (run_id, metric)
    child = next(r for r, w in expected.items() if w.get("parents"))
    assert store_2ddbea2.load(child).config["transform"] == {"kind": "truncate", "k": 5}
    with sqlite3.connect(store_2ddbea2.path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    RunStore(store_2ddbea2.home)  # opening a migrated store again changes nothing
    assert {s.id for s in RunStore(store_2ddbea2.home).list()} == set(expected)


def test_a_store_from_a_newer_ragdash_is_refused_in_one_sentence(tmp_path):
    import sqlite3

    from ragdash.errors import RunStoreError

    home = tmp_path / "future"
    home.mkdir()
    with sqlite3.connect(home / "runs.sqlite") as conn:
        conn.execute("PRAGMA user_version=9")
    with pytest.raises(RunStoreError,
                       match=rf"newer ragdash \(schema 9; this one reads up to {SCHEMA_VERSION}\)"):
        RunStore(home)
