"""What a search returns, made into hits (ids, pairs, dicts, objects; bad values refused in one
sentence), and hits mapped to the corpus: chunks folded to their first rank, ids not in the
corpus counted, texts matched (found in one document, several or none), scores kept or made
from the rank order."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from own_support import tiny_dataset

from ragdash.dataset import Dataset, Document, Query
from ragdash.retrieval.own import BadResult, CorpusIndex, Hit, to_hits
from ragdash.retrieval.own.mapping import normalize_ws


def test_every_result_shape_becomes_hits():
    assert to_hits(["d1", 7]) == [Hit("d1", None), Hit("7", None)]
    assert to_hits([("d1", 2.5), ("d2", 1, "text two")]) == [
        Hit("d1", 2.5), Hit("d2", 1.0, "text two")]
    assert to_hits([{"doc_id": "d1", "_score": 3, "content": "c"}]) == [Hit("d1", 3.0, "c")]
    assert to_hits([{"id": "chunk-1", "metadata": {"source": "d9"}, "score": 1.0}],
                   id_field="source") == [Hit("d9", 1.0)]
    assert to_hits([SimpleNamespace(id="d3", score=0.5, text="t")]) == [Hit("d3", 0.5, "t")]
    assert to_hits(iter([])) == []
    # a dict or object whose id field is missing: kept, with no id (counted as not found)
    assert to_hits([{"text": "only text"}]) == [Hit(None, None, "only text")]


@pytest.mark.parametrize("returned,said", [
    (None, "returned None"),
    ("d1", "not a list of results"),
    ({"id": "d1"}, "not a list of results"),
    ([3.5], "id of type float"),
    ([["d1", 1.0, "t", "extra"]], "tuple of 4 values"),
    ([("d1", float("nan"))], "not a finite number"),
    ([("d1", "high")], "not a finite number"),
    ([{"id": ["d1"]}], "id of type list"),
    ([object()], "object with no id"),
])
def test_what_cannot_be_a_result_is_one_sentence(returned, said):
    with pytest.raises(BadResult, match=said) as got:
        to_hits(returned)
    assert "\n" not in str(got.value)


def test_chunks_fold_to_their_document_at_its_first_rank():
    index = CorpusIndex(tiny_dataset())
    m = index.map([Hit("d2", 0.9), Hit("d1", 0.8), Hit("d2", 0.7), Hit("zz", 0.6),
                   Hit("d3", 0.5)])
    assert m.doc_ids == ["d2", "d1", "d3"]
    assert m.scores == [0.9, 0.8, 0.5]
    assert [s for _, _, s in m.per_hit] == ["in_corpus", "in_corpus", "duplicate",
                                           "not_found", "in_corpus"]
    assert (m.duplicates_folded, m.not_found, m.no_score) == (1, 1, False)
    # the id not in the corpus is kept in what is shown
    assert m.per_hit[3][0].id == "zz" and m.per_hit[3][1] is None


def test_no_scores_or_scores_against_the_order_make_the_rank_order_the_score():
    index = CorpusIndex(tiny_dataset())
    m = index.map([Hit("d3", None), Hit("d1", None), Hit("d2", None)])
    assert m.doc_ids == ["d3", "d1", "d2"] and m.scores == [3.0, 2.0, 1.0] and m.no_score
    # distances (lower is better) disagree with the order returned: the order is kept
    m = index.map([Hit("d3", 0.1), Hit("d1", 0.4), Hit("d2", 0.9)])
    assert m.scores == [3.0, 2.0, 1.0] and m.reordered and not m.no_score


def _texts() -> Dataset:
    docs = [Document("a", "The quick  brown\nfox jumps over the lazy dog."),
            Document("b", "Lorem ipsum dolor sit amet; the lazy dog sleeps."),
            Document("c", "日本語の文書です。東京は日本の首都です。")]
    return Dataset(docs, [Query("q", "x")], {"q": {"a": 1}})


def test_match_text_finds_the_one_document_holding_a_text():
    index = CorpusIndex(_texts(), match="text")
    m = index.map([Hit(None, 1.0, "quick brown fox"),        # whitespace differs: found
                   Hit(None, 0.9, "the lazy dog"),           # in a and b: ambiguous
                   Hit(None, 0.8, "東京は日本の首都"),
                   Hit(None, 0.7, "not anywhere"),
                   Hit(None, 0.6, "jumps over\tthe lazy"),  # a again: folded
                   Hit("b", 0.5)])                           # no text: mapped by id
    assert m.doc_ids == ["a", "c", "b"]
    assert [s for _, _, s in m.per_hit] == ["in_corpus", "ambiguous", "in_corpus",
                                           "not_found", "duplicate", "in_corpus"]
    assert (m.ambiguous, m.not_found, m.duplicates_folded) == (1, 1, 1)


def test_match_text_never_matches_across_two_documents():
    index = CorpusIndex(_texts(), match="text")
    # the end of a followed by the start of b: in no single document
    m = index.map([Hit(None, 1.0, "lazy dog. Lorem ipsum")])
    assert m.doc_ids == [] and m.not_found == 1


def test_normalize_ws():
    assert normalize_ws("  a\n\tb   c ") == "a b c"


def test_an_unknown_match_is_one_sentence():
    from ragdash.errors import RetrievalError

    with pytest.raises(RetrievalError, match='use "text"'):
        CorpusIndex(tiny_dataset(), match="fuzzy")
