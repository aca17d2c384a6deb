"""Timings of the app's plain-Python core on real data: run store, views, charts, report.

    python bench/bench_app_core.py [--data /work/shared/data/jsquad-valid] [--kmax 100]

Loads a BEIR folder (default: the full JSQuAD validation set, 1,145 documents and 4,442
queries), ranks it with BM25, then times what the app does after a run: save it, list the
store, load it in a "fresh session" (a new RunStore, so the dataset is read from SQLite),
recompute the metric table, build the per-query table and a drill-down, draw the curves with
bootstrap bands, and write the HTML report (two runs, with the comparison). Each step is
timed once (wall clock) in a temporary RAGDASH_HOME; the file sizes are printed too.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragdash.loaders import load_dataset
from ragdash.metrics import evaluate
from ragdash.present.charts import curve_figure
from ragdash.present.report import build_report
from ragdash.present.tables import drilldown, per_query_frame
from ragdash.retrieval import make_retriever
from ragdash.run import Run
from ragdash.runs import RunStore, export_json
from ragdash.stats import table_bands


class Timer:
    def __init__(self) -> None:
        self.rows: list[tuple[str, float]] = []

    def __call__(self, label: str, fn, *args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        self.rows.append((label, time.perf_counter() - t0))
        print(f"{label:<44} {self.rows[-1][1] * 1000:9.1f} ms", flush=True)
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/work/shared/data/jsquad-valid")
    ap.add_argument("--kmax", type=int, default=100)
    args = ap.parse_args()
    timer = Timer()
    ds = timer("load dataset", load_dataset, args.data)
    queries = ds.evaluated_queries()
    print(f"  {len(ds.documents):,} documents, {len(queries):,} evaluated queries")
    ranking = timer("BM25 ranking", make_retriever("bm25").rank, ds, queries, args.kmax)
    qids = [q.id for q in queries]
    table = timer("evaluate (all K)", evaluate, ranking, ds.qrels, kmax=args.kmax, queries=qids)
    with tempfile.TemporaryDirectory() as home:
        store = RunStore(home)
        run_id = timer("store.save (first: dataset stored too)", store.save, dataset=ds,
                       ranking=ranking, retriever="bm25", kmax=args.kmax, query_ids=qids)
        timer("store.save (second: dataset deduplicated)", store.save, dataset=ds,
              ranking=ranking, retriever="bm25", kmax=args.kmax, query_ids=qids, name="again")
        timer("store.list", store.list)
        fresh = RunStore(home)
        run = timer("store.load in a fresh store (no cache)", fresh.load, run_id)
        timer("run.table() recomputed", run.table)
        timer("store.load again (dataset cached)", fresh.load, run_id)
        db = Path(home) / "runs.sqlite"
        size = db.stat().st_size + sum(p.stat().st_size for p in Path(home).glob("*-wal"))
        print(f"  runs.sqlite (+wal): {size / 1e6:.1f} MB for 2 runs and 1 dataset")
        data = timer("export_json", export_json, run)
        print(f"  run JSON: {len(data) / 1e6:.1f} MB")
    timer("per_query_frame (3 metrics)", per_query_frame, table, ds, ranking,
          ["ndcg@10", "recall@10", "mrr@10"])
    timer("drilldown (one query, K=10)", drilldown, ds, ranking, None, qids[0], 10)
    timer("curve_figure 1 family, no bands", curve_figure, {"bm25": table}, "ndcg")
    pair = {"a": table, "b": table}
    bands = timer("table_bands 2 runs (2,000 resamples)", table_bands, pair, "ndcg")
    timer("curve_figure 2 runs, bands given", curve_figure, pair, "ndcg", bands=bands)
    other = ranking.truncate(10)
    table_b = evaluate(other, ds.qrels, kmax=args.kmax, queries=qids)
    runs = [Run(dataset=ds, ranking=r, query_ids=qids, kmax=args.kmax, retriever="bm25",
                name=name, config={"retriever": "bm25"}, _table=tb)
            for name, r, tb in (("bm25", ranking, table), ("bm25 top-10", other, table_b))]
    page = timer("build_report (2 runs, comparison, ja)", build_report, runs, dataset=ds,
                 lang="ja")
    print(f"  report: {len(page.encode()) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
