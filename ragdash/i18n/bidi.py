"""Text direction: user text (a run's name, a query) cannot reorder the words around it.

A name holding U+202E (RIGHT-TO-LEFT OVERRIDE) shows every character after it reversed, up
to the end of the paragraph: in a sentence such as "bm25‮ beats dense", the page's own words
would read backwards. :func:`isolate` wraps such text in FIRST STRONG ISOLATE … POP
DIRECTIONAL ISOLATE (U+2068 … U+2069, Unicode's plain-text form of HTML's ``<bdi>``): an
isolate's overrides and embeddings end with it (UAX #9, rule X6a), wherever the text is shown
(the app's Markdown, the HTML report, a chart's legend, a terminal). Text without directional
controls or right-to-left letters is returned unchanged.
"""

from __future__ import annotations

import re

__all__ = ["FSI", "PDI", "isolate"]

FSI, PDI = "\u2068", "\u2069"
_INITIATORS = "\u2066\u2067\u2068"  # LRI, RLI, FSI
#: explicit directional controls (LRE, RLE, PDF, LRO, RLO, the isolates) and right-to-left
#: letters (Hebrew, Arabic, Syriac, Thaana, N'Ko, ... and their presentation forms)
_NEEDS = re.compile("[\u202a-\u202e\u2066-\u2069\u200f\u061c\u0590-\u08ff"
                    "\ufb1d-\ufdff\ufe70-\ufefc]")


def isolate(text: object) -> str:
    """``text`` as a directional isolate when it could reorder what surrounds it.

    A PDI inside without an initiator before it is dropped (it would end the isolate early);
    an isolate opened inside and left open is closed before the final PDI.
    """
    s = str(text)
    if not _NEEDS.search(s):
        return s
    out, depth = [], 0
    for ch in s:
        if ch in _INITIATORS:
            depth += 1
        elif ch == PDI:
            if not depth:
                continue
            depth -= 1
        out.append(ch)
    return FSI + "".join(out) + PDI * depth + PDI
