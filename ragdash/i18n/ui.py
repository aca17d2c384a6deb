"""Strings for the Streamlit pages (owned by the app UI helper). See ragdash.i18n.

Keys by page: ``nav.`` page names, ``side.`` the shared sidebar, ``link.`` ``?run=`` links,
``home.`` the landing page, ``data.``, ``run.``, ``res.`` (Results), ``cmp.`` (Compare),
``cost.``. Markdown is allowed where a page renders the text with ``st.markdown``.
"""

MESSAGES: dict[str, dict[str, str]] = {
    # -- navigation and sidebar ----------------------------------------------------------
    "nav.home": {"en": "Home", "ja": "ホーム"},
    "nav.data": {"en": "Data", "ja": "データ"},
    "nav.run": {"en": "Run", "ja": "実行"},
    "nav.results": {"en": "Results", "ja": "結果"},
    "nav.compare": {"en": "Compare", "ja": "比較"},
    "nav.cost": {"en": "Cost", "ja": "コスト"},
    "side.no_dataset": {
        "en": "No dataset loaded yet.",
        "ja": "データセットはまだ読み込まれていません。",
    },
    "side.dataset": {
        "en": "Dataset: **{name}** — {docs} documents, {queries} queries",
        "ja": "データセット: **{name}** — 文書 {docs} 件、クエリ {queries} 件",
    },
    "side.run": {"en": "Run: **{name}**", "ja": "実行結果: **{name}**"},
    "side.job_running": {"en": "Running: {label}", "ja": "実行中: {label}"},
    "side.language": {"en": "Language", "ja": "言語"},
    "link.bad_run": {
        "en": "This link's run cannot be opened: {error}",
        "ja": "このリンクの実行結果を開けません: {error}",
    },
    # -- landing page --------------------------------------------------------------------
    "home.title": {
        "en": "ragdash — is your retriever any good?",
        "ja": "ragdash — その検索器は十分に良いか?",
    },
    "home.intro": {
        "en": "ragdash evaluates the **retrieval** half of a RAG system. Bring a corpus and "
              "labeled queries, retrieve with **BM25** (no key needed) or any **OpenAI-compatible "
              "embeddings** endpoint, and read **Recall, MRR, nDCG, Precision, Hit rate and MAP "
              "at every K** — per query, model against model with statistics, and what it cost in "
              "USD and JPY.",
        "ja": "ragdash は RAG システムの**検索**部分を評価します。"
              "コーパスと正解付きクエリを用意し、**BM25**(キー不要)または **OpenAI "
              "互換の埋め込み** API で検索して、**Recall・MRR・nDCG・Precision・Hit rate・MAP "
              "をすべての K で**確認できます。クエリごとの内訳、統計検定つきのモデル比較、USD "
              "と円での費用も表示します。",
    },
    "home.quick_title": {"en": "Start in one click", "ja": "ワンクリックで開始"},
    "home.quick_body": {
        "en": "Runs BM25 on a bundled Japanese sample (a slice of JSQuAD). No API key, no "
              "download; the curves appear in a few seconds.",
        "ja": "同梱の日本語サンプル(JSQuAD の一部)で BM25 を実行します。API "
              "キーもダウンロードも不要で、数秒で曲線が表示されます。",
    },
    "home.quick_button": {"en": "Try it on the sample (BM25)", "ja": "サンプルで試す(BM25)"},
    "home.article_button": {"en": "The article's 10-document example", "ja": "記事の 10 文書の例"},
    "home.steps_title": {"en": "The journey", "ja": "使い方の流れ"},
    "home.step_data": {
        "en": "load a sample or upload your corpus, queries and judgements",
        "ja": "サンプルを読み込むか、コーパス・クエリ・正解をアップロード",
    },
    "home.step_run": {
        "en": "pick a retriever and a model, see the cost, start",
        "ja": "検索器とモデルを選び、費用を確認して開始",
    },
    "home.step_results": {
        "en": "curves across K, per-query values, one query's documents",
        "ja": "K ごとの曲線、クエリごとの値、1 クエリの文書の詳細",
    },
    "home.step_compare": {
        "en": "runs side by side, with significance tests",
        "ja": "複数の実行結果を並べて有意差検定",
    },
    "home.step_cost": {
        "en": "providers side by side in USD and JPY",
        "ja": "プロバイダごとの費用を USD と円で比較",
    },
    "home.current_title": {"en": "Current dataset", "ja": "現在のデータセット"},
    "home.no_dataset": {
        "en": "No dataset yet: start with the sample above, or go to Data.",
        "ja": "データセットがありません。上のサンプルから始めるか、データのページへ。",
    },
    "home.dataset_line": {
        "en": "**{name}** — {docs} documents, {queries} queries with judgements",
        "ja": "**{name}** — 文書 {docs} 件、正解付きクエリ {queries} 件",
    },
    "home.recent_title": {"en": "Recent runs", "ja": "最近の実行結果"},
    "home.no_runs": {"en": "No saved runs yet.", "ja": "保存された実行結果はまだありません。"},
    "home.open_run": {"en": "Open “{name}”", "ja": "「{name}」を開く"},
    # -- run (job progress; the Run page's own strings come later) -----------------------
    "run.cancel": {"en": "Cancel", "ja": "キャンセル"},
    "run.failed": {
        "en": "The run “{label}” failed: {error}",
        "ja": "実行「{label}」は失敗しました: {error}",
    },
    "run.cancelled": {
        "en": "The run “{label}” was cancelled.",
        "ja": "実行「{label}」はキャンセルされました。",
    },
    # -- results -------------------------------------------------------------------------
    "res.title": {"en": "Results", "ja": "結果"},
    "res.waiting": {
        "en": "The evaluation is running; the results appear here when it is done.",
        "ja": "評価を実行中です。終わるとここに結果が表示されます。",
    },
    "res.no_runs": {
        "en": "No runs yet. Load data on the Data page, then start one on the Run page — or use "
              "the one-click sample on Home.",
        "ja": "実行結果がまだありません。データのページで読み込み、"
              "実行のページで開始してください(ホームのワンクリックのサンプルでも可)。",
    },
    "res.run": {"en": "Run", "ja": "実行結果"},
    "res.dataset": {"en": "Dataset", "ja": "データセット"},
    "res.queries": {"en": "Queries evaluated", "ja": "評価したクエリ"},
    "res.retriever": {"en": "Retriever / model", "ja": "検索器 / モデル"},
    "res.seconds": {"en": "Time taken", "ja": "所要時間"},
    "res.metrics": {"en": "Metrics", "ja": "指標"},
    "res.k": {"en": "K for tables", "ja": "表の K"},
    "res.k_help": {
        "en": "The cutoff used by the per-query table, the histogram and the drill-down. The "
              "curves show every K.",
        "ja": "クエリ別の表・ヒストグラム・詳細で使う上位件数。曲線はすべての K を表示します。",
    },
    "res.drop_empty": {
        "en": "Leave out {n} queries without relevant documents",
        "ja": "正解文書のないクエリ {n} 件を除く",
    },
    "res.drop_empty_help": {
        "en": "trec_eval counts them as 0 in every mean (the default here too).",
        "ja": "trec_eval はこれらをすべての平均で 0 として数えます(ここでも既定)。",
    },
    "res.summary": {
        "en": "Summary at K = 1, 3, 5, 10, 20, 50, 100",
        "ja": "K = 1, 3, 5, 10, 20, 50, 100 での要約",
    },
    "res.per_query": {"en": "Per query", "ja": "クエリ別"},
    "res.per_query_help": {
        "en": "Worst first. Click a column to sort; click a row to open its drill-down.",
        "ja": "悪い順に表示。列名クリックで並べ替え、行クリックで詳細を開きます。",
    },
    "res.search": {"en": "Search", "ja": "検索"},
    "res.search_placeholder": {"en": "query id or text", "ja": "クエリ ID または本文"},
    "res.filter": {"en": "Show", "ja": "表示"},
    "res.filter_all": {"en": "all queries", "ja": "すべてのクエリ"},
    "res.filter_zero": {"en": "scored 0 (first metric)", "ja": "0 点(先頭の指標)"},
    "res.filter_missed": {
        "en": "no relevant document retrieved",
        "ja": "正解文書を 1 件も取得できなかった",
    },
    "res.filter_no_relevant": {
        "en": "no relevant document in the judgements",
        "ja": "正解データに正解文書がない",
    },
    "res.rows": {"en": "{shown} of {total} queries", "ja": "{total} 件中 {shown} 件"},
    "res.histogram": {"en": "Distribution", "ja": "分布"},
    "res.hist_metric": {"en": "Metric", "ja": "指標"},
    "res.drill": {"en": "One query in detail", "ja": "1 クエリの詳細"},
    "res.drill_pick": {"en": "Query", "ja": "クエリ"},
    "res.drill_query": {"en": "Query", "ja": "クエリ"},
    "res.drill_stats": {
        "en": "{n} relevant documents; {found} of them in the top {k}; first relevant at rank "
              "{first}",
        "ja": "正解文書 {n} 件、うち上位 {k} 件に {found} 件。最初の正解の順位: {first}",
    },
    "res.drill_no_relevant": {
        "en": "This query has no relevant document in the judgements, so it scores 0 on every "
              "metric.",
        "ja": "このクエリには正解文書がないため、すべての指標で 0 になります。",
    },
    "res.drill_misses": {
        "en": "{n} relevant documents are not in the top {k} (highlighted).",
        "ja": "正解文書のうち {n} 件が上位 {k} 件に入っていません(色付き)。",
    },
    "res.drill_relevant": {
        "en": "Relevant documents and the rank each got",
        "ja": "正解文書と各文書の順位",
    },
    "res.drill_top": {
        "en": "Top {k} retrieved (✓ = relevant)",
        "ja": "検索結果の上位 {k} 件(✓ = 正解)",
    },
    "res.downloads": {"en": "Downloads", "ja": "ダウンロード"},
    "res.dl_csv": {"en": "Per-query CSV", "ja": "クエリ別 CSV"},
    "res.dl_json": {"en": "Run (JSON)", "ja": "実行結果(JSON)"},
    "res.dl_trec": {"en": "TREC run", "ja": "TREC 形式"},
    "res.dl_report": {"en": "HTML report", "ja": "HTML レポート"},
    "res.report_texts": {
        "en": "Include query and document texts",
        "ja": "クエリと文書の本文を含める",
    },
    "res.report_texts_help": {
        "en": "Turn off to share the report outside your team: ids and numbers only.",
        "ja": "チーム外に共有する場合はオフに。ID と数値のみになります。",
    },
    "res.share": {"en": "Link to this run", "ja": "この実行結果へのリンク"},
    "res.share_help": {
        "en": "Opens this run in a fresh browser session on this server. The API key is never "
              "part of a link.",
        "ja": "このサーバー上で、新しいブラウザのセッションからこの実行結果を開けます。API "
              "キーはリンクに含まれません。",
    },
}
