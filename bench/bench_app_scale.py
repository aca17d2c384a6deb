"""The app's pages at a real size, timed in headless Chromium against ``streamlit run app.py``.

    python bench/bench_app_scale.py [--work /tmp/ragdash-appscale] [--docs 200000]
                                    [--queries 10000] [--repeat 2]

Makes (once, kept in ``--work``; seeded, so the same arguments give the same files) a synthetic
corpus of ``--docs`` 60-word documents and ``--queries`` queries with qrels
(bench/make_synthetic_beir.py), as a BEIR zip and as CSV tables, and a RAGDASH_HOME with 5
saved BM25 runs of it (k1/b variants, made through the Python API). Then starts the app and,
in headless Chromium (Debian's /usr/bin/chromium), times each interaction from the action to
the page settled (the script no longer running and no skeleton on screen): the upload of the
corpus (CSV tables and the BEIR zip) to the validation report, opening Results, changing K,
picking another metric, filtering and searching the per-query table, moving to its next page,
opening a drill-down, Compare with 3 runs (curves, significance table, the per-query scatter),
Choose a setup, and switching the language. Prints one table (best of ``--repeat`` where an
interaction can be repeated) and the server's memory (RSS of the streamlit process, now and
its peak) with that dataset and the runs loaded. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser"), str(ROOT / "bench")]

from harness import launch, open_app, streamlit_server  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from ragdash.i18n import LANGUAGE_NAMES, has, t  # noqa: E402

VIEWPORT = {"width": 1400, "height": 1000}
SETTLED = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
           " return app && app.dataset.testScriptState === 'notRunning'"
           " && !document.querySelector('[data-testid=\"stSkeleton\"]'); }")
RUNNING = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
           " return app && app.dataset.testScriptState === 'running'; }")
#: BM25 settings of the five saved runs
VARIANTS = [("bm25", {}), ("bm25 k1=0.9 b=0.4", {"k1": 0.9, "b": 0.4}),
            ("bm25 k1=1.5 b=0.9", {"k1": 1.5, "b": 0.9}), ("bm25 k1=2.0 b=0.75", {"k1": 2.0,
                                                                                 "b": 0.75}),
            ("bm25 b=0.3", {"b": 0.3})]


# -- data -----------------------------------------------------------------------------------
def make_data(work: Path, docs: int, queries: int) -> dict[str, Path]:
    beir = work / "beir"
    if not (beir / "qrels" / "test.tsv").exists():
        import make_synthetic_beir

        make_synthetic_beir.main([str(beir), "--docs", str(docs), "--queries", str(queries)])
    out = {"zip": work / "synthetic-beir.zip", "corpus": work / "csv" / "corpus.csv",
           "queries": work / "csv" / "queries.csv", "qrels": work / "csv" / "qrels.csv"}
    if not out["zip"].exists():
        with zipfile.ZipFile(out["zip"], "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            for name in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv"):
                z.write(beir / name, name)
    if not out["qrels"].exists():
        out["corpus"].parent.mkdir(parents=True, exist_ok=True)
        with open(beir / "corpus.jsonl", encoding="utf-8") as f, \
                open(out["corpus"], "w", encoding="utf-8", newline="") as g:
            w = csv.writer(g)
            w.writerow(["id", "title", "text"])
            for line in f:
                d = json.loads(line)
                w.writerow([d["_id"], d.get("title", ""), d["text"]])
        with open(beir / "queries.jsonl", encoding="utf-8") as f, \
                open(out["queries"], "w", encoding="utf-8", newline="") as g:
            w = csv.writer(g)
            w.writerow(["id", "text"])
            for line in f:
                d = json.loads(line)
                w.writerow([d["_id"], d["text"]])
        with open(beir / "qrels" / "test.tsv", encoding="utf-8") as f, \
                open(out["qrels"], "w", encoding="utf-8", newline="") as g:
            w = csv.writer(g)
            w.writerow(["query_id", "doc_id", "relevance"])
            next(f)
            for line in f:
                w.writerow(line.rstrip("\n").split("\t"))
    return out


def make_runs(work: Path) -> list[str]:
    """The five saved runs (made once): their ids, oldest first."""
    from ragdash.loaders import load_dataset
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval import make_retriever
    from ragdash.runs import RunStore

    store = RunStore(work / "home")
    have = store.list()
    if len(have) >= len(VARIANTS):
        return [s.id for s in reversed(have)]
    ds = load_dataset(work / "beir")
    ds.name = "synthetic-200k"
    ids = []
    for name, options in VARIANTS:
        t0 = time.perf_counter()
        run = run_evaluation(ds, make_retriever("bm25", **options), kmax=100)
        run.name = name
        ids.append(store.save(run))
        print(f"  saved run {name!r} in {time.perf_counter() - t0:.1f} s", flush=True)
    return ids


# -- the server's memory --------------------------------------------------------------------
def server_pid(port: int) -> int | None:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in cmd and str(port).encode() in cmd:
            return int(proc.name)
    return None


def rss_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


# -- timing -------------------------------------------------------------------------------
def settled(page, *, timeout: float = 300_000) -> None:
    # a rerun starts a moment after the action; a very short one may be missed
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(RUNNING, timeout=1_500, polling=10)
    page.wait_for_function(SETTLED, timeout=timeout, polling=20)


class Table:
    def __init__(self) -> None:
        self.rows: dict[str, list[float]] = {}

    def time(self, label: str, action, *, until=None) -> float:
        t0 = time.perf_counter()
        action()
        if until is not None:
            until()
        settled(self.page)
        seconds = time.perf_counter() - t0
        self.rows.setdefault(label, []).append(seconds)
        print(f"  {label:<52} {seconds:7.2f} s", flush=True)
        return seconds


def pick(page, label: str, option: str) -> None:
    """Choose ``option`` in the selectbox labelled ``label`` (typed, as a user does in a long
    list)."""
    box = page.get_by_label(label, exact=True)
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).first.click()


def upload(browser, url: str, table: Table, files: list[Path], label: str) -> None:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    table.page = page
    open_app(page, url)
    page.locator('[data-testid="stSidebar"]').get_by_role("link",
                                                          name=t("nav.data", "en")).click()
    settled(page)
    page.get_by_role("tab", name=t("data.tab_upload", "en")).click()
    t0 = time.perf_counter()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        [str(f) for f in files])
    page.get_by_role("button", name=t("data.load_files", "en")).and_(
        page.locator(":enabled")).wait_for(timeout=300_000)
    settled(page)
    print(f"  ({label}: files sent to the server in {time.perf_counter() - t0:.1f} s)")
    heading = page.get_by_role("heading", name=t("data.validation", "en"), exact=True)
    table.time(f"upload {label} → validation report",
               lambda: page.get_by_role("button", name=t("data.load_files", "en")).click(),
               until=lambda: heading.wait_for(timeout=600_000))
    context.close()


def pages(browser, url: str, table: Table, ids: list[str]) -> None:
    en = "en"
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    table.page = page

    def nav(label: str):
        return lambda: page.locator('[data-testid="stSidebar"]').get_by_role(
            "link", name=label).click()

    table.time("open Results by link (new session, cold)",
               lambda: page.goto(f"{url}/Results?run={ids[-1]}"),
               until=lambda: page.locator('[data-testid="stSidebar"]').wait_for(timeout=300_000))
    table.time("open Results by link (same run, new session)",
               lambda: page.goto(f"{url}/Results?run={ids[-1]}"),
               until=lambda: page.locator('[data-testid="stSidebar"]').wait_for(timeout=300_000))
    for k in ("20", "10"):
        table.time("change K", lambda k=k: pick(page, t("res.k", en), k))
    for family in ("MAP", "Precision"):
        def add(family=family) -> None:
            page.get_by_label(t("res.metrics", en), exact=True).click()
            page.get_by_role("option", name=family, exact=True).click()
            page.keyboard.press("Escape")
        table.time("pick another metric", add)
    per_query_table(page, table)
    for nth in (3, 7):
        table.time("open a drill-down (pick a query)", lambda n=nth: pick_query(page, n))
    for lang_name in (LANGUAGE_NAMES["ja"], LANGUAGE_NAMES["en"]):
        table.time("switch language (Results)", lambda n=lang_name: page.locator(
            '[data-testid="stSidebar"]').get_by_text(n, exact=True).click())
    for _ in range(2):
        table.time("open Compare (2 runs)", nav(t("nav.compare", en)))

        def third() -> None:
            box = page.get_by_label(t("cmp.runs", en), exact=True)
            box.click()
            page.get_by_role("option").first.click()
            page.keyboard.press("Escape")
        table.time("Compare: add a 3rd run (curves, table, scatter)", third)
        table.time("switch language (Compare)", lambda: page.locator(
            '[data-testid="stSidebar"]').get_by_text(LANGUAGE_NAMES["ja"], exact=True).click())
        table.time("switch language (Compare)", lambda: page.locator(
            '[data-testid="stSidebar"]').get_by_text(LANGUAGE_NAMES["en"], exact=True).click())
        table.time("open Choose a setup", nav(t("nav.frontier", en)))
        table.time("open Results (run open in the session)", nav(t("nav.results", en)))
    context.close()


def per_query_table(page, table: Table) -> None:
    """Filter, search, order and turn the pages of Results' per-query table."""
    en = "en"
    for show in ("res.filter_zero", "res.filter_all"):
        table.time("filter the per-query table", lambda show=show: pick(
            page, t("res.filter", en), t(show, en)))
    search = page.get_by_role("textbox", name=t("res.search", en), exact=True)
    for needle in ("q12", ""):
        def find(needle=needle) -> None:
            search.fill(needle)
            search.press("Enter")
        table.time("search the per-query table", find)
    if has("appscale.sort") and page.get_by_label(t("appscale.sort", en), exact=True).count():
        for column in (t("appscale.sort_query", en), t("appscale.sort_worst", en)):
            table.time("sort the per-query table", lambda c=column: pick(
                page, t("appscale.sort", en), c))
    else:  # the whole table is in the browser: its header sorts it there, no rerun
        table.rows.setdefault("sort the per-query table", [])
    if page.locator('[data-testid="stNumberInput"] input').count():
        box = page.locator('[data-testid="stNumberInput"] input').first
        for number in ("2", "1"):
            def turn(number=number) -> None:
                box.fill(number)
                box.press("Enter")
            table.time("next page of the per-query table", turn)


