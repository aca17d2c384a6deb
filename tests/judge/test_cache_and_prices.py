"""The judge's answer cache and the chat price catalog."""

from __future__ import annotations

import json
import sqlite3

import pytest

from ragdash.cost.chat import chat_cost, find_chat_price, parse_chat_prices, provider_of
from ragdash.errors import CostError
from ragdash.judge.cache import Answer, JudgeCache, text_hash


def test_answers_round_trip_and_keep_no_text(tmp_path):
    cache = JudgeCache(tmp_path)
    key = (text_hash("質問"), text_hash("文書"))
    other = (text_hash("質問"), text_hash("別の文書"))
    cache.put("http://127.0.0.1:1/v1", "m", "v1", key, Answer(2, None, 100, 6))
    # an answer that gave no grade is not kept: the next run asks again
    cache.put("http://127.0.0.1:1/v1", "m", "v1", other, Answer(None, "refusal", 90, 12))
    got = cache.get_many("http://127.0.0.1:1/v1", "m", "v1", [key, other])
    assert got[key].grade == 2 and other not in got
    assert cache.get_many("http://127.0.0.1:1/v1", "m", "v2", [key]) == {}  # prompt version
    assert cache.get_many("http://127.0.0.1:1/v1", "other", "v1", [key]) == {}
    cache.close()
    with sqlite3.connect(tmp_path / "judge.sqlite") as conn:
        rows = conn.execute("SELECT * FROM answers").fetchall()
        assert len(rows) == 1
        flat = repr(rows)
        assert "質問" not in flat and "文書" not in flat  # digests only, never the texts
        # a row without a grade, as older versions wrote them, is not read back
        conn.execute("INSERT INTO answers VALUES (?,?,?,?,?,?,?,?,?,?)",
                     ("http://127.0.0.1:1/v1", "m", "v1", *other, None, "unreadable", 90, 12,
                      "2026-01-01T00:00:00+00:00"))
    assert JudgeCache(tmp_path).get_many("http://127.0.0.1:1/v1", "m", "v1", [other]) == {}
    assert JudgeCache(tmp_path).info()["models"][0]["graded"] == 1


def test_chat_prices():
    gpt = find_chat_price("gpt-4o-mini", "OpenAI")
    assert gpt.usd_per_1m_input == 0.15 and gpt.usd_per_1m_output == 0.60 and gpt.as_of
    cost = chat_cost(1_000_000, 100_000, gpt)
    assert cost["usd"] == pytest.approx(0.15 + 0.06)
    assert find_chat_price("anything", "local").usd(10**6, 10**6) == 0
    assert find_chat_price("no-such-model") is None
    assert chat_cost(10, 10, None)["usd"] is None
    assert provider_of("https://api.openai.com/v1") == "OpenAI"
    assert provider_of("http://127.0.0.1:8000/v1") == "local"
    assert provider_of("https://x.openai.azure.com/openai/v1") == "Azure OpenAI"
    assert provider_of("https://relay.example.com/v1") is None
    relay = parse_chat_prices("provider,model,usd_per_1m_input,usd_per_1m_output,source_url,"
                              "as_of,jpy_per_usd\nrelay,gpt-4o,2.5,10,,,1\n")[0]
    assert chat_cost(1_000_000, 0, relay)["jpy"] == pytest.approx(2.5)  # ¥1 = $1
    with pytest.raises(CostError, match="line 2"):
        parse_chat_prices("provider,model,usd_per_1m_input,usd_per_1m_output\nA,b,x,1\n",
                          file="p.csv")


def test_cache_command_shows_and_clears_the_judge_answers(tmp_path, capsys):
    from ragdash.cli import main

    cache = JudgeCache(tmp_path)
    for i, grade in enumerate((0, 3, 2, None)):  # the answer without a grade is not kept
        cache.put("http://127.0.0.1:1/v1", "judge-m", "v1", (text_hash("q"), text_hash(str(i))),
                  Answer(grade, None if grade is not None else "refusal"))
    cache.close()
    assert main(["cache", "info", "--home", str(tmp_path), "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)["judge"]
    assert info["rows"] == 3 and info["models"][0]["graded"] == 3
    assert main(["cache", "info", "--home", str(tmp_path)]) == 0
    assert "3 answers" in capsys.readouterr().out
    assert main(["cache", "clear", "--home", str(tmp_path), "--model", "judge-m"]) == 0
    assert "Deleted 3 cached judge answers" in capsys.readouterr().out
    assert JudgeCache(tmp_path).info()["rows"] == 0
