"""The vectorized TREC run parser (``Ranking.parse_trec`` / ``read_trec``) that ``score``
relies on for speed: same result as building the ranking from a dict, whatever the layout,
block boundaries, ties or query interleaving; bad lines named with their absolute number."""

from __future__ import annotations

import contextlib
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragdash import DatasetError, Ranking
from ragdash.formats import trec_run


@contextlib.contextmanager
def block_size(n: int):
    """Parse in blocks of ``n`` bytes, so small texts cross many block boundaries."""
    old = trec_run.CHUNK_BYTES
    trec_run.CHUNK_BYTES = n
    try:
        yield
    finally:
        trec_run.CHUNK_BYTES = old


def reference(lines: list[tuple[str, str, float]]) -> tuple[list[str], dict]:
    """Query order of first appearance, and {qid: {doc: score}} — the slow, obvious way."""
    order, run = [], {}
    for q, d, s in lines:
        if q not in run:
            order.append(q)
            run[q] = {}
        run[q][d] = s
    return order, run


def write(lines, rng: random.Random, *, messy: bool) -> str:
    out = []
    for q, d, s in lines:
        if messy:
            seps = [rng.choice([" ", "  ", "\t", " \t "]) for _ in range(5)]
            end = rng.choice(["\n", "\r\n", " \n", "\n\n"])
        else:
            seps, end = [" "] * 5, "\n"
        rank = rng.randint(-3, 999)  # the rank column is ignored
        out.append(f"{q}{seps[0]}Q0{seps[1]}{d}{seps[2]}{rank}{seps[3]}{s!r}{seps[4]}tag{end}")
    text = "".join(out)
    if messy and rng.random() < 0.5:
        text = text.rstrip("\n")  # no newline at the end
    return text


ids = st.sampled_from(["d1", "d2", "d10", "D1", "doc-000000001", "日本語", "ｄ", "x" * 30,
                       "a.b", "1", "01"])
qids = st.sampled_from(["q1", "q2", "10", "9", "クエリ", "q-long-query-id-000000"])
scores = st.sampled_from([1.0, 0.5, 2.0, -1.0, 0.0, 1e-300, 123456.789, 1.5e10])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(qids, ids, scores), min_size=1, max_size=60), st.booleans(),
       st.integers(0, 2**32), st.sampled_from([16, 64, 1 << 20]))
def test_parse_equals_the_obvious_reading(lines, messy, seed, block):
    # one line per (query, doc): keep the first
    seen, unique = set(), []
    for q, d, s in lines:
        if (q, d) not in seen:
            seen.add((q, d))
            unique.append((q, d, s))
    rng = random.Random(seed)
    text = write(unique, rng, messy=messy)
    order, run = reference(unique)
    with block_size(block):
        parsed = Ranking.parse_trec(text.encode("utf-8") if seed % 2 else text)
    want = Ranking.from_dict(run)  # canonical order by the constructor
    assert parsed.query_ids == order
    assert parsed.to_dict() == want.to_dict()
    for q in order:
        assert parsed.get(q)[0] == want.get(q)[0]  # score desc, ties by doc id desc
    words, codes = parsed._doc_vocab
    assert list(words[codes]) == list(parsed.doc_ids)


def test_big_file_in_many_blocks_with_ties_out_of_order(tmp_path):
    rng = np.random.default_rng(1)
    lines = []
    for q in range(300):
        docs = rng.choice(5000, size=50, replace=False)
        sc = np.sort(rng.integers(0, 10, size=50))[::-1] / 4  # many ties, ascending doc ids
        lines += [(f"q{q}", f"doc{d}", float(s)) for d, s in zip(sorted(docs), sc)]
    rng.shuffle(lines[:4000])  # part of the file has queries interleaved
    text = write(lines, random.Random(0), messy=False)
    path = tmp_path / "run.txt"
    path.write_text(text, encoding="utf-8")
    order, run = reference(lines)
    with block_size(4096):
        from_file = Ranking.read_trec(path)
    assert from_file.query_ids == order
    assert from_file.to_dict() == Ranking.from_dict(run).to_dict()
    for q in order[:50]:
        assert from_file.get(q)[0] == Ranking.from_dict({q: run[q]}).get(q)[0]
    assert from_file.name == "run"


def test_a_line_longer_than_a_block(tmp_path):
    long_id = "d" * 5000
    path = tmp_path / "r.txt"
    path.write_text(f"q Q0 a 1 2 t\nq Q0 {long_id} 2 1 t\nq2 Q0 b 1 1 t", encoding="utf-8")
    with block_size(64):
        r = Ranking.read_trec(path)
    assert r.to_dict() == {"q": {"a": 2.0, long_id: 1.0}, "q2": {"b": 1.0}}


