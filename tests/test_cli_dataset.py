"""How commands load their dataset: the cycle collector is paused while reading and back on
after (even after an error); a command that is the process freezes its dataset out of the
collector, a call of ``main([...])`` inside a longer-lived process does not."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest
from paths import JSQUAD, ROOT

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


def test_main_called_in_process_freezes_nothing(capsys):
    from ragdash.cli import main

    before = gc.get_freeze_count()
    assert main(["evaluate", str(JSQUAD), "--limit-queries", "5", "--format", "json"]) == 0
    assert gc.get_freeze_count() == before


def test_the_command_line_process_freezes_its_dataset():
    script = ("import gc, sys; from ragdash.cli import main; "
              f"sys.argv = ['ragdash', 'evaluate', {str(JSQUAD)!r}, '--limit-queries', '5', "
              "'--format', 'json']; code = main(); "
              "print('frozen', gc.get_freeze_count(), file=sys.stderr); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    frozen = int(done.stderr.split("frozen")[-1])
    assert frozen > 10_000  # the jsquad slice's documents, their strings' holders, ...
