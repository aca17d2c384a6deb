"""AppTest: the Run page's pipeline builder (BM25 + an embedding model through the fake
embeddings server → RRF → rerank through the fake rerank server), the cost of each stage
before Start, every stage saved as a run and the Compare page set to the pipeline against
its inputs; bad chunk settings stop Start; the weight sweep view on two saved runs."""

from __future__ import annotations

import json

import pytest
from app_support import (
    array,
    chart,
    custom_server,
    new_app,
    open_page,
    open_sample,
    plain,
    save_bm25_run,
    texts,
    wait_for_jobs,
)
from fake_openai import FakeOpenAI
from fake_rerank import FakeRerank

from ragdash.runs import get_store
from ragdash.ui import keys

EMB_KEY = "sk-emb-0123456789SECRET"
RR_KEY = "co-rerank-0123456789SECRET"
LIMIT = 20


def _cost_rows(at):
    for d in at.table:
        frame = d.value
        if frame.index.name == "Stage":
            return {stage: row for stage, row in frame.iterrows()}
    raise AssertionError("no cost table")


def test_build_bm25_plus_dense_rrf_rerank_with_stage_costs_then_compare(home):
    with FakeOpenAI(dim=16, api_key=EMB_KEY) as emb, FakeRerank("cohere", api_key=RR_KEY) as rr:
        at = custom_server(open_sample(new_app()), emb.url, model="text-embedding-3-small",
                           key=EMB_KEY)
        at.number_input(key="w:rd_query_limit").set_value(LIMIT).run()
        assert at.checkbox(key="w:rd_pipe_bm25").value
        assert at.checkbox(key="w:rd_pipe_dense").value
        assert at.selectbox(key="w:rd_pipe_fusion").value == "rrf"
        at.toggle(key="w:rd_pipe_rerank").set_value(True).run()
        # no rerank model yet: Start waits for it
        assert at.button(key="pipe_start").disabled
        at.text_input(key="w:rd_pipe_rerank_url").set_value(rr.url)
        at.text_input(key="w:rd_pipe_rerank_model").set_value("rerank-v3.5")
        at.selectbox(key="w:rd_pipe_rerank_protocol").set_value("cohere")
        at.text_input(key="w:rd_pipe_rerank_key").set_value(RR_KEY)
        at.number_input(key="w:rd_pipe_depth").set_value(20).run()
        assert not at.exception
        rows = _cost_rows(at)
        assert list(rows) == ["BM25", "text-embedding-3-small", "RRF", "rerank-v3.5 top 20",
                              "Total"]
        assert rows["BM25"]["USD"] == "$0" and rows["RRF"]["USD"] == "$0"
        assert "tokens" in rows["text-embedding-3-small"]["What is paid for"]
        # Cohere: one search unit per query of up to 100 documents, $2 per 1,000 units
        assert f"{LIMIT} search units" in rows["rerank-v3.5 top 20"]["What is paid for"]
        assert rows["rerank-v3.5 top 20"]["USD"] == "$0.04"
        assert "BM25 + text-embedding-3-small (RRF) → rerank-v3.5 top 20" in texts(at)
        assert not at.button(key="pipe_start").disabled
        at.button(key="pipe_start").click().run()
        (job,) = wait_for_jobs(at)
        assert job.state == "done", job.error
        at.run()
        assert len(rr.requests) == LIMIT
        assert all(r.headers.get("authorization") == f"Bearer {RR_KEY}" for r in rr.requests)
    runs = {s.name: s for s in get_store().list()}
    final_name = "BM25 + text-embedding-3-small (RRF) → rerank-v3.5 top 20"
    assert set(runs) == {"BM25", "text-embedding-3-small", "BM25 + text-embedding-3-small (RRF)",
                         final_name}
    final = get_store().load(runs[final_name].id)
    assert [s["stage"] for s in final.config["stages"]] == ["first", "first", "fusion",
                                                           "rerank"]
    assert final.usage["search_units"] == LIMIT
    assert final.cost["stages"][1]["estimated_usd"] > 0
    for key in (EMB_KEY, RR_KEY):
        assert key not in json.dumps(final.config) + json.dumps(final.usage)
        for path in home.rglob("*"):
            if path.is_file():
                assert key.encode() not in path.read_bytes(), path
    # Compare is set to the pipeline against its inputs
    assert at.session_state[keys.COMPARE_IDS] == [runs["BM25"].id,
                                                  runs["text-embedding-3-small"].id,
                                                  runs[final_name].id]
    open_page(at, "compare")
    legend = [tr["name"] for tr in chart(at, "cmp_curves")["data"] if tr.get("showlegend", True)]
    assert final_name in " ".join(legend) and "BM25" in legend


