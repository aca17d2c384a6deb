"""Writes runs.sqlite beside this file with ragdash's run store at schema version 1.

Run it with a checkout of commit 086b16d (the last main before the store moved to version 2)
on the Python path, from an empty folder:

    git -C /work/main worktree add /tmp/oldmain 086b16d
    cd /tmp/oldmain && python /path/to/tests/data/runstore-v1/make_v1_store.py

It saves two runs on the bundled jsquad-mini sample: BM25 over its first 40 queries at
Kmax 20 (with a cost record), and a TREC run file (written here from the qrels: for each of
the first 30 queries one judged document at rank 2, others around it) imported at Kmax 10.
tests/test_runs_migration.py opens the file with today's code and checks that both runs list,
load, and score what this code recorded in their headlines (written to expected.json).
"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

from ragdash.pipeline import run_evaluation
from ragdash.retrieval import make_retriever
from ragdash.runs import import_trec
from ragdash.runs.store import RunStore
from ragdash.samples import load_sample

HERE = Path(__file__).resolve().parent


def main() -> None:
    home = Path(tempfile.mkdtemp())
    store = RunStore(home)
    dataset = load_sample("jsquad-mini")
    result = run_evaluation(dataset, make_retriever("bm25"), kmax=20, limit_queries=40)
    bm25_id = store.save(result, dataset=dataset, name="bm25 v1",
                         cost={"estimated_usd": 0.0, "tokens": 1234})
    docs = [d.id for d in dataset.documents]
    lines = []
    for q in list(dataset.qrels)[:30]:
        judged = sorted(dataset.qrels[q])
        ranked = [d for d in docs[:3] if d not in judged][:1] + judged[:1] + \
                 [d for d in docs[3:12] if d not in judged]
        lines += [f"{q} Q0 {d} {i} {20 - i} ext" for i, d in enumerate(ranked, 1)]
    trec_id = import_trec(store, "\n".join(lines) + "\n", dataset=dataset,
                          name="external engine", filename="engine.run", kmax=10)
    expected = {}
    for s in store.list():
        expected[s.id] = {"name": s.name, "source": s.source, "kmax": s.kmax,
                          "n_queries": s.n_queries, "headline": s.headline}
    assert set(expected) == {bm25_id, trec_id}
    # one file, no WAL beside it
    import sqlite3
    conn = sqlite3.connect(home / "runs.sqlite")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("VACUUM")
    conn.close()
    shutil.copy(home / "runs.sqlite", HERE / "runs.sqlite")
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"wrote {HERE / 'runs.sqlite'} ({(HERE / 'runs.sqlite').stat().st_size:,} bytes)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
