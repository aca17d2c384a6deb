"""docs/setup-file.md is generated from the declarations and current; every declared key is in
it; its examples are setup files that load."""

from __future__ import annotations

import re

from paths import ROOT

from ragdash import params as P
from ragdash.setup import parse_setup
from ragdash.setup.reference import main, reference

PAGE = ROOT / "docs" / "setup-file.md"


def test_the_reference_page_is_current():
    assert PAGE.read_text(encoding="utf-8") == reference(), (
        "docs/setup-file.md is not current: run python -m ragdash.setup.reference")
    assert main([str(PAGE), "--check"]) == 0


def test_the_check_fails_on_a_stale_page(tmp_path, capsys):
    stale = tmp_path / "setup-file.md"
    stale.write_text(reference().replace("| `overlap` |", "| `overlapp` |"), encoding="utf-8")
    assert main([str(stale), "--check"]) == 1
    assert "not current" in capsys.readouterr().err
    assert main([str(stale)]) == 0 and main([str(stale), "--check"]) == 0


def test_every_declared_key_is_in_the_reference_with_its_default_and_range():
    page = reference()
    stages = [P.EVALUATION, P.BM25, P.OPENAI, P.LOCAL, P.ENGINE, P.CHUNKING, P.FUSION,
              P.RERANK_HTTP, P.RERANK_LOCAL]
    for stage in stages:
        for p in stage:
            rows = [r for r in page.splitlines() if r.startswith(f"| `{p.name}` |")]
            assert rows, (stage.name, p.name)
            if p.default is not None and not isinstance(p.default, list):
                shown = f'"{p.default}"' if isinstance(p.default, str) else f"{p.default:g}"
                assert any(f"`{shown}`" in r for r in rows), (stage.name, p.name)
            if p.high is not None:
                assert any(f"{p.high:g}" in r for r in rows), (stage.name, p.name)
            for choice in p.choices:
                assert any(f"`{choice}`" in r for r in rows), (stage.name, p.name, choice)


def test_the_examples_in_the_page_are_setup_files():
    blocks = re.findall(r"```toml\n(.*?)```", reference(), re.S)
    assert len(blocks) >= 2
    for block in blocks:
        setup = parse_setup(block, file="example.toml")
        assert setup.dataset
