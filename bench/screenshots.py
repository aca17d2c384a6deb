"""Screenshots of the main pages for the README and docs/, from the real app in headless
Chromium.

    python bench/screenshots.py [--out docs/screenshots]

Starts ``streamlit run app.py`` on a free port with a fresh RAGDASH_HOME, clicks through the
journey (one-click sample + BM25, a second BM25 run with other parameters for Compare), and
saves one full-page PNG per page, plus the Results page in Japanese.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from harness import launch, nav, open_app, streamlit_server, wait_idle  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from ragdash.i18n import t  # noqa: E402

WIDTH = 1400
RESULTS_CURVE = '.js-plotly-plot:has-text("nDCG") path.js-line'


def full_page(page, path: Path) -> None:
    """The whole page: Streamlit scrolls inside its main block, so grow the viewport."""
    wait_idle(page)
    height = page.evaluate("""() => {
        const main = document.querySelector('[data-testid="stMain"]');
        return Math.max(main ? main.scrollHeight : 0, document.body.scrollHeight);
    }""")
    page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 40, 7000)})
    page.wait_for_timeout(2500)  # charts and tables redraw at the new size
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": WIDTH, "height": 900})
    _shrink(path)
    print("wrote", path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def _shrink(path: Path) -> None:
    """256 colours are plenty for a UI and keep the repository small (Pillow comes with
    streamlit)."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE)
    small.save(path, optimize=True)


def second_run(home: Path) -> None:
    """A BM25 run with other parameters, so the Compare page has two runs."""
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval import make_retriever
    from ragdash.runs import RunStore
    from ragdash.samples import load_sample

    dataset = load_sample("jsquad-mini")
    result = run_evaluation(dataset, make_retriever("bm25", k1=0.5, b=0.3))
    result.name = "bm25 k1=0.5 b=0.3"
    RunStore(home).save(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, streamlit_server(Path(tmp)) as url, \
            sync_playwright() as p:
        browser = launch(p)
        page = browser.new_context(viewport={"width": WIDTH, "height": 900}).new_page()
        open_app(page, url)
        page.get_by_role("button", name=t("home.quick_button", "en")).click()
        page.locator(RESULTS_CURVE).first.wait_for(timeout=60_000)
        full_page(page, out / "results.png")
        second_run(Path(tmp))
        for label, name in (("nav.compare", "compare"), ("nav.data", "data"),
                            ("nav.run", "run"), ("nav.cost", "cost"),
                            ("nav.frontier", "frontier")):
            nav(page, t(label, "en"))
            full_page(page, out / f"{name}.png")
        nav(page, t("nav.home", "en"))
        full_page(page, out / "home.png")
        page.locator('[data-testid="stSidebar"]').get_by_text("日本語").click()
        wait_idle(page)
        nav(page, t("nav.results", "ja"))
        page.locator('.js-plotly-plot path.js-line').first.wait_for(timeout=60_000)
        full_page(page, out / "results-ja.png")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