def pick_query(page, nth: int) -> None:
    """The ``nth`` query down the drill-down picker, by keyboard."""
    box = page.get_by_role("combobox", name=t("res.drill_pick", "en"), exact=True)
    box.scroll_into_view_if_needed()
    box.click()
    for _ in range(nth):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/ragdash-appscale"))
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--skip-upload", action="store_true", help="time the pages only")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    files = make_data(args.work, args.docs, args.queries)
    ids = make_runs(args.work)
    print(f"data and {len(ids)} runs ready in {time.perf_counter() - t0:.1f} s "
          f"({files['zip'].stat().st_size / 1e6:.0f} MB zip, "
          f"{files['corpus'].stat().st_size / 1e6:.0f} MB corpus.csv)", flush=True)
    table = Table()
    home = args.work / "home"
    with streamlit_server(home) as url, sync_playwright() as p:
        pid = server_pid(int(url.rsplit(":", 1)[1]))
        browser = launch(p)
        warm = browser.new_context(viewport=VIEWPORT).new_page()
        open_app(warm, url)  # imports and the first script run are not what is measured
        warm.context.close()
        memory = {"started": rss_mb(pid)}
        pages(browser, url, table, ids)
        memory["5 runs opened"] = rss_mb(pid)
        if not args.skip_upload:
            upload(browser, url, table, [files["corpus"], files["queries"], files["qrels"]],
                   "CSV tables")
            upload(browser, url, table, [files["zip"]], "BEIR zip")
            memory["after the uploads"] = rss_mb(pid)
        browser.close()
    print()
    print(f"{args.docs:,} documents, {args.queries:,} queries, {len(ids)} saved runs "
          f"(each interaction's first time and best of 'n')")
    print("| interaction | first (s) | best (s) | n | goal met (≤ 1 s; upload ≤ 10 s) |")
    print("| --- | ---: | ---: | ---: | --- |")
    for label, times in table.rows.items():
        if not times:
            print(f"| {label} | client-side | | 0 | — |")
            continue
        goal = 10 if label.startswith("upload") else 1
        print(f"| {label} | {times[0]:.2f} | {min(times):.2f} | {len(times)} | "
              f"{'yes' if max(times) <= goal else 'no'} |")
    for when, (now, peak) in memory.items():
        print(f"server RSS {when}: {now:,.0f} MB (peak so far {peak:,.0f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
