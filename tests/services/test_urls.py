"""Base URL rules (ragdash.services.urls), as a table docs/providers-and-keys.md repeats."""

import pytest

from ragdash.errors import EmbeddingError
from ragdash.services.urls import AZURE_DEFAULT_API_VERSION, resolve_endpoint, typed_form

AZ = "https://res.openai.azure.com"
OPENAI = "https://api.openai.com/v1/embeddings"

CASES = [
    # (typed base URL, model, api_version) -> (POST url, query params, azure)
    ("openai bare host", "https://api.openai.com", "m", None, OPENAI, {}, False),
    ("openai /v1", "https://api.openai.com/v1", "m", None, OPENAI, {}, False),
    ("trailing slash", "https://api.openai.com/v1/", "m", None, OPENAI, {}, False),
    ("full endpoint, spaces, caps", " https://API.OpenAI.com/v1/embeddings ", "m", None,
     OPENAI, {}, False),
    ("default", None, "m", None, OPENAI, {}, False),
    ("ollama /v1", "http://localhost:11434/v1", "m", None,
     "http://localhost:11434/v1/embeddings", {}, False),
    ("ollama bare", "http://localhost:11434", "m", None,
     "http://localhost:11434/v1/embeddings", {}, False),
    ("tei/vllm bare", "http://127.0.0.1:8080/", "m", None,
     "http://127.0.0.1:8080/v1/embeddings", {}, False),
    ("path kept as given", "https://openrouter.ai/api/v1", "m", None,
     "https://openrouter.ai/api/v1/embeddings", {}, False),
    ("non-v1 path kept", "https://example.com/v1beta/openai/", "m", None,
     "https://example.com/v1beta/openai/embeddings", {}, False),
    ("root endpoint pasted", "http://localhost:7997/embeddings", "m", None,
     "http://localhost:7997/embeddings", {}, False),
    ("ipv6", "http://[::1]:8000/v1", "m", None, "http://[::1]:8000/v1/embeddings", {}, False),
    ("azure deployment", f"{AZ}/openai/deployments/emb", "x", None,
     f"{AZ}/openai/deployments/emb/embeddings", {"api-version": AZURE_DEFAULT_API_VERSION},
     True),
    ("azure deployment, version given", f"{AZ}/openai/deployments/emb/", "x", "2024-02-01",
     f"{AZ}/openai/deployments/emb/embeddings", {"api-version": "2024-02-01"}, True),
    ("azure endpoint pasted with version",
     f"{AZ}/openai/deployments/emb/embeddings?api-version=2023-05-15", "x", None,
     f"{AZ}/openai/deployments/emb/embeddings", {"api-version": "2023-05-15"}, True),
    ("azure v1 path", f"{AZ}/openai/v1", "emb", None, f"{AZ}/openai/v1/embeddings", {}, True),
    ("azure v1 path, version given", f"{AZ}/openai/v1", "emb", "preview",
     f"{AZ}/openai/v1/embeddings", {"api-version": "preview"}, True),
    ("azure bare host", AZ, "emb", None, f"{AZ}/openai/v1/embeddings", {}, True),
    ("azure bare host, version given", AZ, "emb", "2024-10-21",
     f"{AZ}/openai/deployments/emb/embeddings", {"api-version": "2024-10-21"}, True),
    ("azure ai foundry host", "https://x.services.ai.azure.com/openai/v1", "emb", None,
     "https://x.services.ai.azure.com/openai/v1/embeddings", {}, True),
    ("deployment path on a proxy host", "http://proxy:4000/openai/deployments/emb", "x", None,
     "http://proxy:4000/openai/deployments/emb/embeddings",
     {"api-version": AZURE_DEFAULT_API_VERSION}, True),
]


@pytest.mark.parametrize("typed, model, version, url, params, azure",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_base_url_rules(typed, model, version, url, params, azure):
    ep = resolve_endpoint(typed, model=model, api_version=version)
    assert (ep.url, ep.params, ep.azure) == (url, params, azure)
    assert ep.base + "/embeddings" == ep.url


def test_equivalent_spellings_share_one_cache_base():
    spellings = ["https://api.openai.com", "https://api.openai.com/v1/",
                 "https://API.openai.com/v1/embeddings", None]
    assert {resolve_endpoint(s).base for s in spellings} == {"https://api.openai.com/v1"}


def test_credentials_and_query_never_reach_the_base():
    ep = resolve_endpoint("https://user:s3cret@host.example/v1?key=s3cret")
    assert "s3cret" not in ep.base and "s3cret" not in ep.url
    assert ep.base == "https://host.example/v1"


@pytest.mark.parametrize("typed", ["localhost:11434/v1", "ftp://host/v1", "api.openai.com",
                                   "https://", "http://user:pw@/v1"])
def test_not_a_url(typed):
    with pytest.raises(EmbeddingError, match="not an http") as err:
        resolve_endpoint(typed)
    assert "pw" not in str(err.value)


# The cache's base (what embeddings cache keys are made of) of every spelling that worked
# before the other-form fallback existed: it must not change, or a user's cache is lost.
@pytest.mark.parametrize("typed, base", [
    ("https://api.openai.com", "https://api.openai.com/v1"),
    ("https://api.openai.com/v1", "https://api.openai.com/v1"),
    ("https://api.openai.com/v1/embeddings", "https://api.openai.com/v1"),
    ("http://localhost:8080", "http://localhost:8080/v1"),
    ("http://localhost:11434/v1", "http://localhost:11434/v1"),
    ("http://localhost:7997/embeddings", "http://localhost:7997"),
    ("https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"),
    (AZ, AZ + "/openai/v1"),
    (AZ + "/openai/deployments/emb", AZ + "/openai/deployments/emb"),
])
def test_cache_bases_of_urls_that_worked_are_unchanged(typed, base):
    assert resolve_endpoint(typed, model="m").base == base


@pytest.mark.parametrize("typed, alternate", [
    ("http://h:7997", "http://h:7997/embeddings"),            # /v1 first, then the root
    ("http://h:7997/v1", "http://h:7997/embeddings"),
    ("http://h:8000/api", "http://h:8000/api/v1/embeddings"),
    ("http://h:7997/embeddings", None),                        # typed as the endpoint itself
    (AZ, None),
])
def test_the_other_form_of_a_url(typed, alternate):
    assert resolve_endpoint(typed, model="m").alternate == alternate


@pytest.mark.parametrize("typed", ["https://api.openai.com", "http://h:7997/embeddings",
                                   "http://h:1/v1", "http://h:1/api", AZ,
                                   AZ + "/openai/deployments/emb"])
def test_typed_form_resolves_to_the_same_endpoint_and_cache_base(typed):
    ep = resolve_endpoint(typed, model="emb")
    again = resolve_endpoint(typed_form(ep), model="emb")
    assert (again.url, again.base) == (ep.url, ep.base)
