"""Strings of the pipeline builder and the weight sweep (the Run page's pipeline section and
its figure). Merged into :data:`ragdash.i18n.CATALOG` with the others."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # the job panel while a pipeline reranks
    "job.stage.rerank": {"en": "Reranking", "ja": "リランク中"},
    # the drill-down of a chunked run
    "col.chunk": {"en": "Chunk matched", "ja": "一致したチャンク"},
    # the weight-sweep figure
    "sweep.title": {"en": "{metric} against α ({a} weighted α, {b} 1 − α)",
                    "ja": "α ごとの {metric}（{a} の重み α、{b} の重み 1 − α）"},
    "sweep.alpha_axis": {"en": "α", "ja": "α"},
    "sweep.tune": {"en": "Tuning half ({n} queries)", "ja": "調整用の半分（{n} クエリ）"},
    "sweep.test": {"en": "Held-out half ({n} queries)", "ja": "評価用の半分（{n} クエリ）"},
    "sweep.band": {"en": "Held-out half: {level}% bootstrap band",
                   "ja": "評価用の半分：{level}% ブートストラップ区間"},
    "sweep.chosen": {"en": "α = {alpha} (chosen on the tuning half)",
                     "ja": "α = {alpha}（調整用の半分で選択）"},
    "sweep.note": {
        "en": "α was chosen on {n_tune} tuning queries (best {metric} {tune}) and is reported "
              "on the other {n_test} held-out queries: **{test}** (seeded split, seed {seed}). "
              "Choosing α on the same queries it is reported on would flatter it.",
        "ja": "α は調整用の {n_tune} クエリで選び（{metric} 最良 {tune}）、残りの評価用 {n_test} "
              "クエリで報告しています：**{test}**（シード {seed} の分割）。報告と同じクエリで α "
              "を選ぶと結果がよく見えすぎます。"},
    # the pipeline builder
    "pipe.title": {"en": "Build a pipeline", "ja": "パイプラインを組む"},
    "pipe.intro": {
        "en": "First stages (BM25 and/or the embedding model above), optionally cut into "
              "chunks, fused into one ranking, then reranked. Each stage is saved as its own "
              "run, so Compare shows the pipeline against its inputs.",
        "ja": "第1段（BM25 と上で選んだ埋め込みモデル）を必要ならチャンクに分け、1つのランキングに"
              "融合し、リランクします。各段は別の実行として保存されるので、比較ページで入力と並べて"
              "見られます。"},
    "pipe.stage_first": {"en": "1 · First stages", "ja": "1 · 第1段"},
    "pipe.bm25": {"en": "BM25", "ja": "BM25"},
    "pipe.dense": {"en": "Embedding model: {model}", "ja": "埋め込みモデル：{model}"},
    "pipe.dense_none": {"en": "Choose an embedding model above (API or local) to add a dense "
                                "stage.",
                        "ja": "密ベクトルの段を加えるには、上で埋め込みモデル（API またはローカル）"
                              "を選んでください。"},
    "pipe.saved_first": {"en": "Saved runs as first stages", "ja": "第1段に使う保存済みの実行"},
    "pipe.saved_first_help": {
        "en": "Runs of this dataset made before, or TREC runs from another engine uploaded on "
              "Compare: used as they are (no retrieval, nothing paid again). Chunk settings "
              "do not apply to them.",
        "ja": "このデータセットで以前に作った実行、または比較ページでアップロードした"
              "他のエンジンの TREC ファイル。そのまま使います（検索も再課金もしません）。"
              "チャンク設定は適用されません。"},
    "pipe.cost_saved": {"en": "nothing (saved run)", "ja": "なし（保存済みの実行）"},
    "pipe.chunk_size": {"en": "Chunk size (tokens, 0 = whole documents)",
                        "ja": "チャンクサイズ（トークン、0 = 文書全体）"},
    "pipe.chunk_overlap": {"en": "Chunk overlap (tokens)", "ja": "チャンクの重なり（トークン）"},
    "pipe.aggregate": {"en": "Document score from its chunks", "ja": "チャンクから文書のスコア"},
    "pipe.aggregate_max": {"en": "best chunk (MaxP)", "ja": "最良チャンク（MaxP）"},
    "pipe.aggregate_first": {"en": "first chunk (FirstP)", "ja": "先頭チャンク（FirstP）"},
    "pipe.aggregate_mean2": {"en": "mean of the best two", "ja": "上位2チャンクの平均"},
    "pipe.chunks_info": {"en": "{chunks} chunks of {docs} documents, {tokens} tokens ({method})",
                         "ja": "{docs} 文書から {chunks} チャンク、{tokens} トークン（{method}）"},
    "pipe.stage_fusion": {"en": "2 · Fusion", "ja": "2 · 融合"},
    "pipe.fusion_method": {"en": "Method", "ja": "方式"},
    "pipe.fusion_one": {"en": "One first stage: nothing to fuse.",
                        "ja": "第1段が1つなので融合はありません。"},
    "pipe.rrf_k": {"en": "RRF k", "ja": "RRF の k"},
    "pipe.alpha": {"en": "α (weight of BM25)", "ja": "α（BM25 の重み）"},
    "pipe.stage_rerank": {"en": "3 · Rerank", "ja": "3 · リランク"},
    "pipe.rerank_on": {"en": "Rerank the top documents", "ja": "上位文書をリランクする"},
    "pipe.rerank_kind": {"en": "Reranker", "ja": "リランカー"},
    "pipe.rerank_kind_http": {"en": "Rerank API (Cohere, Jina, Voyage, TEI, vLLM)",
                              "ja": "リランク API（Cohere、Jina、Voyage、TEI、vLLM）"},
    "pipe.rerank_kind_local": {"en": "Local cross-encoder", "ja": "ローカルのクロスエンコーダー"},
    "pipe.rerank_local_model": {"en": "Model folder or installed package",
                                "ja": "モデルのフォルダーまたはインストール済みパッケージ"},
    "pipe.rerank_url": {"en": "Rerank API base URL", "ja": "リランク API のベース URL"},
    "pipe.rerank_model": {"en": "Rerank model", "ja": "リランクモデル"},
    "pipe.rerank_protocol": {"en": "API shape", "ja": "API の形式"},
    "pipe.rerank_key": {"en": "Rerank API key", "ja": "リランク API キー"},
    "pipe.depth": {"en": "Rerank the top N", "ja": "上位 N 件をリランク"},
    "pipe.cost_title": {"en": "**Cost of each stage, before Start**",
                        "ja": "**各段の費用（開始前の見積もり）**"},
    "pipe.cost_stage": {"en": "Stage", "ja": "段"},
    "pipe.cost_what": {"en": "What is paid for", "ja": "課金の対象"},
    "pipe.cost_free": {"en": "nothing (runs here)", "ja": "なし（このマシンで実行）"},
    "pipe.cost_tokens": {"en": "{tokens} tokens ({method})", "ja": "{tokens} トークン（{method}）"},
    "pipe.cost_units": {"en": "{pairs} pairs in {requests} requests, {units}",
                        "ja": "{requests} リクエストで {pairs} ペア、{units}"},
    "pipe.cost_total": {"en": "Total", "ja": "合計"},
    "pipe.cost_unpriced": {"en": "not in the price catalog", "ja": "価格表にありません"},
    "pipe.cost_cached": {"en": "At most: pairs already in the rerank cache are not paid again.",
                         "ja": "上限の見積もりです。キャッシュ済みのペアは再課金されません。"},
    "pipe.name": {"en": "Pipeline name: **{name}**", "ja": "パイプライン名：**{name}**"},
    "pipe.start": {"en": "Start pipeline", "ja": "パイプラインを開始"},
    "pipe.need_first": {"en": "Choose at least one first stage.",
                        "ja": "第1段を少なくとも1つ選んでください。"},
    "pipe.need_rerank_model": {"en": "Give the rerank model and base URL.",
                               "ja": "リランクモデルとベース URL を入力してください。"},
    "pipe.sweep_title": {"en": "Fuse saved runs, and the weight sweep",
                         "ja": "保存済みの実行の融合と重みスイープ"},
    "pipe.fuse_runs": {"en": "Runs to fuse (the first is A)",
                       "ja": "融合する実行（最初が A）"},
    "pipe.fuse_save": {"en": "Save the fused run", "ja": "融合した実行を保存"},
    "pipe.fuse_saved": {"en": "Saved “{name}”; Compare shows it against its inputs.",
                        "ja": "「{name}」を保存しました。比較ページで入力と並べて表示します。"},
    "pipe.alpha_two": {"en": "α combines exactly two runs; pick two, or another method.",
                       "ja": "α はちょうど2つの実行を組み合わせます。2つ選ぶか、"
                             "別の方式にしてください。"},
    "pipe.alpha_a": {"en": "α (weight of A)", "ja": "α（A の重み）"},
    "pipe.sweep_intro": {
        "en": "Two or more saved runs of this dataset (computed here, or TREC runs uploaded on "
              "Compare) fused into a new run. For two runs, α from 0 to 1 in steps of 0.1 "
              "weighs A against B, from the saved rankings alone (no retrieval, no API call).",
        "ja": "このデータセットの保存済みの実行（ここで計算したもの、または比較ページで"
              "アップロードした TREC ファイル）を融合して新しい実行にします。2つなら、保存済みの"
              "ランキングだけから α を 0 から 1 まで 0.1 刻みで A と B に重み付けします（検索も "
              "API 呼び出しもしません）。"},
    "pipe.sweep_metric": {"en": "Metric", "ja": "指標"},
    "pipe.sweep_seed": {"en": "Split seed", "ja": "分割のシード"},
    "pipe.sweep_need_two": {"en": "Save two runs of this dataset to sweep their weights.",
                            "ja": "重みをスイープするには、このデータセットの実行を2つ"
                                  "保存してください。"},
    "pipe.sweep_same": {"en": "Choose two or more runs.",
                        "ja": "実行を2つ以上選んでください。"},
}
