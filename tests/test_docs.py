"""The docs stay honest: the README opens with the two commands the project promises (the test
one exactly as CI runs it); the generated pages (docs/cli.md, docs/setup-file.md) are current;
every relative link in README.md and docs/*.md resolves, anchors included; every ragdash command
shown in a code block runs ``--help``, and every flag it uses is one that command has."""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import re
import shlex
import unicodedata
from pathlib import Path

import pytest
from paths import ROOT

from ragdash.cli import build_parser
from ragdash.cli import main as cli_main
from ragdash.cli import reference as cli_reference
from ragdash.setup import reference as setup_reference

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
CODE = re.compile(r"^ {0,3}```[^\n]*\n(.*?)^ {0,3}```", re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _first_bash_block(text: str) -> list[str]:
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


# --- the README's first commands ---------------------------------------------------------------

def test_readme_opens_with_the_app_and_the_test_commands():
    lines = _first_bash_block(_read(README))
    assert any("streamlit run app.py" in line for line in lines)
    assert any("pip install -r requirements.txt" in line for line in lines)
    assert any("python -m pytest" in line and "requirements-dev.txt" in line for line in lines)


def test_ci_runs_the_readme_test_command():
    lines = _first_bash_block(_read(README))
    test_line = next(line for line in lines if "python -m pytest" in line)
    assert test_line.strip() in _read(ROOT / ".ci" / "run")


def test_the_readme_stays_short():
    """The manual lives in docs/; the README is what a newcomer reads first."""
    lines = len(_read(README).splitlines())
    assert lines <= 260, f"README.md has {lines} lines: move the detail to docs/<topic>.md"


def test_the_python_example_runs(tmp_path, monkeypatch):
    """docs/python-api.md's first example runs as written (in a scratch folder)."""
    code = re.search(r"```python\n(.*?)```", _read(ROOT / "docs" / "python-api.md"), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/python-api.md", "exec"), {})  # our own docs
    assert (tmp_path / ".ragdash" / "runs.sqlite").exists()


# --- generated pages ---------------------------------------------------------------------------

GENERATED = {
    "docs/cli.md": (cli_reference, "python -m ragdash.cli.reference"),
    "docs/setup-file.md": (setup_reference, "python -m ragdash.setup.reference"),
}


@pytest.mark.parametrize("page", GENERATED)
def test_the_generated_pages_are_current(page):
    module, command = GENERATED[page]
    assert _read(ROOT / page) == module.reference(), f"{page} is not current: run {command}"


def test_the_cli_reference_check_fails_on_a_stale_page(tmp_path, capsys):
    stale = tmp_path / "cli.md"
    stale.write_text(cli_reference.reference().replace("`--chunk-size`", "`--chunk-sise`"),
                     encoding="utf-8")
    assert cli_reference.main([str(stale), "--check"]) == 1
    assert "python -m ragdash.cli.reference" in capsys.readouterr().err
    assert cli_reference.main([str(stale)]) == 0
    assert cli_reference.main([str(stale), "--check"]) == 0


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


def test_the_cli_reference_has_every_command_and_flag():
    page = cli_reference.reference()
    for path, parser in _walk(build_parser()):
        if path:
            assert f"`python -m ragdash {' '.join(path)}`" in page, path
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert f"`{option}`" in page, (path, option)


# --- links -------------------------------------------------------------------------------------

def _without_code(text: str) -> str:
    return re.sub(r"`[^`\n]*`", "", CODE.sub("", text))


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for
    repeats."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in CODE.sub("", _read(path)).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        words = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).lower()
        slug = "".join(c for c in words if c in " -_" or unicodedata.category(c)[0] in "LN")
        slug = slug.replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for target in LINK.findall(_without_code(_read(page))):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                found.append((str(page.relative_to(ROOT)), target))
    return found


def test_the_docs_have_links_to_check():
    targets = {t for _, t in _links()}
    assert any(t.startswith("docs/") for t in targets) and any("#" in t for t in targets)


@pytest.mark.parametrize(("page", "target"), _links())
def test_every_relative_link_resolves(page, target):
    file, _, anchor = target.partition("#")
    source = ROOT / page
    dest = (source.parent / file).resolve() if file else source
    assert dest.exists(), f"{page}: link to {target}: no such file"
    if anchor and dest.suffix == ".md":
        assert anchor in _anchors(dest), (
            f"{page}: link to {target}: {dest.name} has no heading with that anchor")


def test_the_anchor_rule_is_githubs(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Choosing a setup: sweeps and the frontier\n"
                    "## `python -m ragdash cache info`\n## 日本語 (ja)\n## Notes\n## Notes\n"
                    "```\n# a comment, not a heading\n```\n", encoding="utf-8")
    assert _anchors(page) == {"choosing-a-setup-sweeps-and-the-frontier",
                              "python--m-ragdash-cache-info", "日本語-ja", "notes", "notes-1"}


# --- commands shown in code blocks -------------------------------------------------------------

SHELL_STOP = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1", "&"}
ENTRY = re.compile(r"(?:^|(?<=\s))(?:python3? -m ragdash|ragdash)(?=\s|$)")


def _command_lines() -> list[tuple[str, str]]:
    """(page, the command line from ``ragdash`` on) for every ragdash command in a code block."""
    found = []
    for page in PAGES:
        for block in CODE.findall(_read(page)):
            for line in re.sub(r"\\\n\s*", " ", block).splitlines():
                line = line.strip().removeprefix("$ ")
                m = ENTRY.search(line)
                if not m:
                    continue
                before = line[:m.start()].split()
                bare = not m.group(0).startswith("python")
                if bare and not all(re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", w) for w in before):
                    continue  # "ragdash" inside a sentence or an output line
                found.append((str(page.relative_to(ROOT)), line[m.end():]))
    return found


@functools.cache
def _parsers() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command's parser by its path: () the top level, ('cache', 'info') a sub-command."""
    return dict(_walk(build_parser()))


def _parse(rest: str) -> tuple[list[str], list[str]] | None:
    """(the command path, e.g. ['cache', 'info'], the options used) or None for a line that
    names no command (`python -m ragdash --lang ja <command> …`, a prose mention)."""
    try:
        words = shlex.split(rest, comments=True)
    except ValueError:
        words = rest.split()
    words = words[:next((i for i, w in enumerate(words) if w in SHELL_STOP), len(words))]
    paths = _parsers()
    path: list[str] = []
    options: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("--"):
            options.append(word.split("=", 1)[0])
            skip = not path and word == "--lang"
        elif not path:
            if not re.fullmatch(r"[a-z][a-z-]*", word):
                return None  # a placeholder: <command>
            path.append(word)
        elif (*path, word) in paths:
            path.append(word)  # a sub-command: cache info
    return (path, options) if path else None


@functools.cache
def _commands() -> list[tuple[str, str]]:
    out = []
    for page, rest in _command_lines():
        parsed = _parse(rest)
        if parsed:
            out.append((page, rest))
    return out


def test_the_docs_show_commands():
    shown = {tuple(_parse(rest)[0]) for _, rest in _commands()}
    assert ("evaluate",) in shown and ("cache", "info") in shown, shown


@pytest.mark.parametrize("path", sorted({tuple(_parse(rest)[0]) for _, rest in _commands()}),
                         ids=" ".join)
def test_every_command_shown_runs_help(path, capsys):
    with pytest.raises(SystemExit) as stop:
        cli_main([*path, "--help"])
    assert stop.value.code == 0, capsys.readouterr().err
    assert f"python -m ragdash {' '.join(path)}" in capsys.readouterr().out


def test_every_flag_shown_is_one_the_command_has():
    parsers = _parsers()
    wrong = []
    for page, rest in _commands():
        path, options = _parse(rest)
        known = set(parsers[()]._option_string_actions)
        for depth in range(1, len(path) + 1):
            known |= set(parsers.get(tuple(path[:depth]), parsers[()])._option_string_actions)
        wrong += [f"{page}: ragdash {' '.join(path)} {o}" for o in options if o not in known]
    assert not wrong, "flags the command does not have:\n" + "\n".join(wrong)


def test_every_module_and_script_shown_exists():
    missing = []
    for page in PAGES:
        for block in CODE.findall(_read(page)):
            for module in re.findall(r"python3? -m (ragdash(?:\.\w+)+)", block):
                if importlib.util.find_spec(module) is None:
                    missing.append(f"{page.name}: {module}")
            for script in re.findall(r"python3? ((?:bench|scripts)/[\w/]+\.py)", block):
                if not (ROOT / script).exists():
                    missing.append(f"{page.name}: {script}")
    assert not missing, missing


def test_the_reference_modules_shown_run_help(capsys):
    for name in ("ragdash.cli.reference", "ragdash.setup.reference"):
        with pytest.raises(SystemExit) as stop:
            importlib.import_module(name).main(["--help"])
        assert stop.value.code == 0
        assert "--check" in capsys.readouterr().out


def test_the_design_page_names_every_layer():
    """docs/design.md maps the layers that pyproject.toml's import contract declares."""
    import tomllib

    config = tomllib.loads(_read(ROOT / "pyproject.toml"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    names = {n.strip() for layer in contract["layers"] for n in re.split(r"[:|]", layer)}
    design = _read(ROOT / "docs" / "design.md")
    missing = sorted(n for n in names if f"`{n}`" not in design)
    assert not missing, f"add these layers to docs/design.md's table: {missing}"
