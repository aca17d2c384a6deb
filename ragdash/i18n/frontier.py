"""Strings of the decision view: the frontier chart, its page, the sweep form and the report's
frontier section (English and Japanese)."""

MESSAGES: dict[str, dict[str, str]] = {
    "nav.frontier": {"en": "Choose a setup", "ja": "構成を選ぶ"},
    # the chart (present.charts.frontier_figure)
    "fr.title": {"en": "{metric} against {x}", "ja": "{metric}と{x}"},
    "fr.axis.index-cost": {"en": "Indexing cost (USD)", "ja": "索引作成の費用（USD）"},
    "fr.axis.query-cost": {"en": "Cost per 1,000 queries (USD)",
                           "ja": "1,000クエリあたりの費用（USD）"},
    "fr.axis.memory": {"en": "Index memory (bytes)", "ja": "索引のメモリ（バイト）"},
    "fr.axis.memory_projected": {"en": "Index memory at {n} vectors (bytes, projected)",
                                 "ja": "{n} ベクトル時の索引メモリ（バイト、推計）"},
    "fr.axis.latency": {"en": "Latency per query (ms)", "ja": "1クエリあたりの遅延（ms）"},
    "fr.noun.index-cost": {"en": "indexing cost", "ja": "索引作成の費用"},
    "fr.noun.query-cost": {"en": "cost per 1,000 queries", "ja": "1,000クエリあたりの費用"},
    "fr.noun.memory": {"en": "memory", "ja": "メモリ"},
    "fr.noun.latency": {"en": "latency", "ja": "遅延"},
    "fr.pareto": {"en": "Pareto frontier", "ja": "パレート最適"},
    "fr.same": {"en": "Not distinguishable from the best", "ja": "最良と差がない"},
    "fr.worse": {"en": "Measurably worse than the best", "ja": "最良より有意に低い"},
    "fr.best": {"en": "Best", "ja": "最良"},
    "fr.recommended": {"en": "Recommended", "ja": "推奨"},
    "fr.ci": {"en": "95% interval", "ja": "95%区間"},
    "fr.no_x": {"en": "{n} runs have no value on this axis and are not drawn: {names}",
                "ja": "{n} 件の実行はこの軸の値がないため描いていません：{names}"},
    # the page
    "fr.page_title": {"en": "Choose a setup: quality against cost, memory and latency",
                      "ja": "構成を選ぶ：品質と費用・メモリ・遅延"},
    "fr.intro": {
        "en": "Every saved run of **{name}** is a point: its score with a 95% bootstrap "
              "interval against what it costs to operate. Joined points are Pareto-optimal; "
              "filled points are not statistically distinguishable from the best run "
              "(paired test, Holm-corrected, as on Compare). Click a point to open its run.",
        "ja": "**{name}** の保存済みの実行を1点ずつ描きます。縦軸はスコアと95%ブートストラップ"
              "区間、横軸は運用にかかるものです。線で結んだ点はパレート最適、塗りつぶした点は"
              "最良の実行と統計的に区別できない実行です（Compare と同じ対応のある検定、Holm "
              "補正）。点をクリックするとその実行を開きます。"},
    "fr.no_dataset": {"en": "Load a dataset on the Data page first.",
                      "ja": "まず Data ページでデータセットを読み込んでください。"},
    "fr.no_runs": {"en": "No saved run of this dataset yet: start one on the Run page, "
                         "or sweep a dense run below.",
                   "ja": "このデータセットの保存済みの実行がまだありません。Run ページで"
                         "実行するか、下で密ベクトル検索の実行をスイープしてください。"},
    "fr.runs": {"en": "Runs on the chart", "ja": "グラフに載せる実行"},
    "fr.runs_n": {"en": "Runs on the chart: {n} saved runs of this dataset (open to leave some "
                        "out)",
                  "ja": "グラフに載せる実行：このデータセットの保存済み {n} 件（開くと一部を"
                        "外せます）"},
    "fr.x": {"en": "Compare against", "ja": "比べる軸"},
    "fr.metric": {"en": "Quality metric", "ja": "品質の指標"},
    "fr.project": {"en": "Project memory to this many vectors (0: as measured)",
                   "ja": "このベクトル数に換算したメモリ（0：実測のまま）"},
    "fr.recommendation": {"en": "Recommendation", "ja": "推奨"},
    "fr.table": {"en": "The points", "ja": "各点の値"},
    "fr.col.run": {"en": "Run", "ja": "実行"},
    "fr.col.x": {"en": "x", "ja": "横軸"},
    "fr.col.y": {"en": "Score", "ja": "スコア"},
    "fr.col.ci": {"en": "95% interval", "ja": "95%区間"},
    "fr.col.pareto": {"en": "Pareto", "ja": "パレート"},
    "fr.col.vs_best": {"en": "Against the best", "ja": "最良との比較"},
    "fr.col.p": {"en": "p (Holm)", "ja": "p（Holm）"},
    "fr.col.index_cost": {"en": "Indexing cost (estimate)", "ja": "索引作成の費用（見積もり）"},
    "fr.col.paid": {"en": "Paid by this run (actual)", "ja": "この実行の支払い（実績）"},
    "fr.col.latency_kind": {"en": "Latency measured as", "ja": "遅延の測り方"},
    "fr.vs.best": {"en": "best", "ja": "最良"},
    "fr.vs.same": {"en": "no detectable difference", "ja": "差は検出されず"},
    "fr.vs.worse": {"en": "worse", "ja": "低い"},
    "fr.opened": {"en": "Opening {name} on Results…", "ja": "{name} を Results で開きます…"},
    "fr.notes": {"en": "Notes", "ja": "注記"},
    # the sweep form
    "fr.sweep_title": {"en": "Sweep dimensions and precision of a dense run (no API cost)",
                       "ja": "密ベクトル検索の次元と精度をスイープ（API 費用なし）"},
    "fr.sweep_intro": {
        "en": "The run's vectors come from the embeddings cache; each setting is scored from "
              "them and saved as a run of its own. Truncation is valid for models trained for "
              "it (the price catalog's truncatable column).",
        "ja": "実行のベクトルは埋め込みキャッシュから読み、設定ごとに採点して別の実行として"
              "保存します。次元の切り詰めは、それに対応して学習されたモデルでのみ有効です"
              "（価格表の truncatable 列）。"},
    "fr.sweep_none": {"en": "No dense run (an embedding model) of this dataset is saved yet.",
                      "ja": "このデータセットの密ベクトル検索（埋め込みモデル）の実行がまだ"
                            "保存されていません。"},
    "fr.sweep_run": {"en": "Dense run", "ja": "密ベクトル検索の実行"},
    "fr.sweep_dims": {"en": "Dimensions", "ja": "次元"},
    "fr.sweep_full": {"en": "full", "ja": "元の次元"},
    "fr.sweep_precision": {"en": "Precision", "ja": "精度"},
    "fr.sweep_uncached": {
        "en": "{n} texts of this run are not in the embeddings cache (it was cleared, or the "
              "run was made elsewhere): the sweep would embed them first, and that is paid.",
        "ja": "この実行のテキストのうち {n} 件が埋め込みキャッシュにありません（消去されたか、"
              "別の場所で作られた実行です）。スイープはまずそれらを埋め込み、その分は課金されます。"},
    "fr.sweep_pay": {"en": "Embed them (paid) and sweep", "ja": "埋め込んで（有料）スイープする"},
    "fr.sweep_start": {"en": "Sweep", "ja": "スイープ"},
    "fr.sweep_working": {"en": "Scoring {n} settings from cached vectors…",
                         "ja": "キャッシュ済みのベクトルから {n} 通りの設定を採点しています…"},
    "fr.sweep_done": {"en": "Saved {n} runs; the sweep sent {requests} requests.",
                      "ja": "{n} 件の実行を保存しました。スイープのリクエストは {requests} 件"
                            "でした。"},
    "fr.sweep_key": {"en": "This run's server needs the API key: type it on the Run page "
                           "(kept in memory only). Cached vectors are read without a request.",
                     "ja": "この実行のサーバーには API キーが必要です。Run ページで入力してください"
                           "（メモリ内にのみ保持）。キャッシュ済みのベクトルはリクエストなしで読みます。"},
    "fr.sweep_need": {"en": "Choose at least one dimension and one precision.",
                      "ja": "次元と精度をそれぞれ1つ以上選んでください。"},
    # the latency probe
    "fr.probe_title": {"en": "Measure the embedding endpoint's latency",
                       "ja": "埋め込みエンドポイントの遅延を測る"},
    "fr.probe_intro": {
        "en": "Sends {n} single-query requests to {url}, spaced over about {seconds} s, and "
              "keeps p50 and p95 with the run. Cost first: {tokens} tokens, {cost}.",
        "ja": "{url} に1クエリずつ {n} 回、約 {seconds} 秒かけて送り、p50 と p95 を実行と一緒に"
              "保存します。先に費用：{tokens} トークン、{cost}。"},
    "fr.probe_start": {"en": "Measure ({n} requests)", "ja": "測る（{n} リクエスト）"},
    "fr.probe_done": {"en": "p50 {p50} ms, p95 {p95} ms over {n} requests ({date}).",
                      "ja": "{n} リクエストで p50 {p50} ms、p95 {p95} ms（{date}）。"},
    "fr.rprobe_title": {"en": "Measure the rerank endpoint's latency",
                        "ja": "リランクのエンドポイントの遅延を測る"},
    "fr.rprobe_run": {"en": "Run with a rerank stage", "ja": "リランク段のある実行"},
    "fr.rprobe_intro": {
        "en": "Sends {n} requests to {url}, each one query with its {depth} documents, spaced "
              "over about {seconds} s; p50 and p95 are kept with the run. Cost first: about "
              "{units}, {cost}.",
        "ja": "{url} に {n} 回、1クエリとその {depth} 件の文書ずつ、約 {seconds} 秒かけて送り、"
              "p50 と p95 を実行と一緒に保存します。先に費用：約 {units}、{cost}。"},
    "fr.probe_local": {"en": "A local model: its latency is the search time measured in the run.",
                       "ja": "ローカルモデルです。遅延は実行中に測った検索時間を使います。"},
    # messages of the core (ids used with ragdash.i18n.text / error; English as before)
    "msg.frontier.projected": {
        "en": "memory projected from {vectors} to {n} vectors",
        "ja": "メモリは {vectors} ベクトルから {n} ベクトルに換算した推計です"},
    "msg.frontier.no_rerank_price": {
        "en": "no rerank price for {model}: its cost per 1,000 queries is not known",
        "ja": "{model} のリランク価格がないため、1,000クエリあたりの費用はわかりません"},
    "msg.frontier.no_price": {
        "en": "no price for {model} in the catalog: add it on the Cost page to see its costs",
        "ja": "価格表に {model} の価格がありません。費用を見るには Cost ページで追加してください"},
    "msg.frontier.ids_only": {
        "en": "{dataset} has no texts here (ids only): load the dataset itself to price its "
              "indexing and queries",
        "ja": "{dataset} はここでは ID だけでテキストがありません。索引作成とクエリの費用を出すには"
              "データセットそのものを読み込んでください"},
    "msg.sweep.skipped_dims": {
        "en": "skipped {dims} dimensions: {model} gives {full}",
        "ja": "{dims} 次元は飛ばしました：{model} のベクトルは {full} 次元です"},
    "msg.sweep.not_truncatable": {
        "en": "{model} is marked in the price catalog as not trained for truncation (column "
              "truncatable): its vectors cut to fewer dimensions may rank worse than a model "
              "trained for it would (its makers say whether it can be truncated; a truncatable "
              "column of yes in prices.user.csv under RAGDASH_HOME records it)",
        "ja": "{model} は価格表で次元の切り詰めに対応して学習されていないとされています"
              "（truncatable 列）。次元を減らしたベクトルは、対応したモデルより順位付けが悪く"
              "なるおそれがあります（切り詰められるかはモデルの提供元が示します。RAGDASH_HOME の"
              " prices.user.csv の truncatable 列に yes と書くと記録されます）"},
    "msg.sweep.unknown_truncatable": {
        "en": "{model} is not marked in the price catalog as trained for truncation (column "
              "truncatable): its vectors cut to fewer dimensions may rank worse than a model "
              "trained for it would (its makers say whether it can be truncated; a truncatable "
              "column of yes in prices.user.csv under RAGDASH_HOME records it)",
        "ja": "{model} は価格表で次元の切り詰めに対応して学習されたとはされていません"
              "（truncatable 列）。次元を減らしたベクトルは、対応したモデルより順位付けが悪く"
              "なるおそれがあります（切り詰められるかはモデルの提供元が示します。RAGDASH_HOME の"
              " prices.user.csv の truncatable 列に yes と書くと記録されます）"},
    "msg.probe.no_texts": {
        "en": "this run's queries have no text to send (an ids-only dataset): load the dataset "
              "with its texts to probe the endpoint",
        "ja": "この実行のクエリには送るテキストがありません（ID だけのデータセットです）。"
              "エンドポイントを測るには、テキスト付きのデータセットを読み込んでください"},
    # the report's section
    "report.frontier": {"en": "Quality against cost", "ja": "品質と費用"},
}

#: the catalog key of each x axis's noun and axis title
NOUN_KEYS = {a: f"fr.noun.{a}" for a in ("index-cost", "query-cost", "memory", "latency")}
AXIS_KEYS = {a: f"fr.axis.{a}" for a in ("index-cost", "query-cost", "memory", "latency")}
