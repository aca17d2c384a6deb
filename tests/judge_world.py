"""A small judging world for the judge's tests and benchmark: JSQuAD queries with FULL labels,
human qrels that know only part of them, runs of three qualities, and a chat server that finds
the query and the document in each prompt and answers from the full labels with a known error
rate (and with faults on chosen pairs).

    world = make_world(queries=24, depth=5)
    world.write(tmp_path)                      # dataset folder (BEIR) and the runs' TREC files
    oracle = LabelOracle(world, error_rate=0.1)
    with FakeChat(answer=oracle) as server: ...
    oracle.answered[(qid, doc)]                # the grade the server said for that pair

The server's answer: the full label's grade (2 for the paragraph the question was written on,
1 for another paragraph with its answer, 0 for any other), changed to (grade + 1) mod 4 for a
fixed share of pairs (a hash of the pair picks them, so reruns agree).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from paths import JSQUAD

from ragdash.dataset import Dataset
from ragdash.loaders import load_dataset
from ragdash.ranking import Ranking

_FULL = None


def _jsquad() -> Dataset:
    global _FULL
    if _FULL is None:
        _FULL = load_dataset(JSQUAD)
    return _FULL


@dataclass
class World:
    dataset: Dataset                    #: documents, the chosen queries, the HUMAN qrels
    truth: dict                         #: full labels: query -> doc -> grade (absent: 0)
    runs: dict[str, Ranking]            #: name -> ranking
    depth: int
    paths: dict = field(default_factory=dict)

    def grade(self, q: str, d: str) -> int:
        return int(self.truth.get(q, {}).get(d, 0))

    def write(self, folder: Path) -> dict:
        """The dataset as a BEIR folder and each run as a TREC file under ``folder``."""
        ds = self.dataset
        data = folder / "data"
        (data / "qrels").mkdir(parents=True)
        with open(data / "corpus.jsonl", "w", encoding="utf-8") as f:
            for d in ds.documents:
                f.write(json.dumps({"_id": d.id, "title": d.title, "text": d.text},
                                   ensure_ascii=False) + "\n")
        with open(data / "queries.jsonl", "w", encoding="utf-8") as f:
            for q in ds.queries:
                f.write(json.dumps({"_id": q.id, "text": q.text}, ensure_ascii=False) + "\n")
        with open(data / "qrels" / "test.tsv", "w", encoding="utf-8") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            for q, docs in ds.qrels.items():
                for d, g in docs.items():
                    f.write(f"{q}\t{d}\t{int(g)}\n")
        self.paths = {"dataset": data}
        for name, ranking in self.runs.items():
            path = folder / f"{name}.run"
            ranking.write_trec(path, tag=name)
            self.paths[name] = path
        return self.paths


def make_world(queries: int = 24, depth: int = 5, *, seed: int = 0) -> World:
    """``queries`` JSQuAD queries; runs ``good`` (the relevant paragraphs first), ``fair``
    (mixed) and ``poor`` (mostly other paragraphs); human qrels = a random half of the
    relevant labels plus grade-0 labels for a third of the pooled non-relevant pairs."""
    full = _jsquad()
    rng = np.random.default_rng(seed)
    chosen: list = []
    for q in full.queries:  # no query text inside another's: the server finds each by text
        if q.id in full.qrels and not any(q.text in c.text or c.text in q.text
                                          for c in chosen):
            chosen.append(q)
            if len(chosen) == queries:
                break
    truth = {q.id: dict(full.qrels[q.id]) for q in chosen}
    doc_ids = np.array(full.doc_ids, dtype=object)
    runs = {}
    for name, share in (("good", 1.0), ("fair", 0.5), ("poor", 0.15)):
        run: dict[str, dict[str, float]] = {}
        for q in chosen:
            relevant = sorted(truth[q.id], key=lambda d: -truth[q.id][d])
            keep = [d for d in relevant if rng.random() < share]
            others = [d for d in rng.choice(doc_ids, depth * 2, replace=False).tolist()
                      if d not in truth[q.id]]
            ranked = (keep + others)[: depth * 2]
            run[q.id] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
        runs[name] = Ranking.from_dict(run, name=name)
    human: dict[str, dict[str, float]] = {}
    for q in chosen:
        for d, g in truth[q.id].items():
            if rng.random() < 0.5:
                human.setdefault(q.id, {})[d] = g
    pooled = {(q, d) for r in runs.values() for q, docs, _ in r.truncate(depth).items()
              for d in docs}
    for q, d in sorted(pooled):
        if d not in truth[q] and rng.random() < 1 / 3:
            human.setdefault(q, {})[d] = 0.0
    ds = Dataset(list(full.documents), list(chosen), human, name="jsquad-judge")
    return World(ds, truth, runs, depth)


def _pair_hash(q: str, d: str) -> float:
    h = hashlib.sha256(f"{q}\t{d}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


class LabelOracle:
    """The server's ``answer``: find the query and the document in the prompt, answer the
    full label in UMBRELA's form, wrong for ``error_rate`` of the pairs; ``faults`` maps a
    pair to a reply shape (a dict FakeChat understands) given instead, ``times`` times."""

    def __init__(self, world: World, *, error_rate: float = 0.1) -> None:
        self.world = world
        self.error_rate = error_rate
        self.queries = {q.text: q.id for q in world.dataset.queries}
        self.docs = [(d.text[:60], d.id) for d in world.dataset.documents if d.text]
        self.answered: dict[tuple[str, str], int] = {}
        self.asked: dict[tuple[str, str], int] = {}
        self.faults: dict[tuple[str, str], list] = {}
        self._lock = threading.Lock()

    def find(self, prompt: str) -> tuple[str, str]:
        qs = [qid for text, qid in self.queries.items() if text in prompt]
        ds = [did for head, did in self.docs if head in prompt]
        assert len(qs) == 1 and len(ds) >= 1, (qs, ds)
        if len(ds) > 1:  # a paragraph that opens another's text: take the longest match
            full = {d.id: d for d in self.world.dataset.documents}
            ds.sort(key=lambda d: -len(full[d].text) if full[d].text in prompt else 0)
        return qs[0], ds[0]

    def grade(self, q: str, d: str) -> int:
        g = self.world.grade(q, d)
        return (g + 1) % 4 if _pair_hash(q, d) < self.error_rate else g

    def fault(self, pair: tuple[str, str], shape: dict, times: int = 99) -> None:
        self.faults[pair] = [shape, times]

    def __call__(self, body: dict):
        prompt = body["messages"][-1]["content"]
        pair = self.find(prompt)
        with self._lock:
            self.asked[pair] = self.asked.get(pair, 0) + 1
            shaped = self.faults.get(pair)
            if shaped and shaped[1] > 0:
                shaped[1] -= 1
                return dict(shaped[0])
            g = self.grade(*pair)
            self.answered[pair] = g
        return f"M: 2\nT: 2\n##final score: {g}"
