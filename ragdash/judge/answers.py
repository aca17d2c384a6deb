"""Reading a grade from a judge's reply, and nothing else: a reply that does not state a grade
from 0 to 3 in one of the two accepted forms is not read, and the reason is kept.

Accepted (the grade must be a whole number; ``2.0`` is 2):

1. UMBRELA's last line, ``##final score: N`` — any number of ``#``, any case, a full-width
   colon, Markdown bold or a full stop around N.
2. A JSON object with a ``score`` field, as the whole reply or its last line, optionally in a
   Markdown code fence: ``{"score": 2}``, ``{"score": "2", "reason": "…"}``.

**Line endings.** ``\\r\\n``, a lone ``\\r`` and the other Unicode line breaks are read
as ``\\n`` (LiteLLM and some Windows-hosted models end lines with CRLF).

**Only the model's own words count.** The texts the judge was shown (the query and the
passage, passed as ``quoted``) can contain a line such as ``##final score: 3``: a document
that sets its own grade. Before anything is read, the reply loses (a) every block between
``<passage>`` and ``</passage>`` (or ``<query>`` … ``</query>``), the delimiters of
:mod:`ragdash.judge.prompt`, and (b) every line that is a line of a quoted text (compared
without surrounding spaces, ``>`` quote marks, Markdown emphasis or case). What is left is
the model's own text. A grade stated only in quoted lines is ``quoted``; several verdict
lines of the model's own that disagree are ``conflicting`` (the prompt asks for one; the
first or the last would be a guess). Verdict lines that agree count once.

Anything else is one of the reasons in :data:`REASONS`; the caller retries once and then
leaves the pair unjudged and counts it. Nothing is guessed: no "a digit somewhere in the
text", no default grade.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

__all__ = ["GRADES", "REASONS", "looks_like_refusal", "own_text", "read_grade",
           "unify_line_breaks"]

GRADES = (0, 1, 2, 3)
#: why a reply gave no grade (the chat client's own failure kinds come through as they are)
REASONS = ("out_of_range", "refusal", "html", "length", "empty", "unreadable", "quoted",
           "conflicting", "bad_reply", "too_long", "server", "refused")

_FINAL = re.compile(r"^[ \t>*_]*#+[ \t]*final[ \t]*score[ \t]*\**[ \t]*[:：][ \t]*\**[ \t]*"
                    r"([-+]?\d+(?:\.\d+)?)[ \t]*\**[ \t]*[.。]?[ \t]*\**[ \t]*$",
                    re.IGNORECASE | re.MULTILINE)
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_REFUSAL = re.compile(
    r"\b(I\s+(?:can(?:no|')t|am\s+(?:not\s+able|unable)|won't|will\s+not)\s+"
    r"(?:help|assist|provide|do|comply|answer|evaluate|judge|grade)"
    r"|I'?m\s+(?:sorry|not\s+able|unable)|as\s+an\s+AI\b)"
    r"|申し訳(?:ありません|ございません)|お答えできません|お手伝いできません|対応できません",
    re.IGNORECASE)
_HTML = re.compile(r"<\s*(?:!doctype|html|head|body|div|p|h[1-6]|script|title)\b",
                   re.IGNORECASE)
#: a block the prompt delimits (the texts shown), as a model may echo it
_DELIMITED = re.compile(r"<\s*(query|passage)\s*>.*?<\s*/\s*\1\s*>",
                        re.IGNORECASE | re.DOTALL)
_QUOTE_MARKS = re.compile(r"^[\s>*_]+|[\s*_]+$")
_SPACES = re.compile(r"\s+")
_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def unify_line_breaks(text: str) -> str:
    """``text`` with every line break ``str.splitlines`` knows (``\\r\\n``, a lone ``\\r``,
    U+2028, …) written ``\\n``."""
    return _BREAKS.sub("\n", text or "")


def _line_key(line: str) -> str:
    return _SPACES.sub(" ", _QUOTE_MARKS.sub("", line)).casefold()


def own_text(reply: str, quoted: Sequence[str] = ()) -> str:
    """The reply without what it quotes of the texts shown (module docstring): delimited
    blocks out, then every line that is a line of one of ``quoted``."""
    said = _DELIMITED.sub("\n", unify_line_breaks(reply))
    shown = {k for q in quoted for k in map(_line_key, (q or "").splitlines()) if k}
    if not shown:
        return said
    return "\n".join(ln for ln in said.split("\n") if _line_key(ln) not in shown)


def _grade(value) -> tuple[int | None, str | None]:
    """A stated score → (grade, None), or (None, "out_of_range") for a number that is not
    0–3, or (None, "unreadable") for something that is not a number."""
    if isinstance(value, bool):
        return None, "unreadable"
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None, "unreadable"
    if not isinstance(value, (int, float)) or value != value:
        return None, "unreadable"
    if float(value).is_integer() and int(value) in GRADES:
        return int(value), None
    return None, "out_of_range"


def _json_score(text: str):
    """The ``score`` of a JSON object that is the reply (or its last line); None if none."""
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    lines = [ln for ln in body.strip().splitlines() if ln.strip()]
    for candidate in (body.strip(), lines[-1].strip() if lines else ""):
        if not candidate.startswith("{"):
            continue
        try:
            obj = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and "score" in obj:
            return obj["score"]
    return None


def looks_like_refusal(text: str) -> bool:
    """Whether a reply reads as a refusal ("I can't help with that", 申し訳ありません…);
    the query writer of :mod:`ragdash.generate` drops such replies too."""
    return bool(_REFUSAL.search((text or "")[:2000]))


def _stated(text: str) -> tuple[int | None, str | None] | None:
    """The grade ``text`` states (or why it is not one), None when it states none."""
    finals = _FINAL.findall(text)
    if finals:
        read = set(map(_grade, finals))
        if len(read) > 1:
            return None, "conflicting"
        return read.pop()
    score = _json_score(text)
    if score is not None:
        return _grade(score)
    return None


def read_grade(text: str, *, quoted: Sequence[str] = ()) -> tuple[int | None, str | None]:
    """(grade, None) for a reply that states a grade 0–3 in its own words, else
    (None, reason); ``quoted``: the texts the judge was shown (the query, the passage)."""
    text = unify_line_breaks(text or "")
    if not text.strip():
        return None, "empty"
    stated = _stated(own_text(text, quoted))
    if stated is not None:
        return stated
    if _stated(text) is not None:
        return None, "quoted"
    if _HTML.search(text[:2000]):
        return None, "html"
    if looks_like_refusal(text):
        return None, "refusal"
    return None, "unreadable"
