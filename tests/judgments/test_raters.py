"""Rater names on the Judge page: without sign-in the name typed; signed in, the user's own
name with any second name as a suffix — never another person's; which sets a person sees."""

from __future__ import annotations

import pytest

from ragdash.judgments.raters import clean_name, owns, rater_for, visible_sets


def test_without_sign_in_the_name_typed_is_the_rater():
    assert rater_for(None, "  hana  ") == "hana"
    assert rater_for(None, "alice@corp") == "alice@corp"
    assert rater_for(None, "") is None and rater_for(None, None) is None
    assert rater_for(None, "x" * 50, limit=40) == "x" * 40


@pytest.mark.parametrize(("typed", "rater"), [
    ("", "bob@corp"),
    ("bob@corp", "bob@corp"),
    ("alice@corp", "bob@corp/alice@corp"),        # another's name is only a suffix of his
    ("second pass", "bob@corp/second pass"),
    ("bob@corp/second", "bob@corp/second"),       # his own full form is not doubled
    ("bob@corp/", "bob@corp"),
    ("bob@corpx", "bob@corp/bob@corpx"),
    ("\x1b[31mred\x07", "bob@corp/[31mred"),      # control characters never reach a set name
])
def test_signed_in_the_rater_is_the_user_or_a_suffix_of_theirs(typed, rater):
    got = rater_for("bob@corp", typed)
    assert got == rater
    assert owns("bob@corp", got) and not owns("alice@corp", got)


def test_owns():
    assert owns("alice@corp", "alice@corp") and owns("alice@corp", "alice@corp/2nd")
    assert not owns("alice@corp", "alice@corpx") and not owns("alice@corp", "bob@corp/alice@corp")
    assert owns(None, "anyone")
    assert not owns("", "")


def test_visible_sets():
    names = ["llm:m@v1", "person:alice@corp", "person:alice@corp/2nd", "person:bob@corp",
             "file:x", "generated:g@1", "person:hana"]
    assert visible_sets(names, None, sees_others=False) == names
    assert visible_sets(names, "alice@corp", sees_others=True) == names
    assert visible_sets(names, "bob@corp", sees_others=False) == [
        "llm:m@v1", "person:bob@corp", "file:x", "generated:g@1"]
    assert visible_sets(names, "alice@corp", sees_others=False) == [
        "llm:m@v1", "person:alice@corp", "person:alice@corp/2nd", "file:x", "generated:g@1"]


def test_clean_name():
    assert clean_name(" a\tb\n c ") == "a b c"
    assert clean_name("abcdef", 3) == "abc"
    assert clean_name(None) == ""
