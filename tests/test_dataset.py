"""The dataset's fingerprint: the digest of its canonical form, fast at a million documents."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


# -- the fingerprint: batched hashing gives the digest of the canonical lines hashed one by one
def _fingerprint_line_by_line(ds):
    """The canonical form hashed a line at a time, as the fingerprint was first defined."""
    import hashlib
    import json

    h = hashlib.sha256()
    for d in ds.documents:
        h.update(json.dumps(["d", d.id, d.title, d.text], ensure_ascii=False).encode())
        h.update(b"\n")
    for q in ds.queries:
        h.update(json.dumps(["q", q.id, q.text], ensure_ascii=False).encode())
        h.update(b"\n")
    for qid in sorted(ds.qrels):
        for did in sorted(ds.qrels[qid]):
            h.update(json.dumps(["r", qid, did, float(ds.qrels[qid][did])]).encode())
            h.update(b"\n")
    return h.hexdigest()


_ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)


@given(st.lists(st.tuples(_ANY_TEXT, _ANY_TEXT, _ANY_TEXT), max_size=30),
       st.lists(st.tuples(_ANY_TEXT, _ANY_TEXT), max_size=10))
@settings(max_examples=300, deadline=None)
def test_fingerprint_is_the_canonical_lines_digest(docs, queries):
    from ragdash.dataset import Dataset, Document, Query

    ds = Dataset(documents=[Document(id=i, text=t, title=ti) for i, t, ti in docs],
                 queries=[Query(id=i, text=t) for i, t in queries],
                 qrels={q[0]: {d[0]: 1.0} for q, d in zip(queries, docs)})
    assert ds.fingerprint() == _fingerprint_line_by_line(ds)


def test_fingerprint_across_batches_and_odd_values(monkeypatch):
    import ragdash.dataset as dataset_module
    from ragdash.dataset import Dataset, Document, Query

    docs = [Document(id=f"d{i}", text=f"text \"{i}\"\n\t\\ é 東京 \x00 😀", title="T" * (i % 3))
            for i in range(25)]
    # a value that is not a string goes through json.dumps itself
    docs.append(Document(id="odd", text=None, title=""))  # type: ignore[arg-type]
    ds = Dataset(documents=docs, queries=[Query(id="q", text="東京")],
                 qrels={"q": {"d1": 2.0, "d0": 0.5}})
    monkeypatch.setattr(dataset_module, "_BATCH", 4)
    assert ds.fingerprint() == _fingerprint_line_by_line(ds)
    assert Dataset(documents=docs[:-1], queries=ds.queries,
                   qrels=ds.qrels).fingerprint() != ds.fingerprint()


@pytest.mark.parametrize("char", ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "\u2028", "é",
                                  "東", "😀"])
def test_fingerprint_with_one_character_json_may_escape(char):
    # the only such character of the whole batch, in an id, a title, a text, a query
    from ragdash.dataset import Dataset, Document, Query

    for where in range(4):
        values = ["d1", "title", "text", "query"]
        values[where] = f"a{char}b"
        ds = Dataset(documents=[Document(id=values[0], title=values[1], text=values[2]),
                                Document(id="d2", text="plain")],
                     queries=[Query(id="q1", text=values[3])], qrels={"q1": {"d2": 1.0}})
        assert ds.fingerprint() == _fingerprint_line_by_line(ds), (char, where)