def test_ids_with_control_bytes_take_the_line_path():
    # \x1c is not whitespace for trec_eval: it stays inside the id
    r = Ranking.parse_trec("q Q0 a\x1cb 1 1 t\nq Q0 c 2 0.5 t\n")
    assert r.get("q")[0] == ["a\x1cb", "c"]


@pytest.mark.parametrize("block", [64, 1 << 20])
def test_one_long_id_among_short_ones_is_not_padded_to(block):
    # 2,000 short lines and one 300 kB id: padding every id to the longest would take 600 MB
    long_id = "x" * 300_000
    lines = [f"q{i % 7} Q0 d{i} 1 {i % 5} t" for i in range(2000)]
    lines.insert(1000, f"q3 Q0 {long_id} 1 2.5 t")
    with block_size(block):
        r = Ranking.parse_trec("\n".join(lines))
    cols = trec_run.parse_columns("\n".join(lines).encode())
    assert cols[1].dtype == object and cols[0].dtype.kind == "S"
    assert r.get("q3")[1].tolist() == sorted(r.get("q3")[1].tolist(), reverse=True)
    assert r.to_dict()["q3"][long_id] == 2.5
    assert sum(len(r.get(q)[0]) for q in r.query_ids) == 2001


@pytest.mark.parametrize("text", ["q Q0 d 1 +1.5 t", "q Q0 d 1 .5 t", "q Q0 d 1 1e-3 t",
                                  "q Q0 d 1 -0 t", "q Q0 d 1 1E5 t", "q Q0 d 1 7 t"])
def test_score_spellings_parse_like_float(text):
    assert Ranking.parse_trec(text).scores[0] == float(text.split()[4])


def test_bom_and_blank_lines_are_fine():
    r = Ranking.parse_trec(b"\xef\xbb\xbf\n\nq Q0 d 1 1 t\n\n\n")
    assert r.to_dict() == {"q": {"d": 1.0}}


@pytest.mark.parametrize("block", [32, 1 << 20])
@pytest.mark.parametrize("bad, problem", [
    ("q Q0 d9 1 t", "expected 6 columns"),
    ("q Q0 d9 1 1 t extra", "expected 6 columns"),
    ("q Q0 d9 1 abc t", "not a finite number"),
    ("q Q0 d9 1 inf t", "not a finite number"),
    ("q Q0 d9 1 nan t", "not a finite number"),
])
def test_bad_line_is_named_by_its_absolute_number(bad, problem, block):
    good = [f"q Q0 d{i} 1 {i} t" for i in range(40)]
    text = "\n".join([*good[:25], bad, *good[25:]]) + "\n"
    with block_size(block), pytest.raises(DatasetError, match=problem) as err:
        Ranking.parse_trec(text, source="run.txt")
    assert "run.txt, line 26" in str(err.value)


def test_two_records_on_one_line_are_an_error():
    with pytest.raises(DatasetError, match="line 1: expected 6 columns"):
        Ranking.parse_trec("q Q0 a 1 1 t q Q0 b 2 2 t\n")


def test_not_utf8_is_named_by_line():
    data = b"q Q0 a 1 1 t\n" * 30 + b"q Q0 \x83\x65 1 1 t\n"
    with block_size(64), pytest.raises(DatasetError, match="line 31: the run file is not UTF-8"):
        Ranking.parse_trec(data, source="r")


@pytest.mark.parametrize("text", ["", "   \n\t\n", "\ufeff"])
def test_empty_run_is_an_error(text):
    with pytest.raises(DatasetError, match="empty"):
        Ranking.parse_trec(text)


def test_nul_byte_is_an_error():
    with pytest.raises(DatasetError, match="NUL"):
        Ranking.parse_trec(b"q Q0 a\x00 1 1 t\n")


def test_duplicate_pairs_far_apart_are_found():
    text = "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq2 Q0 a 1 1 t\nq Q0 a 3 1 t\n"
    with pytest.raises(DatasetError, match="document 'a' appears twice for query 'q'"):
        Ranking.parse_trec(text)


def test_missing_run_file_is_a_dataset_error(tmp_path):
    with pytest.raises(DatasetError, match="cannot read the run file"):
        Ranking.read_trec(tmp_path / "nope.txt")


