"""Whose labels are whose on the Judge page: the rater's name, and which raters' sets a person
may see.

A person's labels on the Judge page are the set ``person:<rater>`` (and their "can't tell"
marks ``unsure:<rater>``). Without sign-in the rater is the name typed, as typed: a shared
server trusts its users. With sign-in (:mod:`ragdash.ui.auth`) the rater is the signed-in
user, and a second name the person types (for a second pass, a colleague at the same desk)
becomes a suffix of theirs, ``alice@corp/second``: nobody can write into, count, download or
move the labels of another person by typing that person's name.

Which sets a signed-in person sees (the agreement view): every set that is not a person's
(the human qrels, ``llm:``, ``file:``, ``generated:``), their own person sets, and other
people's only when they may see the dataset's judgments — the dataset's owner (the person who
saved the first run made on it; see docs/sharing.md). Without sign-in everyone sees every set.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["PERSON", "SEPARATOR", "clean_name", "owns", "rater_for", "visible_sets"]

#: the prefix of a person's judgment set
PERSON = "person:"
#: between the signed-in user's name and a second name they chose
SEPARATOR = "/"


def clean_name(text: object, limit: int | None = None) -> str:
    """``text`` as one line of printable characters, runs of white space as one space, cut at
    ``limit`` characters."""
    printable = "".join(c if c.isprintable() else " " for c in str(text or ""))
    name = " ".join(printable.split())
    return name[:limit] if limit is not None else name


def rater_for(user: str | None, typed: str | None, *, limit: int = 40) -> str | None:
    """The rater name labels are saved under.

    Without sign-in (``user`` is ``None``): the name typed (cleaned, at most ``limit``
    characters), or ``None`` when nothing is typed. Signed in: the user's own name, or with a
    second name typed ``<user>/<second>`` — never another person's name. A typed name that
    already starts with the user's own (``alice@corp`` or ``alice@corp/second``) is taken as
    that suffix, not doubled."""
    typed = clean_name(typed)
    if user is None:
        return typed[:limit] or None
    own = clean_name(user)
    if not own:
        return None
    if typed == own:
        typed = ""
    elif typed.startswith(own + SEPARATOR):
        typed = typed[len(own) + len(SEPARATOR):].strip()
    typed = typed[:limit].strip()
    return f"{own}{SEPARATOR}{typed}" if typed else own


def owns(user: str | None, rater: str) -> bool:
    """Whether the rater name ``rater`` is ``user``'s (their name, or their name with a second
    name after :data:`SEPARATOR`). Without sign-in every name is everyone's."""
    if user is None:
        return True
    own = clean_name(user)
    return bool(own) and (rater == own or rater.startswith(own + SEPARATOR))


def visible_sets(names: Iterable[str], user: str | None, *, sees_others: bool) -> list[str]:
    """The judgment sets of ``names`` that ``user`` may see, in order: without sign-in all of
    them; signed in, every set that is not a person's, the user's own person sets, and other
    people's only when ``sees_others`` (the dataset's owner)."""
    names = list(names)
    if user is None or sees_others:
        return names
    return [n for n in names if not n.startswith(PERSON) or owns(user, n[len(PERSON):])]
