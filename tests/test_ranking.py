import numpy as np
import pytest

from ragdash import DatasetError, Ranking


def test_canonical_order_is_score_desc_then_doc_id_desc():
    r = Ranking.from_dict({"q": {"a": 1.0, "c": 1.0, "b": 2.0, "d": 0.5}})
    docs, scores = r.get("q")
    assert docs == ["b", "c", "a", "d"]
    assert list(scores) == [2.0, 1.0, 1.0, 0.5]


def test_trec_roundtrip_keeps_query_order_and_ignores_rank_column(tmp_path):
    text = "q2 Q0 x 9 0.1 t\nq1 Q0 y 1 0.2 t\nq2 Q0 z 1 0.3 t\n"
    r = Ranking.parse_trec(text)
    assert r.query_ids == ["q2", "q1"]
    assert r.get("q2")[0] == ["z", "x"]
    path = tmp_path / "run.txt"
    r.write_trec(path, tag="mine")
    again = Ranking.read_trec(path)
    assert again.to_dict() == r.to_dict()
    assert path.read_text().splitlines()[0] == "q2 Q0 z 1 0.3 mine"


@pytest.mark.parametrize("text, line", [
    ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 1 t\n", 2),
    ("q1 Q0 d1 1 abc t\n", 1),
    ("q1 Q0 d1 1 nan t\n", 1),
])
def test_bad_run_lines_are_named(text, line):
    with pytest.raises(DatasetError) as err:
        Ranking.parse_trec(text, source="run.txt")
    assert f"run.txt, line {line}" in str(err.value)


def test_duplicate_document_in_one_query_is_an_error():
    with pytest.raises(DatasetError, match="appears twice"):
        Ranking.parse_trec("q Q0 d 1 1 t\nq Q0 d 2 0.5 t\n")


def test_truncate_subset_and_topk():
    r = Ranking.from_topk(["q1", "q2"], ["a", "b", "c"], np.array([[2, 0], [1, -1]]),
                          np.array([[0.9, 0.1], [0.5, 0.0]]))
    assert r.to_dict() == {"q1": {"c": 0.9, "a": 0.1}, "q2": {"b": 0.5}}
    assert r.truncate(1).to_dict() == {"q1": {"c": 0.9}, "q2": {"b": 0.5}}
    assert r.subset(["q2", "zz"]).to_dict() == {"q2": {"b": 0.5}, "zz": {}}
    assert Ranking.from_json_obj(r.to_json_obj()).to_dict() == r.to_dict()


@pytest.mark.parametrize("seed", range(30))
def test_canonical_order_whatever_the_input_order(seed):
    """Shuffled, already sorted, or sorted but for one tie: the result is always the
    trec_eval order (the fast path that skips sorting must never accept a wrong order)."""
    rng = np.random.default_rng(seed)
    run = {}
    for q in range(rng.integers(1, 6)):
        n = int(rng.integers(0, 12))
        docs = rng.choice(50, size=n, replace=False)
        run[f"q{q}"] = {f"d{d}": float(rng.integers(0, 4)) for d in docs}
    # doc id descending first, then a stable sort by score descending
    expected = {q: sorted(sorted(r.items(), reverse=True), key=lambda kv: -kv[1])
                for q, r in run.items()}
    for variant in ("as given", "sorted", "sorted, one tie swapped"):
        items = {q: list(r.items()) for q, r in run.items()}
        if variant != "as given":
            items = {q: list(e) for q, e in expected.items()}
        if variant.endswith("swapped"):
            for e in items.values():
                i = next((i for i in range(len(e) - 1) if e[i][1] == e[i + 1][1]), None)
                if i is not None:
                    e[i], e[i + 1] = e[i + 1], e[i]
        r = Ranking.from_dict({q: dict(e) for q, e in items.items()})
        got = {q: list(zip(r.get(q)[0], r.get(q)[1].tolist())) for q in run}
        assert got == expected, variant


@pytest.mark.parametrize("shape", ["digits", "mixed", "wide", "long"])
def test_doc_id_codes_are_byte_order_whatever_the_ids(shape):
    # packed ranks (few values per byte), raw 8-byte keys (many), hashes (long and varied):
    # each way gives np.unique's byte order
    from ragdash.ranking import _byte_order_codes

    rng = np.random.default_rng(len(shape))
    n = 3000
    if shape == "digits":
        ids = [f"d{v:06d}" for v in rng.integers(0, 5000, n)]
    elif shape == "mixed":
        ids = [f"{p}{v}" for p, v in zip(rng.choice(["a", "ab", "", "日本", "Z"], n),
                                         rng.integers(0, 300, n))]
    elif shape == "wide":
        ids = [bytes(rng.integers(1, 256, 8).tolist()).hex()[:8] + chr(33 + int(v))
               for v in rng.integers(0, 90, n)]
    else:
        ids = ["".join(map(chr, rng.integers(33, 127, int(k)))) for k in rng.integers(9, 30, n)]
        ids[::7] = ids[1::7][: len(ids[::7])]
    col = np.array([i.encode() for i in ids], dtype=bytes)
    vocab, codes, by_value = _byte_order_codes(col)
    want_vocab, want_codes = np.unique(col, return_inverse=True)
    assert vocab.tolist() == want_vocab.tolist()
    assert codes.tolist() == want_codes.ravel().tolist()
    # by_value keeps each id's rows together, in file order (what finds a pair named twice)
    grouped = codes[by_value]
    assert sorted(by_value.tolist()) == list(range(n))
    assert len(np.unique(grouped)) == np.count_nonzero(np.diff(grouped)) + 1
    same = grouped[1:] == grouped[:-1]
    assert (by_value[1:][same] > by_value[:-1][same]).all()
