"""Regenerate the bundled "jsquad-mini" sample from the shared jsquad-valid BEIR folder.

    python scripts/make_jsquad_mini.py [SOURCE] [DEST]

SOURCE defaults to $RAGDASH_JSQUAD, else the repository's copy tests/data/jsquad-valid, DEST
to ragdash/data/samples/jsquad-mini. The slice is deterministic (no randomness):

1. Articles are the document-id prefixes before "p" ("a12p3" is paragraph 3 of article a12).
   Walking the corpus in file order, every article of at most MAX_PARAGRAPHS paragraphs is
   taken whole, until the slice holds at least TARGET_DOCS documents. Whole articles keep the
   hard negatives (other paragraphs of the same article) that make retrieval non-trivial.
2. A query is eligible when all its judged documents are in the slice (JSQuAD's judgements
   never cross articles, so that is every query of a chosen article).
3. Every STEP-th eligible query in file order is kept, STEP chosen so about TARGET_QUERIES
   remain.

The README and LICENSE notice next to the data are written too.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragdash.dataset import Dataset  # noqa: E402
from ragdash.loaders import load_dataset, write_beir  # noqa: E402

TARGET_DOCS = 250
MAX_PARAGRAPHS = 60
TARGET_QUERIES = 300

README = """\
# jsquad-mini

A small slice of JSQuAD's validation set in BEIR layout (`corpus.jsonl`, `queries.jsonl`,
`qrels/test.tsv`), bundled with ragdash so the app and the command line have real Japanese data
on a fresh install.

- {docs} documents: every paragraph of {articles} Japanese Wikipedia articles
  (ids `a<article>p<paragraph>`, title = article title).
- {queries} questions, each with its judged paragraphs: grade 2 for the paragraph the question
  was written on, grade 1 for another paragraph of the same article that contains one of the
  question's answers (of four or more characters).
- Sliced deterministically from a BEIR conversion of JSQuAD v1.3's validation split
  (1,145 paragraphs, 4,442 questions; `tests/data/jsquad-valid`) by
  `scripts/make_jsquad_mini.py`, which documents the rule.

## Source and license

JSQuAD is part of JGLUE (Japanese General Language Understanding Evaluation), built by
Yahoo Japan Corporation and the Kawahara Lab at Waseda University:
https://github.com/yahoojapan/JGLUE

> Kentaro Kurihara, Daisuke Kawahara, Tomohide Shibata. JGLUE: Japanese General Language
> Understanding Evaluation. Proceedings of LREC 2022, pages 2957-2966.

The paragraphs are taken from Japanese Wikipedia (https://ja.wikipedia.org/). JGLUE is
distributed under the Creative Commons Attribution-ShareAlike 4.0 International license
(CC BY-SA 4.0); this slice is a modified (sliced and reformatted) version and is distributed
under the same license. See LICENSE in this folder.
"""

LICENSE = """\
jsquad-mini: a slice of JSQuAD (JGLUE), derived from Japanese Wikipedia.

Copyright: JGLUE by Yahoo Japan Corporation and Waseda University; text from Japanese Wikipedia
contributors. Modified by the ragdash authors: a subset of the validation split, converted to
the BEIR layout (see README.md).

License: Creative Commons Attribution-ShareAlike 4.0 International (CC BY-SA 4.0)
https://creativecommons.org/licenses/by-sa/4.0/

You may share and adapt this material for any purpose, provided you give appropriate credit,
indicate if changes were made, and distribute your contributions under the same license.
"""


def default_source() -> Path:
    env = os.environ.get("RAGDASH_JSQUAD")
    return Path(env) if env else ROOT / "tests" / "data" / "jsquad-valid"


def article_of(doc_id: str) -> str:
    return doc_id.split("p", 1)[0]


def make_slice(full: Dataset) -> Dataset:
    paragraphs: dict[str, int] = {}
    for d in full.documents:
        a = article_of(d.id)
        paragraphs[a] = paragraphs.get(a, 0) + 1
    articles: list[str] = []
    total = 0
    for a, n in paragraphs.items():
        if total >= TARGET_DOCS:
            break
        if n <= MAX_PARAGRAPHS:
            articles.append(a)
            total += n
    chosen = set(articles)
    documents = [d for d in full.documents if article_of(d.id) in chosen]
    doc_ids = {d.id for d in documents}
    eligible = [q for q in full.queries
                if q.id in full.qrels and full.qrels[q.id]
                and all(did in doc_ids for did in full.qrels[q.id])]
    step = max(1, math.ceil(len(eligible) / TARGET_QUERIES))
    queries = eligible[::step]
    qrels = {q.id: dict(full.qrels[q.id]) for q in queries}
    return Dataset(documents, queries, qrels, name="jsquad-mini",
                   notes=[f"{len(articles)} articles"])


def main(argv: list[str]) -> int:
    src = Path(argv[1]) if len(argv) > 1 else default_source()
    dest = Path(argv[2]) if len(argv) > 2 else ROOT / "ragdash" / "data" / "samples" / "jsquad-mini"
    mini = make_slice(load_dataset(src))
    write_beir(mini, dest)
    articles = len({article_of(d.id) for d in mini.documents})
    (dest / "README.md").write_text(README.format(docs=len(mini.documents), articles=articles,
                                                  queries=len(mini.queries)), encoding="utf-8")
    (dest / "LICENSE").write_text(LICENSE, encoding="utf-8")
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    print(f"{dest}: {len(mini.documents)} documents from {articles} articles, "
          f"{len(mini.queries)} queries, {sum(map(len, mini.qrels.values()))} judgements, "
          f"{size / 1024:.0f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
