"""The original article's sample dataset, shared by the loader and sample tests."""

# The article's generate_sample_dataset(), as the article writes it (int keys).
ARTICLE = {
    "corpus": ["機械学習は人工智能の一分野です", "自然言語処理はテキストデータを扱う技術です",
               "ベクトルデータベースはEmbeddingを保存します",
               "RAGはRetrieval-Augmented Generationの略です",
               "TransformerはAttention機構を使用したモデルです",
               "Fine-tuningは事前学習済みモデルを微調整する方法です",
               "Embeddingはテキストをベクトル表現に変換することです",
               "HolySheep AIはapi.holysheep.aiを通じてAPIを提供します",
               "DeepSeek V3.2は$0.42/MTokという低コストモデルです",
               "ClaudeはAnthropic社の安全性重視AIです"],
    "queries": [
        {"query": "Embeddingとは何か？", "relevant_docs": [1, 6],
         "relevance_scores": {1: 0.9, 6: 1.0}},
        {"query": "RAGシステムの構築方法", "relevant_docs": [0, 2, 3],
         "relevance_scores": {0: 0.7, 2: 0.8, 3: 1.0}},
        {"query": "低コストなAIモデル", "relevant_docs": [7, 8],
         "relevance_scores": {7: 0.8, 8: 1.0}},
    ],
}
ARTICLE_QRELS = {"q0": {"1": 0.9, "6": 1.0}, "q1": {"0": 0.7, "2": 0.8, "3": 1.0},
                 "q2": {"7": 0.8, "8": 1.0}}
