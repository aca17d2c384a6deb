"""``python -m ragdash judgments``: the stored sets of a dataset, and the export of human
labels filled from them as TREC qrels + sources sidecar (read back as they were)."""

from __future__ import annotations

import json

from paths import JSQUAD

from ragdash.cli import main
from ragdash.judgments import JudgmentSet, read_judgments
from ragdash.loaders import load_dataset
from ragdash.runs import get_store

SRC = "llm:m@umbrela-1"


def test_list_and_export(capsys, tmp_path):
    ds = load_dataset(JSQUAD)
    q = ds.evaluated_queries()[0].id
    human_doc = next(iter(ds.qrels[q]))
    new_doc = next(d.id for d in ds.documents if d.id not in ds.qrels[q])
    s = JudgmentSet(SRC)
    s.add(q, new_doc, 2, SRC, "2026-12-01")  # fills a gap
    s.add(q, human_doc, 0, SRC, "2026-12-01")  # refused: the human label stays
    get_store().save_judgments(ds.fingerprint(), s)

    assert main(["judgments", str(JSQUAD), "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(x["name"], x["labels"]) for x in listed["sets"]] == [(SRC, 2)]

    out = tmp_path / "labels.qrels"
    assert main(["judgments", str(JSQUAD), "--set", SRC, "--out", str(out),
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["filled"], report["refused"]) == (1, 1)
    back = read_judgments(out)
    assert back.get(q, new_doc).source == SRC and back.get(q, new_doc).date == "2026-12-01"
    assert back.get(q, human_doc).grade == ds.qrels[q][human_doc]
    assert back.get(q, human_doc).source == "qrels"
    assert len(back) == sum(map(len, ds.qrels.values())) + 1

    # an unknown set is one sentence naming the stored ones
    assert main(["judgments", str(JSQUAD), "--set", "nope", "--out", str(out)]) != 0
    assert f"no judgment set 'nope' is stored for this dataset (stored: {SRC})" in \
        capsys.readouterr().err
