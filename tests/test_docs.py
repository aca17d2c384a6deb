"""The README stays honest: its first commands are the two the project promises, and every
command and option of the command line is documented in it."""

from __future__ import annotations

import argparse
import re

import pytest
from paths import ROOT

from ragdash.cli import COMMANDS, build_parser

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _options(name: str) -> list[tuple[str, str]]:
    """(sub-command path, --option) for every long option of one command, sub-commands too."""
    parser = build_parser(only=name)
    found: list[tuple[str, str]] = []

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(sub, f"{path} {sub_name}".strip())
            found.extend((path, o) for o in action.option_strings
                         if o.startswith("--") and o != "--help")

    walk(parser, "")
    return [(path, o) for path, o in found if path.split(" ")[0] == name]


def test_readme_opens_with_the_app_and_the_test_commands():
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    lines = [line for line in first_block.splitlines() if line and not line.startswith("#")]
    assert any("streamlit run app.py" in line for line in lines)
    assert any("pip install -r requirements.txt" in line for line in lines)
    assert any("python -m pytest" in line and "requirements-dev.txt" in line for line in lines)


def test_ci_runs_the_readme_test_command():
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    test_line = next(line for line in first_block.splitlines() if "python -m pytest" in line)
    assert test_line.strip() in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_and_option_is_in_the_readme(command):
    assert f"python -m ragdash {command}" in README
    missing = [f"{path} {option}" for path, option in _options(command) if option not in README]
    assert not missing, f"document these in README.md: {missing}"


def test_the_python_example_runs(tmp_path, monkeypatch):
    """The README's "From Python" block runs as written (in a scratch folder)."""
    section = README.split("## From Python", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})  # our own README
    assert (tmp_path / ".ragdash" / "runs.sqlite").exists()
