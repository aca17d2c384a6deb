"""Time from the one-click start to the first curve on screen, in headless Chromium.

    python bench/time_to_first_curve.py [--runs 5]

Starts ``streamlit run app.py`` with a fresh RAGDASH_HOME; for each run opens the landing
page in a new browser context (empty cache, new session), clicks "Try it on the sample
(BM25)" and waits until the Results page has drawn a curve (an SVG path in the plotly
chart). Prints each time and the median. The target is under 3 seconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from harness import launch, open_app, streamlit_server  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from ragdash.i18n import t  # noqa: E402

RESULTS_CURVE = '.js-plotly-plot:has-text("nDCG") path.js-line'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    times = []
    with tempfile.TemporaryDirectory() as tmp, streamlit_server(Path(tmp)) as url, \
            sync_playwright() as p:
        browser = launch(p)
        for i in range(args.runs):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            open_app(page, url)
            started = time.perf_counter()
            page.get_by_role("button", name=t("home.quick_button", "en")).click()
            page.locator(RESULTS_CURVE).first.wait_for(timeout=60_000)
            times.append(time.perf_counter() - started)
            print(f"run {i + 1}: {times[-1]:.2f} s  (fresh browser context"
                  f"{', first click after server start' if i == 0 else ''})")
            context.close()
        browser.close()
    print(f"median {statistics.median(times):.2f} s, best {min(times):.2f} s, "
          f"worst {max(times):.2f} s over {len(times)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
