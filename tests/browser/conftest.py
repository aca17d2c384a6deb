"""Fixtures for the browser tests: one real Streamlit server per module, one Chromium."""

from __future__ import annotations

import pytest
from harness import launch, streamlit_server
from playwright.sync_api import sync_playwright


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("ragdash-home")


@pytest.fixture(scope="module")
def app_url(home):
    with streamlit_server(home) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()
