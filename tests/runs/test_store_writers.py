"""The run store under many writers: real processes, each running the command line's
``evaluate --store`` on one new store, released at the same moment.

Each writer is a process of its own (``writers.py`` forks them from one process that
imported ragdash once, so twenty start in a fraction of a second on two cores), with its own
SQLite connections, as twenty ``python -m ragdash evaluate ... --store`` in twenty terminals
are.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from paths import ROOT

from ragdash.errors import RunStoreError
from ragdash.runs.store import SCHEMA_VERSION, RunStore

SAMPLE = ROOT / "ragdash" / "data" / "samples" / "jsquad-mini"
WRITERS = 20
DRIVER = Path(__file__).with_name("writers.py")


def _run_writers(tmp_path, argvs: list[list[str]]) -> tuple[list[int], list[str]]:
    """Run the command lines at once (``writers.py``) on a store that is not there yet."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"home": str(tmp_path / "home"),
                                "warm_home": str(tmp_path / "warm"), "argvs": argvs}))
    done = subprocess.run([sys.executable, str(DRIVER), str(spec)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    return result["codes"], result["outputs"]


def _counts(home) -> tuple[int, int]:
    with sqlite3.connect(home / "runs.sqlite") as conn:
        return (conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0],
                conn.execute("SELECT COUNT(*) FROM datasets").fetchone()[0])


def test_twenty_writers_on_a_new_store_save_each_run_once(tmp_path):
    """Ten writers save the same run and ten save runs of their own, on a store that none
    has made yet. Before: "duplicate column name: timings" (two processes migrating the new
    store), "the run store ... is damaged (UNIQUE constraint failed:
    datasets.fingerprint)", and the same run saved twice."""
    same = ["evaluate", str(SAMPLE), "--limit-queries", "5", "--k", "1,10", "--store"]
    own = [["evaluate", str(SAMPLE), "--limit-queries", str(n), "--k", "1,10", "--store"]
           for n in range(6, 6 + WRITERS // 2)]
    argvs = [arg for pair in zip([same] * (WRITERS // 2), own) for arg in pair]
    codes, texts = _run_writers(tmp_path, argvs)
    for code, text in zip(codes, texts):
        assert code == 0, text
        assert "damaged" not in text and "error" not in text.lower(), text
    assert _counts(tmp_path / "home") == (1 + WRITERS // 2, 1)  # one dataset for all
    links = {line.split("run=")[1].split()[0] for text in texts[::2]
             for line in text.splitlines() if "/Results?run=" in line}
    assert len(links) == 1, links  # every writer of the same run was given its one id
    with sqlite3.connect(tmp_path / "home" / "runs.sqlite") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_constraint_error_is_a_conflict_not_damage(tmp_path):
    """Whatever constraint a write meets, the sentence says the store is fine and never
    advises moving it aside."""
    store = RunStore(tmp_path / "home")
    with pytest.raises(RunStoreError) as info, store._write() as conn:
        for _ in range(2):
            conn.execute("INSERT INTO datasets(fingerprint, name, sizes, content) "
                         "VALUES ('fp', 'x', '{}', x'00')")
    text = str(info.value)
    assert "UNIQUE constraint failed" in text and "store is fine" in text
    assert "damaged" not in text and "move it aside" not in text
    assert store.datasets() == []  # the transaction was rolled back


def test_a_save_racing_another_writer_of_the_same_run_waits_and_reuses_it(tmp_path):
    """The race made certain: another connection (another process, as far as SQLite can
    tell) has saved the same run and not yet committed when this one saves. The save waits
    for the write lock and then finds that run: one row, no "UNIQUE constraint failed"."""
    from test_store import make_dataset, make_ranking

    from ragdash.run import Run
    from ragdash.runs.store import _insert_dataset, _insert_run, _run_row

    store = RunStore(tmp_path / "home")
    ds = make_dataset()
    theirs = Run.of_ranking(ds, make_ranking(), name="theirs")
    other = sqlite3.connect(store.path, isolation_level=None, timeout=30)
    other.execute("BEGIN IMMEDIATE")
    _insert_dataset(other, theirs.dataset_fingerprint, ds)
    their_id = _insert_run(other, {**_run_row(theirs, ()), "owner": None})
    mine = Run.of_ranking(make_dataset(), make_ranking(), name="mine")
    outcome: list = []
    saver = threading.Thread(target=lambda: outcome.append(_try(store.save, mine)))
    saver.start()
    saver.join(0.5)
    assert saver.is_alive()  # waiting for the other writer's lock
    other.execute("COMMIT")
    other.close()
    saver.join(30)
    assert outcome == [their_id] and mine.reused
    assert [s.id for s in store.list()] == [their_id] and len(store.datasets()) == 1


def _try(call, *args):
    try:
        return call(*args)
    except RunStoreError as exc:
        return str(exc)
