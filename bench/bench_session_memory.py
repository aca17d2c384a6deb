"""The server's memory after its sessions have closed, in headless Chromium against
``streamlit run app.py``.

    python bench/bench_session_memory.py [--work /tmp/ragdash-sessmem] [--docs 20000]
                                         [--queries 10000] [--sessions 10] [--after 150]

Makes (once, kept in ``--work``; seeded) a synthetic corpus of ``--docs`` documents and
``--queries`` queries (bench/make_synthetic_beir.py) and a RAGDASH_HOME with 2 saved BM25
runs of it. Starts the app, then opens ``--sessions`` browser sessions one after another, each
on a run's link (``/Results?run=<id>``; the runs and the languages alternate, so the sessions
hold different views), and keeps them open. Prints the RSS of the streamlit process before
the first session, with every session open, and at times after every session has closed
(up to ``--after`` seconds). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser"), str(ROOT / "bench")]

from bench_app_scale import VIEWPORT, rss_mb, server_pid, settled  # noqa: E402
from harness import launch, streamlit_server  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def make_home(work: Path, docs: int, queries: int) -> list[str]:
    """The corpus and the 2 saved runs (made once): the runs' ids."""
    from ragdash.loaders import load_dataset
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval import make_retriever
    from ragdash.runs import RunStore

    beir = work / "beir"
    if not (beir / "qrels" / "test.tsv").exists():
        import make_synthetic_beir

        make_synthetic_beir.main([str(beir), "--docs", str(docs), "--queries", str(queries)])
    store = RunStore(work / "home")
    have = store.list()
    if len(have) >= 2:
        return [s.id for s in reversed(have)]
    ds = load_dataset(beir)
    ds.name = f"synthetic-{queries // 1000}k-queries"
    ids = []
    for name, options in [("bm25", {}), ("bm25 k1=0.9 b=0.4", {"k1": 0.9, "b": 0.4})]:
        run = run_evaluation(ds, make_retriever("bm25", **options), kmax=100)
        run.name = name
        ids.append(store.save(run))
        print(f"  saved run {name!r}", flush=True)
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragdash-sessmem"))
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--after", type=float, default=150.0,
                        help="seconds to watch the memory after the last session closed")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    ids = make_home(args.work, args.docs, args.queries)
    home = args.work / "home"
    rows: list[tuple[str, float, float]] = []

    def measure(label: str, pid: int) -> None:
        now, peak = rss_mb(pid)
        rows.append((label, now, peak))
        print(f"  {label:<44} RSS {now:8.0f} MB   peak {peak:8.0f} MB", flush=True)

    with streamlit_server(home) as url, sync_playwright() as p:
        pid = server_pid(int(url.rsplit(":", 1)[1]))
        browser = launch(p)
        time.sleep(2)
        measure("server started, no session", pid)
        contexts = []
        for i in range(args.sessions):
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            lang = "ja" if i % 2 else "en"
            t0 = time.perf_counter()
            page.goto(f"{url}/Results?run={ids[(i // 2) % len(ids)]}&lang={lang}")
            page.locator('[data-testid="stSidebar"]').wait_for(timeout=120_000)
            settled(page, timeout=600_000)
            print(f"  session {i + 1}: Results in {time.perf_counter() - t0:.1f} s", flush=True)
            contexts.append(context)
        measure(f"{args.sessions} sessions open on Results", pid)
        for context in contexts:
            context.close()
        closed = time.monotonic()
        for at in (5, 30, 60, 90, 120, 150, 180, 240):
            if at > args.after:
                break
            time.sleep(max(0.0, closed + at - time.monotonic()))
            measure(f"{at:>3.0f} s after every session closed", pid)
        browser.close()
    print("\n| moment | RSS (MB) | peak (MB) |\n|---|---:|---:|")
    for label, now, peak in rows:
        print(f"| {label} | {now:,.0f} | {peak:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
