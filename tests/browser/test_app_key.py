"""The API key typed is the key sent, however the user leaves the field.

Streamlit 1.67's password field commits on blur, except when focus moves to its own "Show
password" button — where Tab goes. Each way of leaving the field is tried in a fresh browser
session against a real ``streamlit run app.py`` and a header-logging OpenAI-compatible server
on 127.0.0.1; every embeddings request of the run must carry ``Authorization: Bearer <key>``.
"""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAI
from harness import fill, open_app, sample_on_a_custom_server, wait_idle

from ragdash.i18n import t

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1400}


def _leave_by(page, how: str) -> None:
    if how == "tab":
        page.keyboard.press("Tab")
    elif how == "enter":
        page.keyboard.press("Enter")
    elif how == "click-away":
        page.get_by_role("heading", name=t("run.title", "en")).click()
    # "start": nothing; the next action is the click on Start itself
    if how != "start":
        wait_idle(page)


@pytest.mark.parametrize("how", ["tab", "enter", "click-away", "start"])
def test_the_key_typed_is_the_key_sent(browser, app_url, how):
    key = f"sk-{how}-0123456789"
    model = f"emb-{how}"  # its own model: the embeddings cache must not answer for it
    with FakeOpenAI() as server:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        open_app(page, app_url)
        sample_on_a_custom_server(page, server.url)
        fill(page, t("run.model", "en"), model)
        # the key field, left the way under test (not through fill: no Enter unless asked)
        field = page.get_by_label(t("run.api_key", "en"), exact=True)
        assert field.get_attribute("type") == "password"
        field.click()
        page.keyboard.type(key)
        _leave_by(page, how)
        page.get_by_role("button", name=t("run.start", "en")).click()
        page.get_by_role("link", name=t("run.see_results", "en")).wait_for(timeout=60_000)
        sent = [r.headers.get("authorization") for r in server.embedding_requests]
        assert sent, "the run made no embeddings request"
        assert set(sent) == {f"Bearer {key}"}, sent
        assert key not in page.url
        context.close()
