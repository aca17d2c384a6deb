"""The reply parser reads UMBRELA's last line and a JSON score, and nothing else."""

from __future__ import annotations

import pytest

from ragdash.judge.answers import read_grade
from ragdash.judge.prompt import cut_passages, is_japanese, prompt_text, template

READ = [
    ("##final score: 2", 2),
    ("M: 2\nT: 1\n##final score: 3", 3),
    ("## Final Score: 0.", 0),
    ("**##final score: 1**", 1),
    ("##final score：2", 2),
    ("##final score: 1\nthanks\n##final score: 2", 2),
    ("##final score: 2.0", 2),
    ('{"score": 1}', 1),
    ('```json\n{"score": "3", "reason": "exact answer"}\n```', 3),
    ('The passage answers it.\n{"score": 2}', 2),
]

NOT_READ = [
    ("##final score: 4", "out_of_range"),
    ("##final score: -1", "out_of_range"),
    ("##final score: 2.5", "out_of_range"),
    ('{"score": 7}', "out_of_range"),
    ('{"score": true}', "unreadable"),
    ('{"grade": 2}', "unreadable"),
    ("The passage is relevant, I would say 2.", "unreadable"),
    ("3", "unreadable"),
    ("", "empty"),
    ("   \n", "empty"),
    ("I'm sorry, but I can't help with that.", "refusal"),
    ("申し訳ありませんが、お答えできません。", "refusal"),
    ("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>", "html"),
    ("[" * 5000 + "]" * 5000, "unreadable"),
    ("{" * 5000, "unreadable"),
]


@pytest.mark.parametrize("reply,grade", READ, ids=[r[:30] for r, _ in READ])
def test_reads_a_stated_grade(reply, grade):
    assert read_grade(reply) == (grade, None)


@pytest.mark.parametrize("reply,reason", NOT_READ, ids=[r[:30] for r, _ in NOT_READ])
def test_never_guesses(reply, reason):
    assert read_grade(reply) == (None, reason)


def test_prompt_has_query_and_passage_verbatim_in_its_language():
    q, p = "What is {x}? \\n", "Title\nbody with {passage} and {query}"
    said = prompt_text(q, p, "en")
    assert q in said and p in said and said.rstrip().endswith("##final score: N")
    ja = prompt_text("東京タワーの高さは?", "東京タワー\n高さは333メートル", "ja")
    assert "東京タワーの高さは?" in ja and "クエリ" in ja
    assert template("ja") != template("en")
    assert is_japanese("東京タワーの高さは?") and not is_japanese("北京", "Beijing")


def test_passages_are_cut_to_the_budget():
    long_text = "東京タワーは東京都港区芝公園にある総合電波塔である。" * 200
    got = cut_passages(["東京タワー", ""], [long_text, "short"], budget=64)
    assert got.cut.tolist() == [True, False]
    assert got.tokens[0] <= 64 and got.texts[0].startswith("東京タワー\n東京タワーは")
    assert long_text.startswith(got.texts[0].split("\n", 1)[1])  # a prefix, no broken char
    assert got.texts[1] == "short"
