"""AppTest: a run named with U+202E (RIGHT-TO-LEFT OVERRIDE) cannot reverse the page's own
words — wherever the app writes the name into a sentence, it is a directional isolate."""

from __future__ import annotations

from app_support import new_app, open_page, save_bm25_run

RLO, PDI = "\u202e", "\u2069"
INITIATORS = set("\u2066\u2067\u2068")


def loose_overrides(text: str) -> list[str]:
    out, depth = [], 0
    for i, ch in enumerate(text):
        if ch in INITIATORS:
            depth += 1
        elif ch == PDI:
            depth = max(0, depth - 1)
        elif ch == RLO and not depth:
            out.append(text[max(0, i - 30): i + 30])
    return out


def shown(at) -> list[str]:
    elements = [*at.markdown, *at.caption, *at.info, *at.success, *at.warning,
                *at.subheader, *at.header, *at.title, *at.sidebar.markdown,
                *at.sidebar.caption]
    return [str(e.value) for e in elements]


def test_a_run_name_with_a_right_to_left_override_is_isolated(sample):
    a = save_bm25_run(sample, name=f"bm25{RLO}evil")
    b = save_bm25_run(sample, name="flat", k1=0.5, b=0.2)
    for page, query in (("results", {"run": a}), ("compare", {"run": a, "runs": f"{a},{b}"})):
        at = open_page(new_app(**query), page)
        texts = shown(at)
        assert any(RLO in t for t in texts), (page, texts[:20])  # the name is on the page
        loose = [s for t in texts for s in loose_overrides(t)]
        assert not loose, (page, loose[:5])
