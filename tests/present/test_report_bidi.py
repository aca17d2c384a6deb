"""A run name or query text holding U+202E (RIGHT-TO-LEFT OVERRIDE) cannot reverse the HTML
report's own words: wherever such text sits inline, it is a directional isolate (FSI … PDI,
or an element with ``unicode-bidi: isolate``), checked on the parsed page."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np

from ragdash.dataset import Dataset, Document, Query
from ragdash.present.report import build_report, stylesheet
from ragdash.ranking import Ranking
from ragdash.run import Run

RLO = "\u202e"
OVERRIDES = set("\u202a\u202b\u202d\u202e")
INITIATORS, PDI = set("\u2066\u2067\u2068"), "\u2069"
#: elements the report's stylesheet isolates (and those whose text is not shown)
ISOLATING = {"bdi", "td", "th", "dd", "dt", "script", "style", "title"}


class Overrides(HTMLParser):
    """Every override character of the page's text that is not inside an isolate."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.loose: list[str] = []
        self.seen = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("meta", "br", "img", "link", "input", "hr"):
            return
        classes = dict(attrs).get("class") or ""
        self.stack.append((tag, tag in ISOLATING or "mono" in classes.split()))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        isolated = any(iso for _, iso in self.stack)
        depth = 0
        for i, ch in enumerate(data):
            if ch in INITIATORS:
                depth += 1
            elif ch == PDI:
                depth = max(0, depth - 1)
            elif ch in OVERRIDES:
                self.seen += 1
                if not depth and not isolated:
                    self.loose.append(data[max(0, i - 30): i + 30])


def test_a_right_to_left_override_in_a_name_stays_inside_it():
    rng = np.random.default_rng(3)
    docs = [Document(f"d{i}", f"text {i}") for i in range(20)]
    queries = [Query(f"q{i}", f"question {i}") for i in range(12)]
    queries[1] = Query("q1", f"what is {RLO}this")
    qrels = {q.id: {f"d{int(j)}": 1.0 for j in rng.choice(20, 2, replace=False)}
             for q in queries}
    ds = Dataset(docs, queries, qrels, name=f"set{RLO}name")
    runs = [Run(dataset=ds, ranking=Ranking.from_dict(
                {q.id: {d.id: float(rng.random()) for d in docs} for q in queries}),
                query_ids=ds.query_ids, kmax=10, name=name, retriever="bm25")
            for name in (f"bm25{RLO}evil", "dense")]
    page = build_report(runs, dataset=ds, lang="en", n_resamples=50,
                        generated_at="2025-01-01 00:00 UTC")
    check = Overrides()
    check.feed(page)
    assert check.seen >= 5  # the name is in headings, sentences, tables and the drill-downs
    assert not check.loose, check.loose[:5]
    assert "unicode-bidi: isolate" in stylesheet()
