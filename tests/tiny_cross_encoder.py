"""A tiny BERT cross-encoder with random weights and a tokenizer from a small vocabulary,
built and saved by the test itself (no download): a fixture for the rerank and pipeline tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "本", "文", "質", "問", "text",
             "query", "について", "t", *[str(i) for i in range(10)],
             *[f"##{i}" for i in range(10)]]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer(str(folder / "vocab.txt"))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32,
                        max_position_embeddings=64, num_labels=1)
    model = BertForSequenceClassification(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, model, tokenizer
