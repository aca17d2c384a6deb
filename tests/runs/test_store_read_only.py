"""A read-only ``RAGDASH_HOME`` can still be read: ``check store:<id>`` and the run list work,
and nothing is written — no schema, no WAL or shared-memory file, not one byte of the store.

"Read-only" is made real for the process that reads: the folder and its files lose their write
bits, and when the tests run as root (who writes through permission bits) the reading command
runs as root without the capabilities that override them (setpriv drops CAP_DAC_OVERRIDE,
CAP_DAC_READ_SEARCH and CAP_FOWNER), so it reads the checkout wherever it lies (a private
``mktemp -d`` included) and cannot write the home.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from paths import ROOT

from ragdash.errors import RunStoreError
from ragdash.run import Run
from ragdash.runs.store import RunStore

SAMPLE = ROOT / "ragdash" / "data" / "samples" / "jsquad-mini"
QRELS = SAMPLE / "qrels" / "test.tsv"
#: the capabilities that let root write through (or change) permission bits
OVERRIDES = "-dac_override,-dac_read_search,-fowner"


@pytest.fixture
def saved_home():
    """A home with one saved BM25 run (closed: no -wal / -shm left). Yields (home, run id)."""
    top = Path(tempfile.mkdtemp(prefix="ragdash-ro-", dir="/tmp"))
    try:
        home = top / "home"
        done = _ragdash("evaluate", SAMPLE, "--limit-queries", 5, "--k", "1,10", "--store",
                        home=home)
        assert done.returncode == 0, done.stderr
        run_id = done.stdout.split("/Results?run=")[1].split()[0]
        assert not any(home.glob("runs.sqlite-*"))
        yield home, run_id
    finally:
        for p in [top, *top.rglob("*")]:
            p.chmod(0o700 if p.is_dir() else 0o600)
        shutil.rmtree(top)


def _ragdash(*args, home: Path, as_reader: bool = False):
    """``python -m ragdash ARGS`` with ``RAGDASH_HOME=home``; ``as_reader``: as a process
    that cannot write ``home``."""
    return _python("-m", "ragdash", *args, home=home, as_reader=as_reader)


def _python(*args, home: Path, as_reader: bool = False):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGDASH_HOME": str(home),
           "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, *map(str, args)]
    if as_reader and os.geteuid() == 0:  # root writes through permission bits: drop that
        setpriv = shutil.which("setpriv")
        assert setpriv, "running as root, these tests need util-linux's setpriv"
        command = [setpriv, f"--inh-caps={OVERRIDES}", f"--bounding-set={OVERRIDES}",
                   *command]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)


def _lock(home: Path) -> dict[str, tuple[int, bytes]]:
    """Take the write bits away; returns every file's mtime and bytes, to show nothing
    changed."""
    for p in [home, *home.rglob("*")]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    for p in [home, *home.rglob("*")]:
        assert not p.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in home.iterdir()}


def test_check_and_the_run_list_read_a_read_only_home(saved_home):
    home, run_id = saved_home
    before = _lock(home)
    check = _ragdash("check", QRELS, f"store:{run_id}", f"store:{run_id}", home=home,
                     as_reader=True)
    assert check.returncode == 0, check.stderr  # was: exit 2, "attempt to write a readonly
    assert "PASS" in check.stdout                # database" (the WAL switch on opening)
    listed = _python("-c", "from ragdash.runs import get_store; s = get_store(); "
                           "print(s.read_only, [r.id for r in s.list()], "
                           "s.load(s.list()[0].id).table().mean('ndcg@10') > 0)",
                     home=home, as_reader=True)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == ["True", f"['{run_id}']", "True"]
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in home.iterdir()}
    assert after == before  # no -wal, no -shm, not one byte written


def test_saving_into_a_read_only_home_is_one_sentence(saved_home):
    home, _ = saved_home
    _lock(home)
    done = _ragdash("evaluate", SAMPLE, "--limit-queries", 3, "--k", "1,10", "--store",
                    home=home, as_reader=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "is read-only here" in done.stderr and "RAGDASH_HOME" in done.stderr
    assert "damaged" not in done.stderr


def test_opening_read_only_writes_nothing_even_where_writing_is_allowed(tmp_path):
    """The read-only path itself (the one a read-only home takes), checked where this
    process could write: the store file's bytes stay the same (SQLite may add its shared
    memory files beside it, as any reader of a WAL file does where it may)."""
    from test_store import make_dataset, make_ranking

    home = tmp_path / "home"
    run_id = RunStore(home).save(Run.of_ranking(make_dataset(), make_ranking()))
    stored = (home / "runs.sqlite").read_bytes()
    assert not any(home.glob("runs.sqlite-*"))
    reader = RunStore(home, read_only=True)
    assert [s.id for s in reader.list()] == [run_id]
    assert reader.load(run_id).table().mean("ndcg@3") > 0
    with pytest.raises(RunStoreError, match="read-only here"):
        reader.save(Run.of_ranking(make_dataset(), make_ranking(0.2)))
    with pytest.raises(RunStoreError, match="read-only here"):
        reader.rename(run_id, "new name")
    assert (home / "runs.sqlite").read_bytes() == stored


def test_a_read_only_home_without_a_store_lists_nothing(tmp_path):
    home = tmp_path / "empty"
    home.mkdir()
    reader = RunStore(home, read_only=True)
    assert reader.list() == [] and reader.datasets() == []
    assert list(home.iterdir()) == []


def test_a_read_only_store_of_an_older_schema_says_what_to_do(tmp_path):
    home = tmp_path / "old"
    home.mkdir()
    with sqlite3.connect(home / "runs.sqlite") as conn:
        conn.execute("CREATE TABLE runs (id TEXT)")
        conn.execute("PRAGMA user_version=4")
    with pytest.raises(RunStoreError, match=r"older ragdash.*read-only here"):
        RunStore(home, read_only=True)