def test_bad_chunk_settings_stop_start_in_one_sentence():
    at = open_sample(new_app())
    open_page(at, "run")
    at.number_input(key="w:rd_pipe_chunk_size").set_value(8).run()
    assert at.button(key="pipe_start").disabled
    assert any("too small" in w.value for w in at.warning)
    at.number_input(key="w:rd_pipe_chunk_size").set_value(64).run()
    at.number_input(key="w:rd_pipe_chunk_overlap").set_value(64).run()
    assert any("smaller than the chunk size" in w.value for w in at.warning)
    at.number_input(key="w:rd_pipe_chunk_overlap").set_value(8).run()
    assert not at.button(key="pipe_start").disabled
    assert "chunks of 284 documents" in texts(at)
    assert "BM25 (64-token chunks)" in texts(at)


def test_saved_runs_are_fused_and_swept_with_the_held_out_band(sample):
    at = open_sample(new_app())
    a = save_bm25_run(sample, name="bm25 default")
    b = save_bm25_run(sample, name="bm25 flat", k1=0.5, b=0.2, kmax=50)
    open_page(at, "run")
    at.multiselect(key="w:rd_fuse_ids").set_value([a, b])
    at.run()
    assert any("'bm25 flat' returns at most 50" in plain(w.value) for w in at.warning), \
        [w.value for w in at.warning]
    at.selectbox(key="w:rd_fuse_method").set_value("alpha").run()
    assert not at.exception
    fig = chart(at, "pipe_sweep_chart")
    kinds = [tr["meta"]["kind"] for tr in fig["data"]]
    assert kinds == ["test", "tune", "band", "chosen"]
    x = array(fig["data"][0]["x"])
    assert list(x) == pytest.approx([i / 10 for i in range(11)])
    note = texts(at)
    assert "held-out" in note and "would flatter it" in note
    # α = 1 is run A alone: the tuning and held-out points there are A's means
    from ragdash.retrieval.fusion import split_queries

    run_a = get_store().load(a)
    _, test = split_queries(run_a.query_ids, seed=0)
    assert array(fig["data"][0]["y"])[-1] == pytest.approx(
        run_a.table().select(test).mean("ndcg@10"))
    # save the fusion at α = 0.3: a run whose parents are the two, Compare set to all three
    at.slider(key="w:rd_fuse_alpha").set_value(0.3).run()
    at.button(key="pipe_fuse_save").click().run()
    assert not at.exception
    fused = [s for s in get_store().list() if s.id not in (a, b)]
    assert len(fused) == 1 and fused[0].name == "bm25 default + bm25 flat (α)"
    run = get_store().load(fused[0].id)
    assert run.parents == [a, b] and run.config["stages"][-1]["alpha"] == 0.3
    assert at.session_state[keys.COMPARE_IDS] == [a, b, run.id]
    assert "Compare shows it against its inputs" in texts(at)
    # three runs: no sweep, RRF saves a fusion of all three
    at.multiselect(key="w:rd_fuse_ids").set_value([a, b, run.id])
    at.selectbox(key="w:rd_fuse_method").set_value("rrf").run()
    assert not [c for c in at.get("plotly_chart") if c.key == "pipe_sweep_chart"]
    at.button(key="pipe_fuse_save").click().run()
    assert len(get_store().list()) == 4


def test_the_drill_down_of_a_chunked_run_shows_the_chunk_that_matched(sample):
    from app_support import frame_with

    from ragdash.pipeline import run_evaluation
    from ragdash.present.tables import snippet
    from ragdash.retrieval import BM25Retriever
    from ragdash.retrieval.chunking import ChunkedRetriever, chunk_text

    run = run_evaluation(sample, ChunkedRetriever(BM25Retriever(), size=32, overlap=4),
                         kmax=20)
    run.name = "bm25 chunks"
    run_id = get_store().save(run)
    at = new_app(run=run_id).run()
    open_page(at, "results")
    top = frame_with(at, "Chunk matched", "Document id", "Text")
    assert len(top) >= 5
    shown_not_first = 0
    for _, row in top.iterrows():
        n = int(row["Chunk matched"]) - 1
        assert row["Text"] == snippet(chunk_text(sample, row["Document id"], n, 32, 4))
        shown_not_first += n > 0
    assert shown_not_first > 0  # not just every document's opening


