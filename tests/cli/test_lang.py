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


def test_the_no_api_key_error_and_a_flag_error_are_japanese_when_asked():
    env = {"RAGDASH_TEST_NO_SUCH_KEY": ""}
    args = ["evaluate", JSQUAD, "--retriever", "openai", "--model", "m",
            "--base-url", "https://api.example.com/v1", "--api-key-env", "RAGDASH_TEST_NO_SUCH_KEY"]
    english = ragdash(*args, env=env)
    assert english.returncode == 2
    assert "error: no API key: the environment variable RAGDASH_TEST_NO_SUCH_KEY is not set" \
        in english.stderr, english.stderr
    japanese = ragdash("--lang", "ja", *args, env=env)
    assert japanese.returncode == 2
    assert "エラー: API キーがありません: 環境変数 RAGDASH_TEST_NO_SUCH_KEY が設定されていません" \
        in japanese.stderr, japanese.stderr
    assert "never takes" not in japanese.stderr
    japanese = ragdash("--lang", "ja", "evaluate", JSQUAD, "--k", "5-1")
    assert "--k: 範囲 '5-1' が逆順です。1-5 と書いてください" in japanese.stderr, japanese.stderr


def test_the_command_lines_notes_are_japanese_when_asked(tmp_path):
    run = tmp_path / "one.run"
    qrels = JSQUAD / "qrels" / "test.tsv"
    first = qrels.read_text(encoding="utf-8").splitlines()[1].split("\t")[0]
    run.write_text(f"{first} Q0 d1 1 1.0 t\nnot_a_query Q0 d1 1 1.0 t\n", encoding="utf-8")
    english = ragdash("score", qrels, run)
    assert english.returncode == 0, english.stderr
    assert "run queries have no qrels and are ignored" in english.stderr
    japanese = ragdash("score", qrels, run, env={"RAGDASH_LANG": "ja"})
    assert japanese.returncode == 0, japanese.stderr
    said = japanese.stderr
    assert "注: 実行結果の 1 クエリには qrels がないため無視します" in said, said
    assert "クエリが実行結果にありません" in said and "note:" not in said


def test_a_cost_error_is_japanese_when_asked():
    args = ["cost", JSQUAD, "--model", "text-embedding-3-small", "--provider", "opnai"]
    english = ragdash(*args)
    assert english.returncode == 2
    assert 'unknown provider "opnai". Did you mean OpenAI' in english.stderr, english.stderr
    japanese = ragdash("--lang", "ja", *args)
    assert japanese.returncode == 2
    assert "プロバイダー「opnai」は不明です。OpenAI" in japanese.stderr, japanese.stderr
    assert " or " not in japanese.stderr and "Known providers" not in japanese.stderr


def test_an_embeddings_error_is_japanese_when_asked():
    args = ["evaluate", JSQUAD, "--retriever", "openai", "--model", "m",
            "--base-url", "ftp://example.com/v1"]
    env = {"OPENAI_API_KEY": "sk-test"}
    english = ragdash(*args, env=env)
    assert "The base URL 'ftp://example.com/v1' is not an http(s) URL" in english.stderr
    japanese = ragdash("--lang", "ja", *args, env=env)
    assert japanese.returncode == 2
    assert "ベース URL 'ftp://example.com/v1' は http(s) の URL ではありません" \
        in japanese.stderr, japanese.stderr


def test_a_retrieval_setting_error_is_japanese_when_asked():
    args = ["evaluate", JSQUAD, "--retriever", "bm25", "--chunk-size", "64",
            "--chunk-overlap", "64"]
    english = ragdash(*args)
    assert "the chunk overlap must be at least 0 and smaller than the chunk size" \
        in english.stderr, english.stderr
    japanese = ragdash("--lang", "ja", *args)
    assert japanese.returncode == 2
    assert "チャンクの重なりは 0 以上、チャンクサイズ(64 トークン)未満にしてください" \
        in japanese.stderr and "例: --chunk-overlap 8" in japanese.stderr, japanese.stderr


def test_metric_and_statistics_errors_are_japanese_when_asked(tmp_path):
    qrels = JSQUAD / "qrels" / "test.tsv"
    first = qrels.read_text(encoding="utf-8").splitlines()[1].split("\t")[0]
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text(f"{first} Q0 a0p0 1 1.0 a\n", encoding="utf-8")
    b.write_text(f"{first} Q0 a0p1 1 1.0 b\n", encoding="utf-8")
    english = ragdash("compare", qrels, a, b, "--metric", "ndgc@10")
    assert "unknown metric 'ndgc@10' (did you mean 'ndcg'?)" in english.stderr, english.stderr
    japanese = ragdash("--lang", "ja", "compare", qrels, a, b, "--metric", "ndgc@10")
    assert japanese.returncode == 2
    assert "指標 'ndgc@10' は不明です('ndcg' のことですか?)。使える種類:" \
        in japanese.stderr, japanese.stderr
    japanese = ragdash("--lang", "ja", "compare", qrels, a, b)  # one query in common
    assert "実行に共通のクエリは 1 件です。比較には 2 件以上必要です" in japanese.stderr, \
        japanese.stderr


def test_the_validation_findings_and_notes_are_japanese_when_asked(tmp_path):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text(
        '{"_id":"d1","text":"東京は首都"}\n{"_id":"d1","text":"東京は首都"}\n'
        '{"_id":"d2","text":"大阪"}\n', encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text('{"_id":"q1","text":"首都は"}\n'
                                            '{"_id":"q2","text":"大阪は"}\n', encoding="utf-8")
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n"
                                                 "q2\td2\t0\n", encoding="utf-8")
    english = ragdash("evaluate", tmp_path, "--retriever", "bm25", "--k", "1")
    assert english.returncode == 0, english.stderr
    assert "validation: 2 findings in" in english.stderr
    assert "repeated documents (same id, same text) were dropped" in english.stderr
    japanese = ragdash("--lang", "ja", "evaluate", tmp_path, "--retriever", "bm25", "--k", "1")
    assert japanese.returncode == 0, japanese.stderr
    said = japanese.stderr
    assert "件の指摘があります" in said and "警告: " in said and "注: 評価した 1 クエリ" in said
    assert "validation:" not in said and "warning:" not in said and "note:" not in said, said


def test_a_bm25_setting_error_is_japanese_when_asked():
    english = ragdash("evaluate", JSQUAD, "--k1", "-1")
    assert english.returncode == 2
    assert "error: BM25 k1 must be a number >= 0, got -1.0" in english.stderr, english.stderr
    japanese = ragdash("--lang", "ja", "evaluate", JSQUAD, "--b", "2")
    assert japanese.returncode == 2
    assert "エラー: BM25 の b は 0 から 1 の間にしてください(2.0 が指定されました)" \
        in japanese.stderr, japanese.stderr
