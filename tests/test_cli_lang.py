"""The command line keeps English unless asked: ``--lang ja`` before the command (or
RAGDASH_LANG=ja) says a message that has an id in Japanese."""

from __future__ import annotations

import os
import subprocess
import sys

from paths import JSQUAD, ROOT


def ragdash(*args, env=None):
    return subprocess.run([sys.executable, "-m", "ragdash", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_a_bad_trec_line_is_english_by_default_and_japanese_when_asked(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1\n", encoding="utf-8")
    qrels = JSQUAD / "qrels" / "test.tsv"
    english = ragdash("score", qrels, bad)
    assert english.returncode == 2 and english.stderr.startswith("error: ")
    assert "6 columns" in english.stderr
    for japanese in (ragdash("--lang", "ja", "score", qrels, bad),
                     ragdash("score", qrels, bad, env={"RAGDASH_LANG": "ja"})):
        assert japanese.returncode == 2 and japanese.stderr.startswith("エラー: ")
        assert "bad.run、1 行目" in japanese.stderr and "6 列" in japanese.stderr
        assert "Traceback" not in japanese.stderr


def test_a_loader_error_is_japanese_when_asked(tmp_path):
    missing = tmp_path / "nosuch"
    english = ragdash("evaluate", missing, "--retriever", "bm25")
    assert english.returncode == 2
    assert "no such file or folder. Check the path." in english.stderr
    japanese = ragdash("--lang", "ja", "evaluate", missing, "--retriever", "bm25")
    assert japanese.returncode == 2, japanese.stderr
    assert "nosuch: そのファイルもフォルダーもありません。パスを確かめてください。" \
        in japanese.stderr, japanese.stderr
    bad = tmp_path / "a.json"
    bad.write_text('{"corpus": ["x"], "queries": [{"query": "q", "relevant_docs": [5]}]}',
                   encoding="utf-8")
    japanese = ragdash("--lang", "ja", "evaluate", bad, "--retriever", "bm25")
    assert "文書の位置 5 が範囲外です。corpus にあるのは1 件の文書(位置 0)です" \
        in japanese.stderr, japanese.stderr
