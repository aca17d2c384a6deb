"""AppTest: the Compare page's regression gate says what ``ragdash check`` decides for run A
as the baseline and run B as the candidate, follows the margin and the rule, and gives the
Markdown for a pull request."""

from __future__ import annotations

from app_support import new_app, open_page, plain, save_bm25_run

from ragdash.gate import Side, check
from ragdash.runs import get_store
from ragdash.ui.gate import PAGE_RESAMPLES


def test_the_gate_on_the_compare_page_is_the_command_lines_decision(sample):
    a = save_bm25_run(sample, name="bm25 default")
    b = save_bm25_run(sample, name="bm25 k1=0.5 b=0.3", k1=0.5, b=0.3)
    at = open_page(new_app(run=a), "compare")
    assert not at.exception
    store = get_store()
    ra, rb = store.load(a), store.load(b)
    expected = check(sample.qrels, Side("bm25 default", ra.ranking, ra),
                     Side("bm25 k1=0.5 b=0.3", rb.ranking, rb), metrics=["ndcg@10"],
                     n_resamples=PAGE_RESAMPLES, n_permutations=PAGE_RESAMPLES)
    said = [plain(e.value) for e in (*at.success, *at.error)]
    assert expected.sentence("en") in said, said
    boxes = at.success if expected.passed else at.error
    assert any("bm25 k1=0.5 b=0.3" in plain(e.value) for e in boxes)
    markdown = [c.value for c in at.code if "Retrieval gate" in c.value]
    assert len(markdown) == 1 and "| nDCG@10 |" in markdown[0]

    # a margin of 1 cannot fail the not-worse rule
    at.number_input(key="cmp_gate_margin").set_value(1.0).run()
    assert not at.exception
    assert any("PASS" in plain(e.value) for e in at.success)
    # non-inferiority within 1.0 is shown on 280 queries
    at.radio(key="cmp_gate_rule").set_value("non-inferior").run()
    assert any("shown to be no worse" in plain(e.value) for e in at.success)
