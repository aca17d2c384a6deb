"""The generation job against a real chat server on 127.0.0.1 that writes queries from the
passage (tests/generate/world.py): every check's count, the cache, the language rule on
jsquad-valid, the pooled judging, and the output as a dataset with two sources of labels."""

from __future__ import annotations

import json

import pytest
from fake_chat import FakeChat
from world import Writer

from ragdash.dataset import Document, synthetic_note
from ragdash.generate import GenerateJob, read_corpus, save_generated, write_generated
from ragdash.generate.cache import GenerateCache
from ragdash.generate.corpus import Corpus
from ragdash.judge.cache import JudgeCache
from ragdash.services.chat import ChatClient

WORDS = ["apple", "river", "castle", "engine", "violin", "glacier", "harbor", "comet",
         "meadow", "lantern", "quartz", "falcon", "pepper", "canyon", "saddle", "ribbon",
         "tunnel", "walnut", "beacon", "copper", "dolphin", "ember", "fjord", "garnet",
         "hazel", "island", "jasmine", "kettle", "lagoon", "marble"]

#: what the server does for document i (the rest: a good question)
PLAN = {0: "copy", 1: "copy", 2: "copy", 3: "copy",
        4: "japanese", 5: "japanese", 6: "japanese",
        7: "dup:fair", 8: "dup:fair", 9: "dup:moon", 10: "dup:moon",
        11: "refuse", 12: "refuse",
        13: "sorry", 14: "sorry", 15: "two",
        16: "unanswerable", 17: "unanswerable", 18: "nograde"}
EXPECTED = {"copied": 4, "wrong_language": 3, "duplicate": 2, "failed": 2,
            "not_question": 3, "not_answerable": 2, "unjudged": 1}


def _corpus() -> tuple[Corpus, Writer]:
    docs = [Document(f"d{i}", f"{w} guide: it explains where the {w} is kept. Records of the "
                              f"{w} go back many years and list every change made to it.")
            for i, w in enumerate(WORDS)]
    behaviour = {docs[i].text: kind for i, kind in PLAN.items()}
    return Corpus(docs, ["a.md"] * 15 + ["b.md"] * 15, name="toy"), Writer(behaviour)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _job(corpus, client, home, **kw):
    return GenerateJob(corpus, endpoint=client.endpoint.base, model="gpt-4o-mini",
                       cache=GenerateCache(home), judge_cache=JudgeCache(home), **kw)


def test_every_check_is_counted_and_a_rerun_sends_only_what_was_not_answered(home, tmp_path):
    corpus, writer = _corpus()
    n = len(WORDS)
    with FakeChat(answer=writer) as server:
        server.fault("status", status=429, headers={"Retry-After": "0"}, match="castle")
        server.fault("malformed", match="lantern")
        client = ChatClient(server.url, "gpt-4o-mini", concurrency=2)
        job = _job(corpus, client, home, n=n, seed=1, per_source=15)
        assert job.estimate()["writing"]["requests"] == n
        result = job.run(client)
        sent = len(server.requests)

        for reason, count in EXPECTED.items():
            assert result.reasons[reason] == count, (reason, dict(result.reasons))
        assert result.failures == {"refusal": 2}
        assert result.written == n
        assert result.kept == n - sum(EXPECTED.values())
        assert result.usage["writing"]["requests"] == n
        faults = [r.fault for r in server.requests if r.fault]
        assert sorted(faults) == ["malformed", "status"]  # both retried, both answered
        # the judge saw every query that passed the checks against its passage, then the pool
        kept_ids = {q.id for q in result.dataset.queries}
        assert len(kept_ids) == result.kept
        assert set(result.dataset.qrels) == kept_ids
        assert all(3.0 in docs.values() for docs in result.dataset.qrels.values())

        # a rerun sends only what got no usable answer: the 2 refused writing requests, and
        # the judge's pair that got no grade (asked once more) — nothing is cached but answers
        again = _job(corpus, client, home, n=n, seed=1, per_source=15)
        assert again.estimate()["cached"] == n - 2
        rerun = again.run(client)
        assert len(server.requests) == sent + 2 + 2
        assert rerun.usage["writing"]["requests"] == 2
        assert rerun.usage["judge"]["requests"] == 2
        assert [q.text for q in rerun.dataset.queries] == \
            [q.text for q in result.dataset.queries]
        assert rerun.dataset.qrels == result.dataset.qrels


def test_the_cost_before_is_the_price_catalogs(home):
    """gpt-4o-mini at OpenAI: input and output tokens at the catalog's prices, in USD and
    at the configured yen rate; nothing sent (the endpoint is never reached)."""
    from ragdash.cost.chat import find_chat_price
    from ragdash.cost.currency import load_settings
    from ragdash.generate.job import ASSUMED_QUERY_TOKENS

    corpus, _ = _corpus()
    job = GenerateJob(corpus, endpoint="https://api.openai.com/v1", model="gpt-4o-mini",
                      n=10, seed=1, cache=GenerateCache(home), judge_cache=JudgeCache(home))
    writing = job.estimate()["writing"]
    price = find_chat_price("gpt-4o-mini", "OpenAI")
    usd = (writing["input_tokens"] * price.usd_per_1m_input
           + 10 * ASSUMED_QUERY_TOKENS * price.usd_per_1m_output) / 1e6
    assert writing["requests"] == 10 and writing["usd"] == pytest.approx(usd)
    assert writing["jpy"] == pytest.approx(usd * load_settings().jpy_per_usd)
    assert writing["input_tokens"] > 10 * 150  # the prompt's own words are counted


