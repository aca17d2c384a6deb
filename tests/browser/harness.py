"""Run the real app (``streamlit run app.py``) and drive it with Debian's Chromium.

Used by the browser tests (tests/browser/) and by ``bench/screenshots.py``. Playwright's own
browser download does not work here, so Chromium comes from the system package; when it is
missing the tests fail (not skip) and say how to install it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
INSTALL_HINT = "apt-get install chromium fonts-noto-cjk"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]
#: a CSS selector that matches once a plotly line has been drawn
CURVE = ".js-plotly-plot .scatterlayer path.js-line"


def chromium_path() -> Path:
    """Debian's Chromium, or an AssertionError that says how to install it."""
    found = CHROMIUM if CHROMIUM.exists() else None
    if found is None:
        raise AssertionError(f"the browser tests need Debian's Chromium at {CHROMIUM}: run "
                             f"`{INSTALL_HINT}` (Playwright's browser download is not used)")
    return found


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(home: Path, *, port: int | None = None, timeout: float = 90,
                     file_watcher: str | None = "none",
                     python: str | None = None,
                     env: dict[str, str] | None = None,
                     address: str = "127.0.0.1") -> Iterator[str]:
    """``streamlit run app.py`` on a free port with ``RAGDASH_HOME=home``; yields its URL.

    ``file_watcher``: ``--server.fileWatcherType``; ``None`` leaves it to
    ``.streamlit/config.toml`` (as a user's ``streamlit run app.py`` does). ``python``: the
    interpreter (default: this one). ``env``: more environment variables for the server.
    ``address``: ``--server.address`` (the URL yielded is 127.0.0.1's either way)."""
    port = port or free_port()
    env = dict(os.environ, RAGDASH_HOME=str(home), PYTHONUNBUFFERED="1", **(env or {}))
    env.pop("OPENAI_API_KEY", None)
    log = open(home / "streamlit.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [python or sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", address,
         "--browser.gatherUsageStats", "false",
         *(["--server.fileWatcherType", file_watcher] if file_watcher else [])],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise AssertionError("streamlit exited: "
                                     + (home / "streamlit.log").read_text(errors="replace"))
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"streamlit did not answer on {url} in {timeout}s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def launch(playwright):
    return playwright.chromium.launch(executable_path=str(chromium_path()),
                                      args=CHROMIUM_ARGS)


def wait_idle(page, timeout: float = 30_000) -> None:
    """Until the script run triggered by the last action has finished."""
    page.wait_for_timeout(150)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(
        timeout=timeout)


def open_app(page, url: str) -> None:
    page.goto(url)
    page.locator('[data-testid="stSidebar"]').wait_for(timeout=60_000)
    wait_idle(page)


def nav(page, label: str) -> None:
    """Click a sidebar link (client-side navigation: the session and its state are kept)."""
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name=label).click()
    wait_idle(page)


def fill(page, label: str, value: str) -> None:
    """Type ``value`` into the field labelled ``label`` (exactly) and commit it with Enter."""
    field = page.get_by_label(label, exact=True)
    field.fill(value)
    field.press("Enter")
    wait_idle(page)


def start_run_and_wait(page, store) -> None:
    """Press the Run page's Start, wait (up to 120 s) until ``store`` (a RunStore) holds one
    more run, then for the "See results" link, and let the page settle."""
    from ragdash.i18n import t

    before = len(store.list())
    page.get_by_role("button", name=t("run.start", "en")).click()
    deadline = time.monotonic() + 120
    while len(store.list()) == before:
        assert time.monotonic() < deadline, page.inner_text("body")[-2000:]
        page.wait_for_timeout(250)
    page.get_by_role("link", name=t("run.see_results", "en")).wait_for(timeout=30_000)
    wait_idle(page)


def sample_on_a_custom_server(page, base_url: str, *, lang: str = "en") -> None:
    """From an open app (:func:`open_app`) to the Run page set for an OpenAI-compatible server
    at ``base_url``: load the bundled sample on the Data page, open Run, choose
    "OpenAI-compatible", pick the custom preset, and fill the base URL (committed with Enter).
    Nothing else: the model, the key and the rest are the test's to fill and check."""
    from ragdash.i18n import t

    nav(page, t("nav.data", lang))
    page.get_by_role("button", name=t("data.load_sample", lang)).click()
    wait_idle(page)
    nav(page, t("nav.run", lang))
    page.get_by_text(t("run.retriever_openai", lang)).click()
    wait_idle(page)
    page.get_by_label(t("run.preset", lang)).click()
    page.get_by_role("option", name=t("run.preset_custom", lang)).click()
    wait_idle(page)
    fill(page, t("run.base_url", lang), base_url)
