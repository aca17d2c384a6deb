"""Strings of the Run page's vector-engine section (ragdash/ui/engine_form.py). See
ragdash.i18n. Keys start with ``eng.``."""

MESSAGES: dict[str, dict[str, str]] = {
    "eng.where": {"en": "Search", "ja": "検索方法"},
    "eng.where_exact": {"en": "ragdash's exact search", "ja": "ragdash の完全検索"},
    "eng.where_engine": {"en": "an existing index", "ja": "既存のインデックス"},
    "eng.where_ann": {"en": "test ANN settings", "ja": "ANN 設定を試す"},
    "eng.where_help": {
        "en": "An existing index: a Milvus or Qdrant collection you already serve from; "
              "ragdash embeds the queries with the model above and scores what the engine "
              "returns. Test ANN settings: the documents' vectors (cached) go into a new "
              "collection with the index you pick, and the run is the engine's answer; its "
              "ANN recall against exact search is saved with it.",
        "ja": "既存のインデックス: 運用中の Milvus / Qdrant コレクション。クエリを上のモデルで"
              "埋め込み、エンジンの結果を評価します。ANN 設定を試す: 文書ベクトル（キャッシュ済み）"
              "を選んだインデックスで新しいコレクションに入れ、エンジンの結果を実行結果にします。"
              "完全検索に対する ANN 再現率も保存されます。",
    },
    "eng.engine": {"en": "Engine", "ja": "エンジン"},
    "eng.uri": {"en": "URI", "ja": "URI"},
    "eng.uri_help": {
        "en": "Milvus: a local .db file (Milvus Lite) or http://host:19530. Qdrant: a local "
              "folder, :memory: or http://host:6333.",
        "ja": "Milvus: ローカルの .db ファイル（Milvus Lite）または http://host:19530。"
              "Qdrant: ローカルフォルダ、:memory: または http://host:6333。",
    },
    "eng.token": {"en": "Engine token / API key (optional)",
                  "ja": "エンジンのトークン / API キー（任意）"},
    "eng.collection": {"en": "Collection", "ja": "コレクション"},
    "eng.collection_new": {"en": "Collection to create (optional)",
                           "ja": "作成するコレクション（任意）"},
    "eng.id_field": {"en": "Field holding the document id", "ja": "文書 ID のフィールド"},
    "eng.vector_field": {"en": "Vector field (optional)", "ja": "ベクトルフィールド（任意）"},
    "eng.filter": {"en": "Filter (optional)", "ja": "フィルタ（任意）"},
    "eng.filter_help": {
        "en": "A Milvus boolean expression (lang == \"ja\"), or field=value[,field=value] "
              "for Qdrant.",
        "ja": "Milvus のブール式（lang == \"ja\"）、Qdrant では field=value[,field=value]。",
    },
    "eng.index": {"en": "Index", "ja": "インデックス"},
    "eng.recall_k": {"en": "ANN recall at K", "ja": "ANN 再現率の K"},
    "eng.need_collection": {"en": "Name the collection to evaluate.",
                            "ja": "評価するコレクション名を入力してください。"},
    "eng.need_id_field": {
        "en": "Name the field that holds the dataset's document id.",
        "ja": "データセットの文書 ID を持つフィールド名を入力してください。"},
    "eng.need_uri": {"en": "Give the engine's URI.", "ja": "エンジンの URI を入力してください。"},
    "eng.no_dense": {
        "en": "Pick an embeddings retriever (OpenAI-compatible or local) first: the engine "
              "holds vectors of an embedding model.",
        "ja": "先に埋め込みの検索器（OpenAI 互換またはローカル）を選んでください。",
    },
    "eng.ann_done": {
        "en": "ANN recall@{k} against exact search: **{recall}** · latency p50 {p50} ms, "
              "p95 {p95} ms · index memory {mib} MiB ({source})",
        "ja": "完全検索に対する ANN 再現率@{k}: **{recall}** · レイテンシ p50 {p50} ms、"
              "p95 {p95} ms · インデックスのメモリ {mib} MiB（{source}）",
    },
}
