"""Reading a grade from a judge's reply, and nothing else: a reply that does not state a grade
from 0 to 3 in one of the two accepted forms is not read, and the reason is kept.

Accepted (the grade must be a whole number; ``2.0`` is 2):

1. UMBRELA's last line, ``##final score: N`` — any number of ``#``, any case, a full-width
   colon, Markdown bold or a full stop around N. The last such line of the reply counts.
2. A JSON object with a ``score`` field, as the whole reply or its last line, optionally in a
   Markdown code fence: ``{"score": 2}``, ``{"score": "2", "reason": "…"}``.

Anything else is one of the reasons in :data:`REASONS`; the caller retries once and then
leaves the pair unjudged and counts it. Nothing is guessed: no "a digit somewhere in the
text", no default grade.
"""

from __future__ import annotations

import json
import re

__all__ = ["GRADES", "REASONS", "looks_like_refusal", "read_grade"]

GRADES = (0, 1, 2, 3)
#: why a reply gave no grade (the chat client's own failure kinds come through as they are)
REASONS = ("out_of_range", "refusal", "html", "length", "empty", "unreadable", "bad_reply",
           "too_long", "server", "refused")

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


def read_grade(text: str) -> tuple[int | None, str | None]:
    """(grade, None) for a reply that states a grade 0–3, else (None, reason)."""
    text = text or ""
    if not text.strip():
        return None, "empty"
    finals = _FINAL.findall(text)
    if finals:
        return _grade(finals[-1])
    score = _json_score(text)
    if score is not None:
        return _grade(score)
    if _HTML.search(text[:2000]):
        return None, "html"
    if looks_like_refusal(text):
        return None, "refusal"
    return None, "unreadable"
