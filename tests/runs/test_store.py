"""The run store: save / list / load / rename / delete, recomputed metrics, no key on disk,
JSON and TREC export and import."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import types
from pathlib import Path

import numpy as np
import pytest

from ragdash.dataset import Dataset, Document, Query
from ragdash.errors import DatasetError, RunStoreError
from ragdash.metrics import evaluate
from ragdash.ranking import Ranking
from ragdash.run import Run
from ragdash.runs import (
    RunStore,
    default_home,
    export_json,
    export_trec,
    get_store,
    import_json,
    import_trec,
    new_run_id,
    run_to_json_obj,
    summary_of,
)
from ragdash.secrets import scrub_secrets

KEY = "sk-proj-TESTKEY0123456789abcdefXYZ"


def make_dataset(name: str = "mini-ja", extra: str = "") -> Dataset:
    docs = [
        Document("d1", "東京は日本の首都であり、人口が最も多い都市です。", "東京"),
        Document("d2", "大阪はたこ焼きとお好み焼きで知られています。", "大阪"),
        Document("d3", "富士山は日本で最も高い山で、標高は3776メートルです。", "富士山"),
        Document("d4", "京都には多くの寺院と神社があります。" + extra, "京都"),
        Document("d5", "北海道は冬に雪が多く、スキーが盛んです。", ""),
    ]
    queries = [Query("q1", "日本の首都はどこ？"), Query("q2", "日本一高い山は？"),
               Query("q3", "雪の多い地域は？"), Query("q4", "判定のないクエリ")]
    qrels = {"q1": {"d1": 2.0, "d4": 0.0}, "q2": {"d3": 1.0}, "q3": {"d5": 1.0, "d2": 1.0}}
    return Dataset(docs, queries, qrels, name=name, source="test")


def make_ranking(shift: float = 0.0) -> Ranking:
    return Ranking.from_dict({
        "q1": {"d1": 0.9, "d4": 0.8 + shift, "d2": 0.1},
        "q2": {"d1": 0.7, "d3": 0.6 + shift, "d5": 0.2},
        "q3": {"d2": 0.5, "d4": 0.4, "d5": 0.3 + shift},
    }, name="test-run")


@pytest.fixture
def store(tmp_path) -> RunStore:
    return RunStore(tmp_path / "home")


def _result(dataset, ranking, **over) -> Run:
    """An evaluated run as the pipeline makes one (an API retriever, its usage, a time)."""
    fields = dict(dataset=dataset, ranking=ranking, query_ids=["q1", "q2", "q3"],
                  retriever="openai", model="text-embedding-3-small",
                  config={"retriever": "openai", "model": "text-embedding-3-small",
                          "base_url": "https://api.example.com/v1", "dimensions": None},
                  usage={"requests": 2, "prompt_tokens": 321, "embedded_texts": 8,
                         "cached_texts": 0},
                  seconds=1.25, kmax=3, created_at="2025-01-02T03:04:05Z")
    fields.update(over)
    return Run(**fields)


# -- save / load ----------------------------------------------------------------------------------
def test_save_and_load_round_trip_keeps_everything_needed(store):
    ds, rk = make_dataset(), make_ranking()
    run_id = store.save(_result(ds, rk, name="small model"))
    run = store.load(run_id)
    assert run.id == run_id and run.name == "small model"
    assert run.retriever == "openai" and run.model == "text-embedding-3-small"
    assert run.created_at == "2025-01-02T03:04:05Z" and run.seconds == 1.25
    assert run.kmax == 3 and run.query_ids == ["q1", "q2", "q3"]
    assert run.usage["prompt_tokens"] == 321
    assert run.config["base_url"] == "https://api.example.com/v1"
    # The ranking comes back exactly: ids, order, scores bit for bit.
    assert run.ranking.query_ids == rk.query_ids
    assert list(run.ranking.doc_ids) == list(rk.doc_ids)
    assert run.ranking.scores.tobytes() == rk.scores.tobytes()
    assert run.ranking.offsets.tolist() == rk.offsets.tolist()
    # The whole dataset, so a fresh session can drill down.
    assert run.dataset.fingerprint() == ds.fingerprint() == run.dataset_fingerprint
    assert run.dataset.document("d3").title == "富士山"
    assert run.dataset.query("q4").text == "判定のないクエリ"


def test_metrics_are_recomputed_from_the_ranking_not_stored(store):
    ds, rk = make_dataset(), make_ranking()
    run_id = store.save(_result(ds, rk))
    direct = evaluate(rk, ds.qrels, kmax=3, queries=["q1", "q2", "q3"])
    table = store.table(run_id)
    for fam, values in direct.values.items():
        np.testing.assert_array_equal(table.values[fam], values)
    # Nothing metric-like is persisted besides the small listing cache.
    with sqlite3.connect(store.path) as conn:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
    assert not {"values", "table", "metrics"} & set(cols)
    # Hand-worked: q1 finds d1 (grade 2) at rank 1; q2 finds d3 at 2; q3 finds d2 at 1, d5 at 3.
    np.testing.assert_allclose(table.value("mrr@3"), [1.0, 0.5, 1.0])
    np.testing.assert_allclose(table.value("recall@3"), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(table.value("precision@1"), [1.0, 0.0, 1.0])


def test_list_is_newest_first_with_headline_means(store):
    ds = make_dataset()
    first = store.save(Run.of_ranking(ds, make_ranking(), retriever="bm25", kmax=3,
                                      created_at="2025-01-01T00:00:00Z"))
    second = store.save(_result(ds, make_ranking(0.5)))
    listed = store.list()
    assert [s.id for s in listed] == [second, first]
    s = listed[1]
    assert (s.retriever, s.model, s.n_queries, s.kmax) == ("bm25", None, 3, 3)
    assert s.dataset_name == "mini-ja" and s.dataset_fingerprint == ds.fingerprint()
    table = store.table(first)
    assert s.headline == pytest.approx({f"{f}@3": table.mean(f"{f}@3")
                                        for f in ("ndcg", "recall", "mrr", "hit_rate")})
    assert store.summary(first) == s
    assert summary_of(store.load(first)) == s
    other = make_dataset("other", extra="別の文")
    store.save(Run.of_ranking(other, make_ranking(), kmax=3))
    assert {x.id for x in store.list(dataset_fingerprint=ds.fingerprint())} == {first, second}
    assert len(store.list(limit=1)) == 1


def test_default_name_and_query_list_without_a_result(store):
    ds = make_dataset()
    run_id = store.save(Run.of_ranking(ds, make_ranking(), retriever="bm25"))
    run = store.load(run_id)
    assert run.name == "bm25 on mini-ja"
    # trec_eval's default: queries in both the run and the qrels, in run order.
    assert run.query_ids == ["q1", "q2", "q3"]
    assert run.kmax == 3


@pytest.mark.parametrize("retriever, model, name", [
    ("openai:emb-1", "emb-1", "openai:emb-1 on mini-ja"),
    ("bm25", "bm25", "bm25 on mini-ja"),
    ("openai", "text-embedding-3-small", "openai · text-embedding-3-small on mini-ja"),
])
def test_default_names_say_the_model_once(store, retriever, model, name):
    run_id = store.save(Run.of_ranking(make_dataset(), make_ranking(), retriever=retriever,
                                       model=model))
    assert store.load(run_id).name == name


def test_a_run_identical_to_a_saved_one_is_not_saved_twice(store):
    """The same run saved again (another name, another time) keeps one row and
    gives the saved run's id; any difference in data, configuration, ranking or owner is a
    new run."""
    ds = make_dataset()
    first = store.save(_result(ds, make_ranking(), name="first"))
    again = _result(ds, make_ranking(), name="again", created_at="2026-01-01T00:00:00Z",
                    usage={"requests": 0}, seconds=9.0)
    assert store.save(again) == first and again.id == first and again.reused
    assert [s.id for s in store.list()] == [first] and store.load(first).name == "first"
    different = [
        _result(make_dataset(extra="。"), make_ranking()),  # other data
        _result(ds, make_ranking(), config={"retriever": "openai", "model": "other"}),
        _result(ds, make_ranking(shift=0.05)),  # same order, other scores
        _result(ds, make_ranking(), kmax=2),
        _result(ds, make_ranking(), query_ids=["q1", "q2"]),
        _result(ds, make_ranking(), gain="exponential"),
    ]
    ids = {store.save(run) for run in different}
    assert len(ids) == len(different) and first not in ids
    assert not any(run.reused for run in different)
    mine = _result(ds, make_ranking())
    assert store.save(mine, owner="alice") != first and not mine.reused  # another owner's


def test_datasets_are_stored_once_and_dropped_with_their_last_run(store):
    ds = make_dataset()
    a = store.save(Run.of_ranking(ds, make_ranking()))
    b = store.save(Run.of_ranking(make_dataset(), make_ranking(0.3)))  # same content
    assert [d["runs"] for d in store.datasets()] == [2]
    store.delete(a)
    assert store.has_dataset(ds.fingerprint())
    store.delete(b)
    assert not store.has_dataset(ds.fingerprint())
    assert store.datasets() == [] and store.list() == []


def test_unknown_ids_give_one_plain_sentence(store):
    ds = make_dataset()
    run_id = store.save(Run.of_ranking(ds, make_ranking()))
    store.delete(run_id)
    for call in (store.load, store.delete, store.summary, lambda r: store.rename(r, "x")):
        with pytest.raises(RunStoreError) as info:
            call(run_id)
        assert str(info.value) == f"no saved run with id {run_id}; it may have been deleted"
    with pytest.raises(RunStoreError, match="no saved run with id '<script>'"):
        store.load("<script>")
    assert not store.exists(run_id)


def test_rename(store):
    run_id = store.save(Run.of_ranking(make_dataset(), make_ranking()))
    store.rename(run_id, "  ベースライン BM25  ")
    assert store.load(run_id).name == "ベースライン BM25"
    with pytest.raises(RunStoreError, match="empty"):
        store.rename(run_id, "   ")


def test_run_ids_are_short_url_safe_and_distinct():
    ids = {new_run_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(re.fullmatch(r"[a-z2-7]{10}", i) for i in ids)


def test_only_a_run_is_saved_other_shapes_are_converted_first(store):
    ds = make_dataset()
    shaped_like_a_run = types.SimpleNamespace(dataset=ds, ranking=make_ranking(),
                                             query_ids=["q1"], kmax=3)
    with pytest.raises(RunStoreError, match=r"takes a ragdash\.run\.Run.*Run\.of_ranking"):
        store.save(shaped_like_a_run)
    assert store.list() == []


def test_ragdash_home_moves_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path / "elsewhere"))
    assert default_home() == tmp_path / "elsewhere"
    store = RunStore()
    assert store.path == tmp_path / "elsewhere" / "runs.sqlite" and store.path.exists()
    assert get_store() is get_store(tmp_path / "elsewhere")
    monkeypatch.delenv("RAGDASH_HOME")
    monkeypatch.chdir(tmp_path)
    assert default_home() == tmp_path / ".ragdash"
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_unwritable_home_is_a_plain_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(RunStoreError, match="RAGDASH_HOME"):
        RunStore(blocker / "home")


def test_a_damaged_row_is_a_plain_error(store):
    run_id = store.save(Run.of_ranking(make_dataset(), make_ranking()))
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE runs SET ranking=? WHERE id=?", (b"garbage", run_id))
    with pytest.raises(RunStoreError, match="cannot be read"):
        store.load(run_id)


def test_threads_can_save_at_once(store):
    ds = make_dataset()
    ids, errors = [], []

    def work(i):
        try:
            ids.append(store.save(Run.of_ranking(ds, make_ranking(i / 10), name=f"run {i}")))
        except Exception as exc:  # pragma: no cover - the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert {s.id for s in store.list()} == set(ids) and len(ids) == 8


# -- no key on disk -------------------------------------------------------------------------------
def test_the_api_key_never_reaches_the_disk_or_an_export(tmp_path):
    home = tmp_path / "home"
    store = RunStore(home)
    ds = make_dataset()
    config = {
        "retriever": "openai", "model": "text-embedding-3-small", "api_key": KEY,
        "headers": {"Authorization": f"Bearer {KEY}", "api-key": KEY, "X-Trace": "ok"},
        "base_url": f"https://example.azure.com/openai?api-version=2024-02-01&api-key={KEY}",
        "note": f"made with {KEY}", "max_tokens": 8000,
    }
    result = _result(ds, make_ranking(), config=config, name=f"run {KEY}",
                     usage={"requests": 1, "prompt_tokens": 10, "key_used": KEY})
    run_id = store.save(result, secrets=[KEY])
    run = store.load(run_id)
    assert "api_key" not in run.config and "Authorization" not in run.config["headers"]
    assert run.config["headers"] == {"X-Trace": "ok"}
    assert run.config["max_tokens"] == 8000  # a count, not a credential
    assert "api-version=2024-02-01" in run.config["base_url"]
    exported = export_json(run, include_dataset=True)
    needle = KEY.encode()
    assert needle not in exported
    for path in Path(home).rglob("*"):
        if path.is_file():
            assert needle not in path.read_bytes(), path.name
    # Without secrets=..., credential-shaped values are still caught.
    run2 = store.save(Run.of_ranking(ds, make_ranking(),
                                     config={"base_url": f"https://x/v1?key={KEY}",
                                             "extra": f"Bearer {KEY}", "token": "abc"}))
    assert KEY not in json.dumps(store.load(run2).config)
    for path in Path(home).rglob("*"):
        if path.is_file():
            assert needle not in path.read_bytes(), path.name


@pytest.mark.parametrize("raw, want", [
    ({"api_key": "x", "model": "m"}, {"model": "m"}),
    ({"apiKey": "x", "OPENAI_API_KEY": "y", "key": "z", "tokens": 5}, {"tokens": 5}),
    ({"headers": {"authorization": "Bearer abcdefghijk", "accept": "json"}},
     {"headers": {"accept": "json"}}),
    ({"u": "https://h/v1?api-key=SECRET&x=1"}, {"u": "https://h/v1?api-key=***&x=1"}),
    ({"msg": "sent Bearer abcdefgh12345"}, {"msg": "sent Bearer ***"}),
    ({"msg": "key sk-abcdefghijklmnopqrstuvwx here"}, {"msg": "key *** here"}),
    ({"list": [{"password": "p"}, 1, None, True]}, {"list": [{}, 1, None, True]}),
    ({"batch_tokens": 100, "max_tokens": 5, "token_budget_per_batch": 9},
     {"batch_tokens": 100, "max_tokens": 5, "token_budget_per_batch": 9}),
])
def test_scrub_secrets(raw, want):
    assert scrub_secrets(raw) == want


def test_scrub_secrets_masks_given_strings_anywhere():
    assert scrub_secrets({"a": ["xx MYSECRET yy"]}, ["MYSECRET"]) == {"a": ["xx *** yy"]}
    assert scrub_secrets({"n": np.int64(3), "f": np.float32(0.5)}) == {"n": 3, "f": 0.5}


# -- export / import ------------------------------------------------------------------------------
def _tables_equal(a, b):
    assert a.query_ids == b.query_ids
    for fam in a.values:
        np.testing.assert_allclose(a.values[fam], b.values[fam])


def test_json_export_import_round_trip_in_the_same_store(store):
    ds = make_dataset()
    run = store.load(store.save(_result(ds, make_ranking(), name="A")))
    obj = run_to_json_obj(run)
    assert obj["format"] == "ragdash-run" and obj["dataset"]["fingerprint"] == ds.fingerprint()
    assert "qrels" not in obj and "content" not in obj["dataset"]
    new_id = import_json(store, export_json(run))
    assert new_id != run.id
    back = store.load(new_id)
    assert back.source == "import" and back.name == "A"
    assert back.config == run.config and back.usage == run.usage
    _tables_equal(back.table(), run.table())


def test_json_import_into_a_fresh_store_needs_the_dataset(tmp_path, store):
    ds = make_dataset()
    run = store.load(store.save(_result(ds, make_ranking())))
    fresh = RunStore(tmp_path / "fresh")
    # Without the dataset anywhere: a plain sentence saying what to load.
    with pytest.raises(RunStoreError, match=r"mini-ja.*load that dataset first"):
        import_json(fresh, export_json(run))
    with pytest.raises(RunStoreError, match="not on the one loaded"):
        import_json(fresh, export_json(run), dataset=make_dataset("x", extra="違う"))
    # The user's loaded dataset, checked by fingerprint.
    got = fresh.load(import_json(fresh, export_json(run), dataset=make_dataset()))
    _tables_equal(got.table(), run.table())
    # Embedded dataset: texts come along.
    other = RunStore(tmp_path / "other")
    emb = other.load(import_json(other, export_json(run, include_dataset=True)))
    assert emb.dataset.fingerprint() == ds.fingerprint()
    # Qrels only: ids without texts, yet the same metrics.
    third = RunStore(tmp_path / "third")
    ids_only = third.load(import_json(third, export_json(run, include_qrels=True)))
    assert ids_only.dataset.name == "mini-ja (ids only)"
    assert all(d.text == "" for d in ids_only.dataset.documents)
    _tables_equal(ids_only.table(), run.table())


@pytest.mark.parametrize("payload, match", [
    (b"{not json", "not valid JSON"),
    (b'{"format": "something-else"}', "not a ragdash run export"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b'{"format": "ragdash-run", "version": 99}', "newer than this ragdash"),
    (b'{"format": "ragdash-run", "version": 1, "dataset": {}}', "not a complete"),
])
def test_bad_json_uploads_name_the_file(store, payload, match):
    with pytest.raises(DatasetError, match=match) as info:
        import_json(store, payload, filename="upload.json")
    assert "upload.json" in str(info.value)


def test_trec_export_and_import_score_the_same(store):
    ds = make_dataset()
    run = store.load(store.save(_result(ds, make_ranking(), name="my run · 1")))
    text = export_trec(run)
    first = text.splitlines()[0].split()
    assert first[:4] == ["q1", "Q0", "d1", "1"] and first[5] == "my_run_1"
    back = store.load(import_trec(store, text.encode(), dataset=ds, filename="engine.trec"))
    assert back.source == "trec" and back.name == "engine" and back.retriever == "trec"
    _tables_equal(back.table(), run.table())


def test_trec_import_is_cut_at_kmax_and_checks_ids(store):
    ds = make_dataset()
    lines = [f"q1 Q0 d{i} {i} {10 - i} x" for i in range(1, 6)]
    run = store.load(import_trec(store, "\n".join(lines), dataset=ds, kmax=2))
    assert run.kmax == 2 and run.ranking.kmax == 2 and run.query_ids == ["q1"]
    with pytest.raises(DatasetError, match="none of the run's 1 query ids"):
        import_trec(store, "zz Q0 d1 1 1.0 x", dataset=ds, filename="wrong.trec")
    with pytest.raises(DatasetError, match="document ids"):
        import_trec(store, "q1 Q0 nope 1 1.0 x", dataset=ds, filename="wrong.trec")
    with pytest.raises(DatasetError, match=r"wrong\.trec"):
        import_trec(store, "q1 Q0 d1", dataset=ds, filename="wrong.trec")


def test_loaded_runs_are_kept_so_reruns_do_not_recompute(store):
    ds = make_dataset()
    run_id = store.save(Run.of_ranking(ds, make_ranking()))
    first = store.load(run_id)
    table = first.table()
    again = store.load(run_id)
    assert again is first and again.table() is table  # metrics computed once
    assert store.load(run_id, cached=False) is not first
    store.rename(run_id, "renamed")
    assert store.load(run_id).name == "renamed"
    store.delete(run_id)
    with pytest.raises(RunStoreError):
        store.load(run_id)
    ids = [store.save(Run.of_ranking(ds, make_ranking(i))) for i in range(12)]
    for i in ids:
        store.load(i)
    assert len(store._runs) <= 8


# -- with the real pipeline ----------------------------------------------------------------------
def test_a_real_bm25_evaluation_round_trips(store):
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval import make_retriever

    ds = make_dataset()
    result = run_evaluation(ds, make_retriever("bm25"), kmax=4)
    run_id = store.save(result)
    run = store.load(run_id, cached=False)
    assert run.retriever == result.retriever == "bm25"
    assert run.query_ids == result.query_ids == ["q1", "q2", "q3"]
    assert run.kmax == 4 and run.dataset_fingerprint == ds.fingerprint()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", run.created_at)
    assert run.config == scrub_secrets(result.config)
    _tables_equal(run.table(), result.table())
    assert store.list()[0].headline["ndcg@4"] == pytest.approx(result.table().mean("ndcg@4"))


def test_created_at_is_normalised_to_utc_text(store):
    ds = make_dataset()
    for given, want in [("2025-03-04T05:06:07+09:00", "2025-03-03T20:06:07Z"),
                        ("2025-03-04T05:06:07.123456Z", "2025-03-04T05:06:07Z"),
                        (0, "1970-01-01T00:00:00Z"), ("not a time", "not a time")]:
        run_id = store.save(Run.of_ranking(ds, make_ranking(), created_at=given,
                                           config={"time": str(given)}))
        assert store.summary(run_id).created_at == want


# -- a damaged store ------------------------------------------------------------------------------
def test_a_bad_headline_row_is_skipped_and_named_the_others_still_list(store):
    good = store.save(Run.of_ranking(make_dataset(), make_ranking(), name="good"))
    bad = store.save(Run.of_ranking(make_dataset(), make_ranking(0.2), name="bad"))
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE runs SET headline=? WHERE id=?", ("{not json", bad))
    assert [s.id for s in store.list()] == [good]
    assert bad in store.bad_rows and "JSONDecodeError" in store.bad_rows[bad]
    with pytest.raises(RunStoreError, match=f"saved run {bad} cannot be read.*Results page"):
        store.summary(bad)


def test_a_truncated_store_file_is_one_sentence_with_its_path(tmp_path):
    home = tmp_path / "home"
    store = RunStore(home)
    store.save(Run.of_ranking(make_dataset(), make_ranking()))
    del store
    for name in ("runs.sqlite-wal", "runs.sqlite-shm"):
        (home / name).unlink(missing_ok=True)
    raw = (home / "runs.sqlite").read_bytes()
    (home / "runs.sqlite").write_bytes(b"garbage!" * 8 + raw[64:600])
    with pytest.raises(RunStoreError) as info:
        RunStore(home).list()
    text = str(info.value)
    assert str(home / "runs.sqlite") in text and "damaged" in text
    assert "move it aside" in text and "writable" not in text
