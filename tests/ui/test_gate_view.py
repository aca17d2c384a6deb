"""AppTest: the Compare page's regression gate says what ``ragdash check`` decides for run A
as the baseline and run B as the candidate, follows the margin and the rule, and gives the
Markdown for a pull request."""

from __future__ import annotations

from app_support import new_app, open_page, plain, save_bm25_run

from ragdash.gate import Side, check
from ragdash.runs import get_store
from ragdash.ui import keys
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


def _answering(run, name: str, queries) -> str:
    """``run``'s ranking for ``queries`` only, saved as another run (a TREC import)."""
    from ragdash.ranking import Ranking
    from ragdash.run import Run

    kept = [q for q in run.ranking.query_ids if q in set(queries)]
    ranking = Ranking.from_dict({q: dict(zip(*run.ranking.get(q))) for q in kept}, name=name)
    return get_store().save(Run.of_ranking(run.dataset, ranking, name=name, retriever="trec",
                                           source="trec", config={"retriever": "trec"}))


def test_a_candidate_that_leaves_queries_out_fails_the_page_gate(sample):
    """Issue 31: a candidate answering 3 of 280 queries, or all but the 22 hardest, passed.
    A judged query it does not answer scores 0 for it, and the page says how many."""
    import numpy as np

    a = save_bm25_run(sample, name="bm25")
    base = get_store().load(a)
    scores = base.table().value("ndcg@10")
    hardest = {base.table().query_ids[i] for i in np.argsort(scores, kind="stable")[:22]}
    for name, queries, left_out in (
            ("three", base.ranking.query_ids[:3], 277),
            ("easy", set(base.ranking.query_ids) - hardest, 22)):
        b = _answering(base, name, queries)
        at = open_page(new_app(run=a), "compare")
        at.session_state[keys.COMPARE_IDS] = [a, b]
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        errors = [plain(e.value) for e in at.error]
        assert any(e.startswith(f"FAIL: {name} is worse than bm25") for e in errors), errors
        warnings = [plain(w.value) for w in at.warning]
        said = (f"{name} does not answer {left_out} of the 280 judged queries the baseline "
                "answers; they score 0 for it (as trec_eval -c).")
        assert said in warnings, warnings
        markdown = [c.value for c in at.code if "Retrieval gate" in c.value]
        assert markdown and "Retrieval gate failed" in markdown[0] and said in markdown[0]
        get_store().delete(b)