def test_pooled_judging_finds_the_other_relevant_document(home):
    docs = [Document("apple1", "Apple trees need sun. The apple harvest starts in autumn."),
            Document("apple2", "An orchard of apple trees gives an apple harvest each autumn."),
            Document("river", "The river floods in spring and the river banks are repaired."),
            Document("stone", "Granite is a hard stone used for kitchen counters and floors.")]
    corpus = Corpus(docs, ["x"] * 4)
    query = "Where would I read about Apple and its uses?"  # the writer's, from word one
    writer = Writer({docs[0].text: "good"}, {query: {"orchard"}})
    with FakeChat(answer=writer) as server:
        client = ChatClient(server.url, "gpt-4o-mini")
        job = _job(corpus, client, home, n=4, seed=1)
        result = job.run(client)
    by_text = {q.text: q.id for q in result.dataset.queries}
    qid = by_text[query]
    assert result.dataset.qrels[qid]["apple1"] == 3.0  # the source
    assert result.dataset.qrels[qid]["apple2"] == 2.0  # judged in the pool
    assert result.pool["with_other_answer"] >= 1
    sources = {(q, d): s for q, d, _g, s in result.labels}
    assert sources[(qid, "apple1")] == "generated:gpt-4o-mini@ragdash-gen-1"
    assert sources[(qid, "apple2")] == "llm:gpt-4o-mini@ragdash-umbrela-2"
    # the source pair is never sent to the pool's judge twice: once for answerability only
    prompts_with_source = [p for q, p in writer.judged if q == query and docs[0].text in p]
    assert len(prompts_with_source) == 1


def test_language_rule_on_jsquad_passages(home):
    """jsquad-valid's Japanese passages get Japanese prompts; the five answered in English
    are dropped for their language, and no Japanese question is."""
    from paths import JSQUAD

    corpus = read_corpus(JSQUAD / "corpus.jsonl")
    writer = Writer({})
    with FakeChat(answer=writer) as server:
        client = ChatClient(server.url, "gpt-4o-mini", concurrency=4)
        job = _job(corpus, client, home, n=20, seed=3)
        assert job.estimate()["languages"] == {"ja": 20}
        for i in range(5):
            text = corpus.documents[job.sample.indices[i]].text
            writer.behaviour[text] = "english"
        result = job.run(client)
        prompts = [r.body["messages"][0]["content"] for r in server.requests[:20]]
    assert all("日本語で書いてください" in p for p in prompts if "パッセージ" in p)
    assert result.reasons["wrong_language"] == 5
    assert not any(q.text.isascii() for q in result.dataset.queries)


def test_the_output_loads_as_a_dataset_with_two_sources_of_labels(home, tmp_path):
    from ragdash.judgments import read_judgments
    from ragdash.loaders import load_dataset
    from ragdash.pipeline import run_evaluation
    from ragdash.retrieval import make_retriever
    from ragdash.runs import RunStore

    corpus, writer = _corpus()
    with FakeChat(answer=writer) as server:
        client = ChatClient(server.url, "gpt-4o-mini")
        result = _job(corpus, client, home, n=30, seed=2, per_source=15).run(client)
    out = write_generated(result, tmp_path / "set")
    loaded = load_dataset(out)
    assert [q.id for q in loaded.queries] == [q.id for q in result.dataset.queries]
    assert loaded.qrels == result.dataset.qrels
    assert len(loaded.documents) == len(corpus)
    assert loaded.synthetic == {"queries": result.kept,
                                "generators": {"gpt-4o-mini": result.kept}, "seeds": [2]}
    assert str(synthetic_note(loaded)) == \
        f"synthetic queries ({result.kept}, generated by gpt-4o-mini, seed 2)"
    labels = read_judgments(out / "qrels" / "test.tsv")
    sources = labels.sources()
    assert sources["generated:gpt-4o-mini@ragdash-gen-1"] == result.kept
    assert any(s.startswith("llm:gpt-4o-mini@") for s in sources)
    rows = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert {r["source_doc"] for r in rows} <= {d.id for d in corpus.documents}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kept"] == result.kept and manifest["dropped"]["copied"] >= 1
    run_evaluation(loaded, make_retriever("bm25"), kmax=10).table()  # scores as any dataset

    store = RunStore(home)
    fp = save_generated(result, store)
    assert store.dataset(fp).synthetic["queries"] == result.kept
    names = {s["name"] for s in store.judgment_sets(fp)}
    assert names == {"generated:gpt-4o-mini@ragdash-gen-1",
                     "llm:gpt-4o-mini@ragdash-umbrela-2"}
