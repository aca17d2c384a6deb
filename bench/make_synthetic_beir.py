"""A synthetic BEIR folder of N 60-word documents and Q queries, for the scale benchmarks.

    python bench/make_synthetic_beir.py /tmp/syn-100k --docs 100000 --queries 1000

Words are drawn from a Zipf-like vocabulary of 50,000 English-looking words (so term
frequencies look like text's); each query takes 6 words of one document (its relevant
document, grade 1) plus 2 random words. Seeded: the same arguments give the same files.
Written in blocks, so a million documents need little memory.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

LETTERS = np.array(list("etaoinshrdlucmfwypvbgkjqxz"))


def vocabulary(rng: np.random.Generator, n: int) -> np.ndarray:
    lengths = rng.integers(3, 10, size=n)
    chars = LETTERS[np.minimum(rng.geometric(0.18, size=lengths.sum()) - 1, 25)]
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    words = ["".join(chars[bounds[i]:bounds[i + 1]]) + str(i % 97) for i in range(n)]
    return np.array(words, dtype=object)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=1_000)
    ap.add_argument("--words", type=int, default=60)
    ap.add_argument("--vocab", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    vocab = vocabulary(rng, args.vocab)
    weights = 1.0 / np.arange(1, args.vocab + 1) ** 1.05
    weights /= weights.sum()
    out: Path = args.out
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    chosen = np.sort(rng.choice(args.docs, size=args.queries, replace=False))
    picked: dict[int, list[str]] = {}
    block = 20_000
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for lo in range(0, args.docs, block):
            n = min(block, args.docs - lo)
            words = vocab[rng.choice(args.vocab, size=(n, args.words), p=weights)]
            lines = []
            for i in range(n):
                doc = int(lo + i)
                lines.append(json.dumps({"_id": f"doc{doc}", "title": "",
                                         "text": " ".join(words[i])}) + "\n")
            f.writelines(lines)
            for doc in chosen[(chosen >= lo) & (chosen < lo + n)]:
                row = words[int(doc) - lo]
                picked[int(doc)] = list(rng.choice(row, size=6, replace=False))
    with open(out / "queries.jsonl", "w", encoding="utf-8") as fq, \
            open(out / "qrels" / "test.tsv", "w", encoding="utf-8") as fr:
        fr.write("query-id\tcorpus-id\tscore\n")
        for qi, doc in enumerate(chosen.tolist()):
            extra = list(vocab[rng.choice(args.vocab, size=2, p=weights)])
            fq.write(json.dumps({"_id": f"q{qi}", "text": " ".join(picked[doc] + extra)})
                     + "\n")
            fr.write(f"q{qi}\tdoc{doc}\t1\n")
    print(f"wrote {args.docs:,} documents and {args.queries:,} queries to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