# -- the fast path against the exact, obvious reading, on hostile runs ------------------------
def exact_reading(data: bytes):
    """Line by line in plain Python, as trec_eval reads a run: ``(query order, {qid: [(doc,
    score), ...] in trec_eval's order})``, or the first problem as ``(message id, line)``."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    rows = []
    for n, line in enumerate(data.split(b"\n"), start=1):
        parts = line.split()  # ASCII whitespace, as trec_eval
        if not parts:
            continue
        if len(parts) != 6:
            return "trec.columns", n
        try:
            score = float(parts[4])
        except ValueError:
            return "trec.bad_score", n
        if not np.isfinite(score):
            return "trec.bad_score", n
        rows.append((parts[0].decode(), parts[2].decode(), score))
    if not rows:
        return "trec.empty", None
    if len({(q, d) for q, d, _ in rows}) < len(rows):
        return "run.doc_twice", None
    order = list(dict.fromkeys(q for q, _, _ in rows))
    ranked = {q: sorted(((d, s) for qq, d, s in rows if qq == q),
                        key=lambda p: (p[1], p[0].encode()), reverse=True) for q in order}
    return order, ranked


hostile_scores = st.sampled_from(
    ["1", "0.5", "2.50", "-0", "+.5", "1.", "-3.25", "7", "1e-5", "1E5", "12345678901234567890",
     "0.12345678901234567", "9007199254740993", "0.30000000000000004", "nan", "NaN", "inf",
     "-inf", "Infinity", "1e400", "abc", "1.2.3", "-", "."])
hostile_line = st.tuples(st.sampled_from(["q1", "q2", "10", "クエリ"]),
                         st.sampled_from(["d1", "d2", "d10", "D1", "日本", "x" * 40]),
                         hostile_scores,
                         st.sampled_from([" ", "\t", "  "]),
                         st.sampled_from(["\n", "\r\n", "\n\n"]),
                         st.sampled_from([0, 0, 0, 0, 1]))  # 1: a seventh column


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hostile_line, min_size=1, max_size=40), st.sampled_from([24, 64, 1 << 20]))
def test_fast_path_agrees_with_the_exact_reading_on_hostile_runs(lines, block):
    data = "".join(f"{q}{sep}Q0{sep}{d}{sep}1{sep}{s}{sep}tag" + (" more" if extra else "") + end
                   for q, d, s, sep, end, extra in lines).encode()
    want = exact_reading(data)
    with block_size(block):
        try:
            parsed = Ranking.parse_trec(data, source="run.txt")
        except DatasetError as exc:
            got = exc.msg_id, getattr(exc, "line", None)
            assert got == want
            return
    assert isinstance(want[1], dict), f"the exact reading refuses it: {want}"
    order, ranked = want
    assert parsed.query_ids == order
    for q in order:
        docs, scores = parsed.get(q)
        assert list(zip(docs, scores.tolist())) == ranked[q]


def test_fast_scores_are_strtod_exactly():
    # random decimals of 1-19 digits with the point anywhere: the vectorized reading must give
    # the correctly rounded double, the one float() gives
    rng = np.random.default_rng(7)
    texts = []
    for _ in range(20_000):
        digits = "".join(map(str, rng.integers(0, 10, size=int(rng.integers(1, 20)))))
        point = int(rng.integers(0, len(digits) + 1))
        sign = str(rng.choice(["", "-", "+"]))
        texts.append(sign + digits[:point] + "." + digits[point:] if rng.random() < 0.8
                     else sign + digits)
    data = "".join(f"q Q0 d{i} 1 {t} x\n" for i, t in enumerate(texts)).encode()
    _, _, scores = trec_run.parse_columns(data)
    assert scores.tolist() == [float(t) for t in texts]


@pytest.mark.parametrize("fraction", [0, 1, 3, 6, 9])
def test_fast_scores_of_one_format_are_strtod_exactly(fraction):
    # a score column printed with one format (the usual case) takes a shorter path; its
    # values must still be float()'s, signs, 15 digits and the point at either end included
    rng = np.random.default_rng(fraction)
    ints = rng.integers(0, 10 ** (15 - fraction), size=5000)
    texts = [(f"{'-' if i % 3 == 0 else ''}{v // 10 ** fraction}." +
              f"{v % 10 ** fraction:0{fraction}d}") if fraction else str(v)
             for i, v in enumerate(ints.tolist())]
    texts[:3] = (["0." + "0" * fraction, ".5" + "0" * (fraction - 1), "-0." + "0" * fraction]
                 if fraction else ["0", "-0", "7"])
    data = "".join(f"q Q0 d{i} 1 {t} x\n" for i, t in enumerate(texts)).encode()
    _, _, scores = trec_run.parse_columns(data)
    want = [float(t) for t in texts]
    assert scores.tolist() == want
    assert [math.copysign(1, s) for s in scores.tolist()] == [math.copysign(1, w) for w in want]
