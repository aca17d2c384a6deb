"""Pipelines as runs: BM25 + dense (fake embeddings server) → RRF → rerank (fake rerank
server) on the bundled sample; config names every stage, the default name says it in words,
usage and cost add up per stage, the runs are saved, listed, loaded, compared and exported
like any run; bad compositions and runs of different datasets are one sentence."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAI
from fake_rerank import FakeRerank

from ragdash.dataset import Dataset
from ragdash.errors import RetrievalError
from ragdash.pipeline import fuse_runs, pipeline_name, run_evaluation, run_pipeline, stage_label
from ragdash.retrieval import BM25Retriever, make_retriever
from ragdash.retrieval.fusion import fuse
from ragdash.retrieval.rerank import RerankCache, Reranker, make_scorer
from ragdash.runs import RunStore
from ragdash.runs.exchange import export_trec

LIMIT = 15


def test_names_in_words():
    assert pipeline_name(["BM25", "text-embedding-3-small"], fusion="rrf",
                         rerank_model="rerank-v3.5", depth=50) == \
        "BM25 + text-embedding-3-small (RRF) → rerank-v3.5 top 50"
    assert pipeline_name(["BM25"], rerank_model="bge-reranker", depth=20) == \
        "BM25 → bge-reranker top 20"
    assert pipeline_name(["BM25", "e5"], fusion="dbsf") == "BM25 + e5 (DBSF)"


def test_bm25_plus_dense_rrf_then_rerank_is_one_run_per_stage(sample, tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    with FakeOpenAI(dim=16) as emb, FakeRerank("cohere") as rr:
        dense = make_retriever("openai", model="text-embedding-3-small", base_url=emb.url,
                               api_key="sk-test")
        reranker = Reranker(make_scorer("http", base_url=rr.url, model="rerank-v3.5",
                                        protocol="cohere", api_key="k"),
                            depth=20, cache=RerankCache())
        events = []
        made = run_pipeline(sample, [BM25Retriever(), dense], fusion={"method": "rrf"},
                            reranker=reranker, kmax=50, limit_queries=LIMIT, store=store,
                            progress=events.append, secrets=["sk-test"],
                            estimates=[None, {"estimated_usd": 0.5, "estimated_jpy": 75.0}])
        assert len(rr.requests) == LIMIT  # one rerank request per query
    bm25, emb_run, fused, final = made
    assert [r.source for r in made] == ["evaluation", "evaluation", "fusion", "pipeline"]
    assert final.name == "BM25 + text-embedding-3-small (RRF) → rerank-v3.5 top 20"
    assert fused.name == "BM25 + text-embedding-3-small (RRF)"
    assert all(r.id for r in made)
    assert fused.parents == [bm25.id, emb_run.id] and final.parents == [fused.id]
    # the config names every stage
    stages = final.config["stages"]
    assert [s["stage"] for s in stages] == ["first", "first", "fusion", "rerank"]
    assert stages[0]["label"] == "BM25" and stages[1]["config"]["model"] == \
        "text-embedding-3-small"
    assert stages[2]["method"] == "rrf" and stages[2]["rrf_k"] == 60
    assert stages[3]["model"] == "rerank-v3.5" and stages[3]["depth"] == 20
    assert stages[0]["run"] == bm25.id
    # usage and cost add up per stage
    u = final.usage
    assert [s["stage"] for s in u["stages"]] == ["BM25", "text-embedding-3-small",
                                                "rerank-v3.5 top 20"]
    assert u["requests"] == emb_run.usage["requests"] + LIMIT
    assert u["prompt_tokens"] == emb_run.usage["prompt_tokens"]
    assert u["search_units"] == LIMIT and u["stages"][2]["pairs_scored"] == LIMIT * 20
    assert final.cost["estimated_usd"] == pytest.approx(0.5 + final.cost["stages"][2].get(
        "estimated_usd", 0.0))
    assert final.cost["stages"][0]["actual_usd"] == 0.0
    assert {e["step"] for e in events} >= {"1/4 bm25", "4/4 rerank"}
    assert any(e["stage"] == "rerank" and e["step"] == "4/4 rerank" for e in events)
    # the ranking of the fusion is fuse() of the inputs; the rerank changed the top 20 only
    want = fuse([bm25.ranking, emb_run.ranking], "rrf")
    assert list(fused.ranking.doc_ids) == list(want.doc_ids)
    assert fused.ranking.scores == pytest.approx(want.scores, abs=1e-12)
    q = final.query_ids[0]
    assert list(final.ranking.get(q)[0][20:]) == list(fused.ranking.get(q)[0][20:])
    assert sorted(final.ranking.get(q)[0][:20]) == sorted(fused.ranking.get(q)[0][:20])

    # saved, listed, loaded, compared, exported like any run
    listed = {s.id: s for s in store.list()}
    assert set(listed) == {r.id for r in made}
    assert listed[final.id].name == final.name
    loaded = store.load(final.id)
    assert loaded.config["stages"] == stages and loaded.usage["stages"] == u["stages"]
    assert loaded.summary([10]) == pytest.approx(final.summary([10]))
    assert "sk-test" not in repr(loaded.config)
    from ragdash.stats.compare import compare_tables

    cmp = compare_tables({r.name: store.load(r.id).table() for r in (bm25, emb_run, loaded)},
                         "ndcg@10", n_resamples=1000, n_permutations=200)
    assert len(cmp.pairs) == 3
    from ragdash.ui.cost import past_runs_frame

    past = past_runs_frame(None, store.list()).set_index("id")
    assert past.loc[final.id, "estimated"] == pytest.approx(final.cost["estimated_usd"])
    assert past.loc[final.id, "actual"] == pytest.approx(final.cost["actual_usd"])
    assert final.cost["actual_usd"] == pytest.approx(LIMIT * 2.0 / 1000 + (
        final.cost["stages"][1].get("actual_usd") or 0.0))  # Cohere: $2 per 1,000 units
    from ragdash.present.report import build_report

    html = build_report([store.load(r.id) for r in made])
    html = html if isinstance(html, str) else html.decode("utf-8")
    assert final.name.replace("→", "") .split()[0] in html and "rerank-v3.5" in html
    trec = export_trec(loaded)
    assert trec.count("\n") == len(loaded.ranking.doc_ids)
    assert stage_label(loaded) == loaded.name


def test_labels_name_bm25_settings_models_and_chunks(sample):
    plain = run_evaluation(sample, BM25Retriever(), kmax=5, limit_queries=3)
    tuned = run_evaluation(sample, BM25Retriever(k1=0.5, b=0.3), kmax=5, limit_queries=3)
    assert stage_label(plain) == "BM25" and stage_label(tuned) == "BM25 (k1=0.5, b=0.3)"
    assert fuse_runs([plain, tuned]).name == "BM25 + BM25 (k1=0.5, b=0.3) (RRF)"
    assert fuse_runs([plain, tuned], "combsum", norm="zscore").config["stages"][-1]["norm"] \
        == "zscore"


def test_rerank_alone_and_chunked_first_stages(sample):
    from ragdash.retrieval.chunking import ChunkedRetriever

    with FakeRerank("tei") as rr:
        reranker = Reranker(make_scorer("http", base_url=rr.url, model="bge-reranker",
                                        protocol="tei"), depth=10, cache=RerankCache())
        made = run_pipeline(sample, [ChunkedRetriever(BM25Retriever(), size=64, overlap=8)],
                            reranker=reranker, kmax=20, limit_queries=5)
    first, final = made
    assert final.name == "BM25 (64-token chunks) → bge-reranker top 10"
    assert final.config["stages"][0]["config"]["chunking"]["size"] == 64
    assert first.resources["chunks"]["chunks"] > len(sample.documents)


@pytest.mark.parametrize("kwargs, words", [
    (dict(first=[]), "at least one first-stage"),
    (dict(first=["a", "b"]), "need a fusion method"),
    (dict(first=["a"], fusion={"method": "rrf"}), "two or more first stages"),
])
def test_bad_compositions_are_one_sentence(sample, kwargs, words):
    first = [BM25Retriever() for _ in kwargs.pop("first")]
    with pytest.raises(RetrievalError, match=words):
        run_pipeline(sample, first, **kwargs)


def test_runs_of_different_datasets_are_not_fused(sample):
    a = run_evaluation(sample, BM25Retriever(), kmax=10, limit_queries=5)
    other = Dataset(sample.documents[:-1], sample.queries, sample.qrels, name="smaller")
    b = run_evaluation(other, BM25Retriever(), kmax=10, limit_queries=5)
    with pytest.raises(RetrievalError, match=r"different datasets.*'smaller'"):
        fuse_runs([a, b])
    with pytest.raises(RetrievalError, match="at least two runs"):
        fuse_runs([a])


def test_a_pipeline_started_again_saves_no_new_first_stage(sample, tmp_path):
    """A pipeline whose first stage is already saved reuses that run: nothing saved twice."""
    store = RunStore(tmp_path / "runs.sqlite")
    bm25 = run_evaluation(sample, BM25Retriever(), kmax=20, limit_queries=30)
    store.save(bm25)
    made = run_pipeline(sample, [BM25Retriever(), BM25Retriever(k1=0.5, b=0.3)],
                        fusion={"method": "rrf"}, kmax=20, limit_queries=30, store=store)
    assert made[0].id == bm25.id and made[0].reused and not made[1].reused
    assert made[2].parents == [bm25.id, made[1].id]
    again = run_pipeline(sample, [BM25Retriever(), BM25Retriever(k1=0.5, b=0.3)],
                         fusion={"method": "rrf"}, kmax=20, limit_queries=30, store=store)
    assert [r.id for r in again] == [r.id for r in made] and all(r.reused for r in again)
    assert len(store.list()) == 3


def test_a_cancel_during_the_rerank_keeps_the_stages_already_paid_for(sample, tmp_path):
    import threading

    from ragdash.errors import Cancelled

    store = RunStore(tmp_path / "runs.sqlite")
    cancel = threading.Event()

    def progress(event):
        if str(event.get("stage", "")).startswith("rerank"):
            cancel.set()

    with FakeRerank("tei") as rr:
        reranker = Reranker(make_scorer("http", base_url=rr.url, model="bge-reranker",
                                        protocol="tei"), depth=10, cache=RerankCache())
        with pytest.raises(Cancelled):
            run_pipeline(sample, [BM25Retriever(), BM25Retriever(k1=0.5, b=0.3)],
                         fusion={"method": "rrf"}, reranker=reranker, kmax=20,
                         limit_queries=30, store=store, progress=progress, cancel=cancel)
    names = sorted(s.name for s in store.list())
    assert names == ["BM25", "BM25 (k1=0.5, b=0.3)", "BM25 + BM25 (k1=0.5, b=0.3) (RRF)"]


def test_rerank_store_saves_a_pipeline_run_whose_parent_is_the_stored_first_stage(capsys):
    import json as _json

    from paths import ROOT

    from ragdash.cli import main
    from ragdash.runs import get_store
    from ragdash.runs.exchange import export_json

    sample = str(ROOT / "ragdash" / "data" / "samples" / "jsquad-mini")
    assert main(["evaluate", sample, "--k", "10", "--limit-queries", "8", "--store",
                 "--format", "json"]) == 0
    first_id = _json.loads(capsys.readouterr().out)["run_id"]
    store = get_store()
    import tempfile

    with tempfile.TemporaryDirectory() as folder, FakeRerank("cohere") as rr:
        path = f"{folder}/bm25.json"
        with open(path, "wb") as f:
            f.write(export_json(store.load(first_id)))
        assert main(["rerank", sample, path, "--model", "rerank-v3.5", "--base-url", rr.url,
                     "--depth", "10", "--k", "10", "--store", "--format", "json"]) == 0
        out = _json.loads(capsys.readouterr().out)
        trec = f"{folder}/bm25.run"
        store.load(first_id).ranking.write_trec(trec, tag="bm25")
        assert main(["rerank", sample, trec, "--model", "rerank-v3.5", "--base-url", rr.url,
                     "--depth", "10", "--k", "10", "--store", "--name", "mine"]) == 0
        assert "stored as run" in capsys.readouterr().out
    saved = store.load(out["run_id"])
    first_name = store.load(first_id).name  # the store names an unnamed run
    assert saved.name == f"{first_name} → rerank-v3.5 top 10" and saved.parents == [first_id]
    assert [s["stage"] for s in saved.config["stages"]] == ["first", "rerank"]
    assert saved.usage["search_units"] == 8 and saved.summary([10]) == pytest.approx(
        out["metrics"])
    assert {s.name for s in store.list()} == {first_name, saved.name, "mine"}
