"""Setup files and flags that ask for too much, or carry control characters (issue 31, items
9, 11, 12): each is one sentence and exit 2 — never a traceback, never a raw ESC or BEL on
the terminal, never a name of a hundred megabytes echoed or stored."""

from __future__ import annotations

import pytest

from ragdash.cli import main
from ragdash.samples import sample_path

SAMPLE = sample_path("jsquad-mini")
DEPTH = 5000  # Python's recursion limit is 1,000: the TOML reader and the checks hit it


def fails(capsys, *args) -> str:
    code = main(list(map(str, args)))
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and "\x1b" not in err and "\x07" not in err
    return lines[0]


def write(tmp_path, text: str, name: str = "setup.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("body", [
    "k = " + "[" * DEPTH + "]" * DEPTH + "\n",
    "x = " + "{a = " * DEPTH + "1" + "}" * DEPTH + "\n",
    "[" + ".".join(["a"] * DEPTH) + "]\nb = 1\n",
    "[retriever]\nx = " + "[" * 17 + "1" + "]" * 17 + "\n",  # deep, within the recursion limit
], ids=["lists", "inline-tables", "dotted-header", "17-levels"])
def test_a_setup_nested_thousands_deep_is_one_sentence(tmp_path, capsys, body):
    """It was a RecursionError traceback, exit 1."""
    path = write(tmp_path, 'name = "x"\n' + body)
    said = fails(capsys, "run", path)
    assert str(path) in said and "more than 16 levels deep" in said
    said = fails(capsys, "check", SAMPLE / "qrels" / "test.tsv", path, path)
    assert "more than 16 levels deep" in said


def test_a_setup_file_of_megabytes_is_refused_before_it_is_read(tmp_path, capsys):
    path = write(tmp_path, 'name = "' + "x" * 2_000_000 + '"\n')
    said = fails(capsys, "run", path)
    assert "2,000,010 characters, more than the 1,000,000" in said


@pytest.mark.parametrize("name, shown", [
    ("x" * 201, '"' + "x" * 80 + '…"'),
    ("red\x1b[31m alert\x07", '"red\\u001b[31m alert\\u0007"'),
    ("two\nlines", '"two\\nlines"'),
    ("csi\x9b2J", '"csi\\x9b2J"'),  # C1: json.dumps leaves it raw; a terminal reads CSI
], ids=["201-chars", "esc-bel", "line-break", "c1"])
def test_a_run_name_too_long_or_with_control_characters_is_refused(tmp_path, capsys, name,
                                                                     shown):
    """A 100 MB name was accepted and echoed; ESC and BEL reached the terminal raw and were
    stored as the run's name."""
    toml_name = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\x1b", "\\u001b") \
        .replace("\x07", "\\u0007").replace("\x9b", "\\u009b")
    path = write(tmp_path, f'dataset = "{SAMPLE.as_posix()}"\nname = "{toml_name}"\n')
    said = fails(capsys, "run", path, "--store")
    assert said.startswith(f"error: {path}, line 2: name in the top level must be one line "
                           "of at most 200 characters without control characters")
    assert said.endswith(f"not {shown}.")
    said = fails(capsys, "evaluate", SAMPLE, "--store", "--name", name)
    assert said == ("error: --name must be one line of at most 200 characters without control "
                    f"characters (ESC, BEL, line breaks), not {shown}")


def test_a_name_of_200_characters_is_kept_whole(tmp_path, capsys):
    import json

    name = "n" * 200
    assert main(["evaluate", str(SAMPLE), "--store", "--name", name, "--format", "json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    from ragdash.runs import get_store

    assert get_store().load(run_id).name == name


@pytest.mark.parametrize("command", [["fuse", "a", "b"], ["rerank", "a", "b"], ["sweep", "a"]],
                         ids=["fuse", "rerank", "sweep"])
def test_every_name_flag_takes_the_same_rule(tmp_path, capsys, command):
    """Said before anything is read or sent."""
    said = fails(capsys, *command, "--name", "bad\x1bname")
    assert said.startswith("error: --name must be one line of at most 200 characters")
    assert "bad\\u001bname" in said


def test_a_key_with_control_characters_or_megabytes_long_is_named_escaped(tmp_path, capsys):
    path = write(tmp_path, 'name = "x"\n[retriever]\n"k\\u001b[2J\\u0007" = 1\n')
    said = fails(capsys, "run", path)
    assert "unknown key k\\x1b[2J\\x07 in [retriever]" in said
    path = write(tmp_path, '"' + "k" * 500_000 + '" = 1\n')
    said = fails(capsys, "run", path)
    assert "unknown key " + "k" * 80 + "… in the top level" in said and len(said) < 1000


def test_a_table_name_with_control_characters_is_named_escaped(tmp_path, capsys):
    path = write(tmp_path, '[retriever."\\u001b]0;pwned\\u0007"]\nx = 1\n')
    said = fails(capsys, "run", path)
    assert "\\x1b]0;pwned\\x07" in said


def test_a_rename_keeps_one_line_of_200_characters(capsys):
    import json

    from ragdash.runs import get_store

    assert main(["evaluate", str(SAMPLE), "--store", "--format", "json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    store = get_store()
    store.rename(run_id, " new\x1b[2J name\x07" + "y" * 300)
    name = store.load(run_id).name
    assert name == ("new[2J name" + "y" * 300)[:200] and len(name) == 200
