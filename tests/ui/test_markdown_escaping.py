"""Dataset strings shown through Markdown cannot become links, images or
HTML. ``md`` (escaped text) and ``code`` (an unbreakable code span) in ragdash/ui/widgets.py
are checked with a CommonMark parser (markdown-it-py) on hostile and random strings."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from ragdash.ui.widgets import code, md

PARSER = MarkdownIt("commonmark").enable(["strikethrough", "table"])

HOSTILE = [
    "qx` [l](https://example.org/t) ![i](https://example.org/t.png) `y",
    "![i](https://example.org/t.png)",
    "[l](javascript:alert(1))",
    "<img src=https://example.org/h.png>",
    "<https://example.org/auto>",
    "``a` ![i](//example.org/x.png) `b``",
    "\\`![i](https://example.org/esc.png)\\`",
    "[ref]: https://example.org/r.png\n![x][ref]",
    "*bold* _it_ ~~s~~ # h | t | $x$ :red[r] :material/home:",
    "x\n\n- [ ] ![i](https://example.org/list.png)",
    "`",
    "``",
    " ` ",
]


def inline_tokens(source: str):
    out = []
    for block in PARSER.parse(source):
        if block.type in ("html_block",):
            out.append(block)
        for child in block.children or []:
            out.append(child)
    return out


def unsafe(source: str) -> list[str]:
    """Token types that would make a link, an image or raw HTML out of ``source``."""
    return [t.type for t in inline_tokens(source)
            if t.type in ("link_open", "image", "html_inline", "html_block")]


def plain_text(source: str) -> str:
    return "".join(t.content for t in inline_tokens(source)
                   if t.type in ("text", "code_inline", "softbreak"))


@pytest.mark.parametrize("text", HOSTILE)
def test_md_and_code_make_no_link_image_or_html_of_hostile_strings(text):
    assert unsafe(md(text)) == []
    assert unsafe(code(text)) == []
    assert unsafe(f"**Query** {code(text)}") == []


@pytest.mark.parametrize("text", HOSTILE)
def test_code_shows_the_text_as_written(text):
    rendered = [t for t in inline_tokens(code(text)) if t.type == "code_inline"]
    assert len(rendered) == 1
    assert rendered[0].content.strip() == " ".join(text.splitlines()).strip()


def test_the_probes_bite():
    assert "image" in unsafe("![i](https://example.org/t.png)")
    assert "link_open" in unsafe("[l](https://example.org/t)")
    assert "html_inline" in unsafe("x <img src=https://example.org/h.png>")


def test_the_issue_case_breaks_a_plain_code_span_but_not_code():
    qid = "qx` [l](https://example.org/t) ![i](https://example.org/t.png) `y"
    assert "image" in unsafe(f"**Query** `{qid}`")  # what the Results page did
    assert unsafe(f"**Query** {code(qid)}") == []


ALPHABET = st.sampled_from([*"`*_[]()!<>#:/\\-=~|$&;\"' .abcx", "https://", "example.org",
                            "![", "](", "<img ", "&amp;", "\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=30).map("".join))
def test_md_and_code_are_safe_on_random_markup(text):
    assert unsafe(md(text)) == []
    assert unsafe(code(text)) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"*_[]()!<>#:/\\-~|$ .abc", "https://x.org/a.png"]),
                max_size=25).map("".join))
def test_md_shows_backtick_free_text_as_written(text):
    # as the app uses it: after other words ("Run: {name}"), so leading spaces are not an
    # indented code block
    assert plain_text("Run: " + md(text)).split() == ("Run: " + text).split()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_html_report_keeps_hostile_strings_as_text(lang):
    """The report (Jinja2, autoescaped; plotly names escaped) with the app tests' hostile
    dataset and run names: no tag of the attacker's reaches the HTML."""
    import re

    from test_hostile_uploads import HOSTILE, RUN_NAMES

    from ragdash.pipeline import run_evaluation
    from ragdash.present.report import build_report
    from ragdash.retrieval import make_retriever

    runs = []
    for name in RUN_NAMES:
        run = run_evaluation(HOSTILE, make_retriever("bm25"), kmax=10)
        run.name = name
        runs.append(run)
    html = build_report(runs, lang=lang)
    html = html if isinstance(html, str) else html.decode("utf-8")
    assert "inj-t.png" in html and "inj-run2.png" in html  # the strings are in the report
    assert not re.findall(r"<(?:img|a|script|iframe|link)\b[^>]*example\.org", html)

    found: list[str] = []

    class Attributes(HTMLParser):  # every attribute of every real tag in the page
        def handle_starttag(self, tag, attrs):
            found.extend(f"{tag} {k}={v}" for k, v in attrs if "example.org" in (v or ""))

    Attributes().feed(html)
    assert found == []