def test_a_pipeline_run_needs_nothing_new_on_results_compare_and_cost(sample):
    from ragdash.pipeline import run_pipeline
    from ragdash.retrieval import BM25Retriever

    made = run_pipeline(sample, [BM25Retriever(), BM25Retriever(k1=0.5, b=0.3)],
                        fusion={"method": "dbsf"}, kmax=20, store=get_store())
    final = made[-1]
    assert final.name == "BM25 + BM25 (k1=0.5, b=0.3) (DBSF)"
    at = new_app(run=final.id).run()
    open_page(at, "results")
    assert final.name in texts(at)
    curve = chart(at, "res_curve")
    ndcg = next(tr for tr in curve["data"] if tr["meta"]["family"] == "ndcg")
    assert array(ndcg["y"]) == pytest.approx(final.table().curve("ndcg"))
    for page in ("compare", "cost"):
        open_page(at, page)
        assert final.name in texts(at) or page == "compare"


def test_a_local_cross_encoder_reranks_bm25_for_free(tiny_model):
    folder = tiny_model[0]
    at = open_sample(new_app())
    open_page(at, "run")
    at.number_input(key="w:rd_query_limit").set_value(5).run()
    at.toggle(key="w:rd_pipe_rerank").set_value(True).run()
    at.radio(key="w:rd_pipe_rerank_kind").set_value("local").run()
    assert at.button(key="pipe_start").disabled  # no model yet
    at.text_input(key="w:rd_pipe_rerank_local_model").set_value(str(folder))
    at.number_input(key="w:rd_pipe_depth").set_value(10).run()
    name = f"BM25 → {folder.name} top 10"
    rows = _cost_rows(at)
    assert rows[f"{folder} top 10"]["USD"] == "$0" and rows["Total"]["USD"] == "$0"
    assert name in texts(at)
    at.button(key="pipe_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    final = get_store().load(job.result.id)
    assert final.name == name and final.config["stages"][-1]["reranker"] == "local"
    assert final.usage["pairs_scored"] == 5 * 10


def test_the_builder_speaks_japanese(sample):
    from ragdash.i18n import t

    at = new_app().run()
    at.sidebar.radio(key="w:rd_lang").set_value("ja").run()
    open_sample(at)
    save_bm25_run(sample, name="bm25 a")
    save_bm25_run(sample, name="bm25 b", k1=0.5)
    open_page(at, "run")
    at.toggle(key="w:rd_pipe_rerank").set_value(True).run()
    assert not at.exception
    shown = texts(at)
    for key in ("pipe.title", "pipe.stage_first", "pipe.stage_fusion", "pipe.stage_rerank",
                "pipe.cost_title", "pipe.sweep_title"):
        assert plain(t(key, "ja")).strip("*") in shown, key
    assert "held-out" not in shown and "would flatter" not in shown
    assert "評価用" in shown and "よく見えすぎます" in shown  # the sweep's sentence
    # the cost table's header is in Japanese
    assert any(d.value.index.name == t("pipe.cost_stage", "ja") for d in at.table)


def test_saved_runs_can_be_first_stages_of_a_pipeline(sample):
    a = save_bm25_run(sample, name="engine A")
    b = save_bm25_run(sample, name="engine B", k1=0.5, b=0.2)
    at = open_sample(new_app())
    open_page(at, "run")
    at.checkbox(key="w:rd_pipe_bm25").uncheck()
    at.multiselect(key="w:rd_pipe_saved").set_value([a, b]).run()
    rows = _cost_rows(at)
    assert rows["engine A"]["What is paid for"] == "nothing (saved run)"
    assert "engine A + engine B (RRF)" in texts(at)
    at.button(key="pipe_start").click().run()
    (job,) = wait_for_jobs(at)
    assert job.state == "done", job.error
    at.run()
    final = get_store().load(job.result.id)
    assert final.name == "engine A + engine B (RRF)" and final.parents == [a, b]
    assert len(get_store().list()) == 3  # nothing retrieved again
    assert at.session_state[keys.COMPARE_IDS] == [a, b, final.id]
