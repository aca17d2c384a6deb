"""Fixtures every test gets: its own empty RAGDASH_HOME and no API key from the environment.

``home`` is the RAGDASH_HOME of the test (``tmp_path / "home"``, not created: ragdash makes it
when it first writes). A test that needs another home sets the variable itself
(``monkeypatch.setenv``), and one that needs a key sets it; the browser tests override
``home`` with one folder per module (tests/browser/conftest.py), which then is the
environment's RAGDASH_HOME as well.
"""

from __future__ import annotations

import pytest
from tiny_cross_encoder import tiny_model  # noqa: F401 - a fixture for any folder

#: keys ragdash reads from the environment; a developer's real key must never reach a test
API_KEY_VARIABLES = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "COHERE_API_KEY", "JINA_API_KEY",
                     "VOYAGE_API_KEY")


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


@pytest.fixture(autouse=True)
def _isolated_environment(home, monkeypatch):
    monkeypatch.setenv("RAGDASH_HOME", str(home))
    for name in API_KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def sample():
    """The bundled jsquad-mini sample (284 documents, 280 queries), loaded once per module."""
    from ragdash.samples import load_sample

    return load_sample("jsquad-mini")
