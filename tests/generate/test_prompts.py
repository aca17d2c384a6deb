"""What the writer is asked: the style, the user's example queries, the passage's language;
and a cancelled run that resumes pays only for the rest."""

from __future__ import annotations

import threading

import pytest
from fake_chat import FakeChat
from world import Writer

from ragdash.dataset import Document
from ragdash.errors import Cancelled
from ragdash.generate import GenerateJob
from ragdash.generate.cache import GenerateCache
from ragdash.generate.corpus import Corpus
from ragdash.generate.prompt import read_examples
from ragdash.judge.cache import JudgeCache
from ragdash.services.chat import ChatClient


def _corpus(n: int = 12) -> Corpus:
    docs = [Document(f"d{i}", f"word{i} appears in this passage number {i} about things")
            for i in range(n)]
    docs += [Document(f"j{i}", f"梅雨{i}は日本の初夏に見られる雨の多い期間のことである。")
             for i in range(n)]
    return Corpus(docs, ["en"] * n + ["ja"] * n)


def _job(home, corpus, **kw):
    return GenerateJob(corpus, endpoint="http://127.0.0.1:9/v1", model="m", seed=1,
                       cache=GenerateCache(home), judge_cache=JudgeCache(home), **kw)


def test_style_and_language_are_in_the_prompt(home):
    job = _job(home, _corpus(), n=24, style="keyword")
    for prompt, passage in zip(job.prompts, job.passages):
        if passage.language == "ja":
            assert "キーワード検索クエリ" in prompt and "日本語で書いてください" in prompt
        else:
            assert "keyword query" in prompt and "Write in English" in prompt
    mixed = _job(home, _corpus(), n=24, style="mixed")
    assert set(mixed.styles) == {"question", "keyword"}
    forced = _job(home, _corpus(), n=24, language="en")
    assert all("Write in English" in p for p in forced.prompts)


def test_examples_are_shown_in_the_passages_language(home, tmp_path):
    lines = tmp_path / "logs.txt"
    lines.write_text("reset password\nreset password\n\nbilling address change\n"
                     "パスワード 再設定\n", encoding="utf-8")
    examples = read_examples(lines)
    assert examples == ["reset password", "billing address change", "パスワード 再設定"]
    table = tmp_path / "queries.jsonl"
    table.write_text('{"_id": "1", "text": "how to export csv"}\n', encoding="utf-8")
    assert read_examples(table) == ["how to export csv"]
    job = _job(home, _corpus(), n=24, examples=examples)
    for prompt, passage in zip(job.prompts, job.passages):
        if passage.language == "ja":
            assert "パスワード 再設定" in prompt and "reset password" not in prompt
        else:
            assert "reset password" in prompt and "パスワード" not in prompt
    plain = _job(home, _corpus(), n=24)
    assert plain.keys != job.keys  # the examples are part of what is cached


def test_a_cancelled_run_resumes_paying_only_for_the_rest(home):
    corpus = _corpus(20)
    with FakeChat(answer=Writer({}), latency=0.05) as server:
        client = ChatClient(server.url, "m", concurrency=2)
        job = GenerateJob(corpus, endpoint=client.endpoint.base, model="m", n=40, seed=1,
                          cache=GenerateCache(home), judge_cache=JudgeCache(home))
        stop = threading.Event()

        def progress(p):
            if p.get("stage") == "write" and p["done"] >= 10:
                stop.set()

        with pytest.raises(Cancelled):
            job.run(client, progress=progress, cancel=stop)
        paid = len(server.requests)
        assert 10 <= paid < 40
        server.latency = 0.0  # the rest may go fast
        again = GenerateJob(corpus, endpoint=client.endpoint.base, model="m", n=40, seed=1,
                            cache=GenerateCache(home), judge_cache=JudgeCache(home))
        assert again.estimate()["cached"] == paid
        result = again.run(client)
    assert result.usage["writing"]["requests"] == 40 - paid
    assert result.written == 40
