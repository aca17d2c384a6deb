"""AppTest: the Run page's pipeline cost table — a stage with no price makes the total
unknown. Before, the total read "$0 / ¥0" beside a stage "not in the price catalog"."""

from __future__ import annotations

from app_support import custom_server, new_app, open_sample
from fake_openai import FakeOpenAI

from ragdash.i18n import t


def _cost_rows(at):
    for d in at.table:
        if d.value.index.name == "Stage":
            return {stage: row for stage, row in d.value.iterrows()}
    raise AssertionError("no cost table")


def test_an_unpriced_stage_makes_the_pipeline_total_unknown():
    with FakeOpenAI(dim=16) as emb:
        at = custom_server(open_sample(new_app()), emb.url, model="mystery-embed")
        at.number_input(key="w:rd_query_limit").set_value(20).run()
        assert not at.exception
        rows = _cost_rows(at)
        assert rows["mystery-embed"]["USD"] == t("pipe.cost_unpriced", "en")
        assert rows["Total"]["USD"] == t("pipe.cost_total_unknown", "en")
        assert rows["Total"]["JPY"] == t("pipe.cost_total_unknown", "en")
        # a priced model: the total is the sum again
        at.text_input(key="w:rd_model").set_value("text-embedding-3-small").run()
        rows = _cost_rows(at)
        assert rows["Total"]["USD"].startswith("$") and rows["Total"]["USD"] != "$0"
