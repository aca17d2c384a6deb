"""Calibrate and check the script-aware token estimate against exact cl100k counts.

    python bench/calibrate_tokens.py            # error of the estimate on every corpus
    python bench/calibrate_tokens.py --fit      # also re-derive the rates (scipy NNLS)

Corpora (all offline): JSQuAD valid (documents as title + " " + text, and queries) from
../shared/data/jsquad-valid; English prose from Python's own files: the language reference
topics in pydoc_data (held out: used by the tests, not for fitting), the stdlib's docstrings
longer than 200 characters, the licence texts in /usr/share/common-licenses and the READMEs
in /usr/share/doc (held out).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import glob
import json
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragdash.cost import tokens as tk

JSQUAD = Path(__file__).resolve().parent.parent / "tests" / "data" / "jsquad-valid"


def jsquad() -> tuple[list[str], list[str]]:
    docs = [json.loads(line) for line in (JSQUAD / "corpus.jsonl").open(encoding="utf-8")]
    qs = [json.loads(line) for line in (JSQUAD / "queries.jsonl").open(encoding="utf-8")]
    return ([f"{d['title']} {d['text']}" if d.get("title") else d["text"] for d in docs],
            [q["text"] for q in qs])


def pydoc_topics() -> list[str]:
    import pydoc_data.topics

    return list(pydoc_data.topics.topics.values())


def stdlib_docstrings() -> list[str]:
    out = []
    for f in sorted(glob.glob(sysconfig.get_paths()["stdlib"] + "/*.py")):
        try:
            tree = ast.parse(Path(f).read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef
                          | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc) > 200:
                    out.append(doc)
    return out


def files(pattern: str) -> list[str]:
    out = []
    for f in sorted(glob.glob(pattern)):
        if f.endswith(".gz"):
            continue
        with contextlib.suppress(UnicodeDecodeError, OSError):
            out.append(Path(f).read_text(encoding="utf-8"))
    return out


def corpora() -> dict[str, list[str]]:
    docs, queries = jsquad()
    return {"jsquad documents": docs, "jsquad queries": queries,
            "licences": files("/usr/share/common-licenses/*"),
            "stdlib docstrings": stdlib_docstrings(),
            "pydoc topics (held out)": pydoc_topics(),
            "doc READMEs (held out)": files("/usr/share/doc/*/README*")}


def report(corp: dict[str, list[str]]) -> None:
    print(f"{'corpus':26s} {'texts':>6s} {'chars':>9s} {'cl100k':>9s} {'estimate':>9s} "
          f"{'error':>7s} {'per-text MAPE':>13s} {'tok/char':>8s} {'chars/4 err':>11s}")
    for name, texts in corp.items():
        exact = tk.count_tokens(texts, per_text=True, method="tiktoken")
        est = tk.count_tokens(texts, per_text=True, method="estimate")
        e, x = np.array(est.per_text), np.array(exact.per_text)
        chars = sum(map(len, texts))
        print(f"{name:26s} {len(texts):6d} {chars:9d} {exact.tokens:9d} {est.tokens:9d} "
              f"{100 * (est.tokens / exact.tokens - 1):+6.2f}% "
              f"{100 * np.mean(np.abs(e - x) / np.maximum(x, 1)):12.1f}% "
              f"{exact.tokens / chars:8.3f} {100 * (chars / 4 / exact.tokens - 1):+10.1f}%")


def fit(corp: dict[str, list[str]]) -> None:
    """Re-derive the per-script rates by non-negative least squares (Latin table fixed)."""
    from scipy.optimize import nnls

    tk.estimate_tokens("warm up")
    p = tk._patterns
    names = ["kanji", "hiragana", "katakana", "fullwidth", "punct_run", "newline_run"]
    fit_on = ["jsquad documents", "jsquad queries", "licences", "stdlib docstrings"]
    rows, rhs = [], []
    for name in fit_on:
        texts = corp[name]
        exact = np.array(tk.count_tokens(texts, per_text=True, method="tiktoken").per_text)
        feats, fixed = [], []
        for t in texts:
            lat = np.fromiter(map(len, p.latin.findall(t)), dtype=np.int64)
            dig = np.fromiter(map(len, p.digits.findall(t)), dtype=np.int64)
            fixed.append(tk._latin_tokens(lat) + ((dig + 2) // 3).sum()
                         + len(p.spaces.findall(t)))
            feats.append([tk._count(p.han, t), tk._count(p.hira, t), tk._count(p.kata, t),
                          tk._count(p.fw, t), len(p.punct.findall(t)),
                          len(p.newline.findall(t))])
        scale = exact.sum()  # each corpus weighs the same
        rows.append(np.array(feats, float) / scale)
        rhs.append((exact - np.array(fixed)) / scale)
    coef, _ = nnls(np.vstack(rows), np.concatenate(rhs))
    print("\nfitted rates (tokens per unit):")
    for n, c in zip(names, coef):
        print(f"  {n:12s} {c:.3f}   (in use: {tk.RATES[n]})")


def speed() -> None:
    docs, _ = jsquad()
    big = docs * 88  # ~100k documents
    for method in ("tiktoken", "estimate"):
        t0 = time.perf_counter()
        n = tk.count_tokens(big, method=method).tokens
        print(f"{method:9s} {len(big)} texts, {n} tokens in {time.perf_counter() - t0:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fit", action="store_true", help="re-derive the rates")
    ap.add_argument("--speed", action="store_true", help="time 100k documents")
    args = ap.parse_args()
    corp = corpora()
    report(corp)
    if args.fit:
        fit(corp)
    if args.speed:
        speed()


if __name__ == "__main__":
    main()
