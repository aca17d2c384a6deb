"""Which catalog keys the code uses, computed from the source: none missing, none unused, and
none built at run time (a key the code picks at run time comes from a family of literal keys
declared in one place, so this scan sees every key it can produce)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ragdash.i18n import CATALOG

ROOT = Path(__file__).resolve().parents[2]

#: a literal with the shape of a key or message id: "chart.k_axis", "load.no_file"
KEY_SHAPE = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_\-]+)+")
#: ... unless it is a file name
FILE_NAME = re.compile(r".*\.(css|j2|html|sqlite|json|jsonl|txt|csv|tsv|zip|gz|npy|toml|md|py)")
#: the id conventions ragdash.i18n itself applies to an id given literally elsewhere: the
#: message, its fix, the app's wording
ID_FORMS = {"msg.{}", "msg.{}.fix", "{}.app"}


def _sources() -> dict[str, str]:
    files = [*sorted((ROOT / "ragdash").rglob("*.py")), ROOT / "app.py"]
    files += sorted((ROOT / "pages").glob("*.py"))
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in files if p.exists()}


def _prefixes(catalog) -> set[str]:
    """First segments of keys and of message ids (``msg.<id>``)."""
    return ({k.split(".")[0] for k in catalog}
            | {k.split(".")[1] for k in catalog if k.startswith("msg.") and k.count(".") >= 2})


def _key_of(literal: str, catalog) -> str | None:
    if literal in catalog:
        return literal
    if f"msg.{literal}" in catalog:
        return f"msg.{literal}"
    return None


def scan(sources: dict[str, str], catalog) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """(used key -> where, missing key-shaped literal -> where, keys built at run time as
    "path:line: shape")."""
    prefixes = _prefixes(catalog)
    used: dict[str, str] = {}
    missing: dict[str, str] = {}
    built: list[str] = []
    for path, src in sources.items():
        for node in ast.walk(ast.parse(src)):
            where = f"{path}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                s = node.value
                key = _key_of(s, catalog)
                if key:
                    used.setdefault(key, where)
                elif (KEY_SHAPE.fullmatch(s) and s.split(".")[0] in prefixes
                      and not FILE_NAME.fullmatch(s)):
                    missing.setdefault(s, where)
                continue
            lead, shape = None, None
            if isinstance(node, ast.JoinedStr) and node.values:
                first = node.values[0]
                lead = first.value if isinstance(first, ast.Constant) else ""
                shape = "".join(v.value if isinstance(v, ast.Constant) else "{}"
                                for v in node.values)
            elif (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod))
                  and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
                lead = node.left.value
                shape = lead + ("{}" if isinstance(node.op, ast.Add) else "%…")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "format" and isinstance(node.func.value, ast.Constant)
                  and isinstance(node.func.value.value, str)):
                shape = node.func.value.value
                lead = shape.split("{")[0]
            if shape is None or shape in ID_FORMS:
                continue
            if lead and "." in lead and " " not in lead and any(
                    k.startswith(lead) or k.startswith(f"msg.{lead}") for k in catalog):
                built.append(f"{where}: {shape}")
    for key in list(used):  # message() and dataset_error() look these up beside the id
        for suffix in (".fix", ".app"):
            if key + suffix in catalog:
                used.setdefault(key + suffix, f"{used[key]} (beside {key})")
    return used, missing, sorted(built)


def test_no_key_is_built_at_run_time():
    _, _, built = scan(_sources(), CATALOG)
    assert not built, ("keys built at run time (list the family as literal keys in one "
                       "place and pick from it):\n" + "\n".join(built))


def test_every_key_the_code_names_is_in_the_catalog():
    _, missing, _ = scan(_sources(), CATALOG)
    assert not missing, f"keys named in the source but not in the catalog: {missing}"


def test_every_catalog_key_is_used():
    used, _, _ = scan(_sources(), CATALOG)
    assert len(used) > 1000, "the scan found few keys; is it still reading the source?"
    unused = sorted(set(CATALOG) - set(used))
    assert not unused, f"{len(unused)} catalog keys nothing uses: {unused}"


def test_the_scan_sees_what_it_claims_to():
    catalog = {"chart.k_axis": {}, "msg.load.no_file": {}, "msg.load.no_file.fix": {},
               "msg.embed.x": {}, "msg.embed.x.app": {}, "job.stage.ranking": {},
               "col.k": {}, "never.used": {}}
    src = {"m.py": (
        "t('chart.k_axis', lang)\n"
        "raise dataset_error('load.no_file')\n"          # an id: msg.<id>, and its .fix
        "KEYS = {'a': 'job.stage.ranking', 'b': 'job.stage.typo'}\n"
        "t(f'job.stage.{stage}')\n"                        # built at run time
        "text('embed.' + name)\n"                          # built too
        "t('col.{}'.format(c))\n"
        "t(f'msg.{msg_id}')\n"                             # the id convention: allowed
        "open('report.css'); x = 'col.k'\n"
        "f'{name}.json'; f'{n} queries'\n"
        "text('embed.x')\n")}
    used, missing, built = scan(src, catalog)
    assert set(used) == {"chart.k_axis", "msg.load.no_file", "msg.load.no_file.fix",
                         "job.stage.ranking", "col.k", "msg.embed.x", "msg.embed.x.app"}
    assert missing == {"job.stage.typo": "m.py:3"}
    assert [b.split(": ")[1] for b in built] == ["job.stage.{}", "embed.{}", "col.{}"]


def test_every_finding_code_has_its_words():
    """A validation finding's code picks its key from validation.FINDING_KEYS: every code
    the checks give is there."""
    from ragdash.validation import FINDING_KEYS

    codes = set()
    for src in _sources().values():
        for node in ast.walk(ast.parse(src)):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Issue"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                codes.add(node.args[0].value)
    assert len(codes) >= 10, codes
    assert codes <= set(FINDING_KEYS), codes - set(FINDING_KEYS)


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uff00-\uffef]")
#: files whose Japanese is what they read, not what they say: the words a column or a file
#: is recognised by, the sentence ends a chunker cuts at, a judge's refusal and the kana
#: that choose the judge's Japanese prompt
READS_JAPANESE = {"ragdash/loaders/tables.py", "ragdash/loaders/detect.py",
                  "ragdash/retrieval/chunking.py", "ragdash/retrieval/tokenize.py",
                  "ragdash/judge/answers.py", "ragdash/judge/prompt.py",
                  "ragdash/generate/filters.py"}


def _docstrings(tree) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def japanese_outside_the_catalog(sources: dict[str, str]) -> list[str]:
    """``path:line: text`` of each string literal with Japanese in it (docstrings aside)."""
    found = []
    for path, src in sources.items():
        if path.startswith("ragdash/i18n/") or path in READS_JAPANESE:
            continue
        tree = ast.parse(src)
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docs and JAPANESE.search(node.value)):
                found.append(f"{path}:{node.lineno}: {node.value[:40]}")
    return found


def test_every_japanese_sentence_is_in_the_catalog():
    found = japanese_outside_the_catalog(_sources())
    assert not found, "Japanese outside the catalog:\n" + "\n".join(found)
    assert japanese_outside_the_catalog(
        {"m.py": '"""文書"""\ndef f():\n    """説明"""\n    return f"{x}件"\n'}) == ["m.py:4: 件"]
