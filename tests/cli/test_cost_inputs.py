"""``python -m ragdash cost`` with hand-edited or mistyped figures: a rate saved as text, a
rate or price far outside any real range — one line each, exit 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from paths import ROOT

from ragdash.cli import main

ARTICLE = ROOT / "ragdash" / "data" / "samples" / "article_ja.json"
COST = ["cost", str(ARTICLE), "--model", "text-embedding-3-small"]


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("value, said", [
    ("155", 'jpy_per_usd is "155", not a number'),
    (True, "jpy_per_usd is true, not a number"),
    (1e30, "exchange rate 1e+30 is outside 0.01–10,000 yen per dollar"),
])
def test_a_hand_edited_rate_in_cost_settings_is_one_sentence(capsys, home: Path, value, said):
    home.mkdir(parents=True)
    (home / "cost_settings.json").write_text(json.dumps({"jpy_per_usd": value}))
    assert main(COST) == 2
    err = one_error_line(capsys)
    assert "cost_settings.json" in err and said in err
    assert 'Write the rate as a number' in err or "Fix or delete the file" in err


def test_a_rate_given_on_the_command_line_is_bounded(capsys):
    assert main([*COST, "--jpy-per-usd", "1e30"]) == 2
    assert "outside 0.01–10,000 yen per dollar" in one_error_line(capsys)
    assert main([*COST, "--jpy-per-usd", "150", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["jpy_per_usd"] == 150.0


@pytest.mark.parametrize("cells, said", [
    ("1e308,,", "usd_per_1m is 1e308, more than $10,000"),
    ("0.02,,1e30", "jpy_per_usd is 1e30, outside 0.01–10,000 yen per dollar"),
])
def test_absurd_figures_in_the_user_price_file_name_the_line(capsys, home: Path, cells, said):
    home.mkdir(parents=True)
    (home / "prices.user.csv").write_text(
        "provider,model,usd_per_1m,batch_usd_per_1m,jpy_per_usd\n"
        f"OpenAI,text-embedding-3-small,{cells}\n")
    assert main(COST) == 2
    err = one_error_line(capsys)
    assert "prices.user.csv, line 2" in err and said in err
