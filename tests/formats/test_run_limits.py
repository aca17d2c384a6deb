"""Hostile run files meet the reading limits (``RAGDASH_MAX_LINE_MB``, ``RAGDASH_MAX_RUN_MB``)
while they are read, in one sentence, in ``score``, ``compare``, ``fuse`` and the app's run
import: a file of NULs is refused at its first block, a line with no end at the line limit,
and a long id under the limit is read in time linear in its size."""

from __future__ import annotations

import pytest

from ragdash import Dataset, DatasetError, Document, Query, Ranking
from ragdash.cli import main
from ragdash.runs.exchange import run_from_trec


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\n", encoding="utf-8")
    return path


@pytest.fixture
def nul_run(tmp_path):
    """A 2 GB sparse file of NULs: nothing on disk, 2 GB to whoever reads it all."""
    path = tmp_path / "nul.txt"
    with path.open("wb") as f:
        f.truncate(2 << 30)
    return path


def cli(capsys, *args) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", ["score", "compare", "fuse"])
def test_a_sparse_file_of_nuls_is_refused_at_once(command, qrels, nul_run, tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n", encoding="utf-8")
    args = {"score": ["score", qrels, nul_run],
            "compare": ["compare", qrels, good, nul_run],
            "fuse": ["fuse", qrels, good, nul_run]}[command]
    code, err = cli(capsys, *args)
    assert code == 2
    assert f"{nul_run}, line 1: the line contains a NUL byte" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_line_with_no_end_stops_at_the_line_limit(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "1")
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 1 t\nq1 Q0 " + b"x" * (3 << 20))  # a 3 MB id, no line feed
    with pytest.raises(DatasetError, match=r"line 2: this line is longer than 1\.0 MB") as err:
        Ranking.read_trec(path)
    assert "RAGDASH_MAX_LINE_MB=4" in str(err.value)
    with pytest.raises(DatasetError, match=r"line 2: this line is longer than 1\.0 MB"):
        Ranking.parse_trec(path.read_bytes())


def test_a_line_over_the_limit_inside_a_block_is_named(monkeypatch):
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "0.0001")  # 104 bytes
    text = "q1 Q0 d1 1 1 t\n" * 3 + f"q1 Q0 {'y' * 200} 1 1 t\n" + "q2 Q0 d 1 1 t\n"
    with pytest.raises(DatasetError, match="line 4: this line is longer than"):
        Ranking.parse_trec(text)


def test_a_long_id_under_the_limit_is_read(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "8")
    long_id = "z" * (5 << 20)
    path = tmp_path / "run.txt"
    lines = [f"q{i % 50} Q0 d{i} 1 {i % 9} t\n" for i in range(20_000)]
    lines.insert(7, f"q7 Q0 {long_id} 1 3.5 t\n")
    path.write_text("".join(lines), encoding="utf-8")
    r = Ranking.read_trec(path)
    assert r.to_dict()["q7"][long_id] == 3.5
    assert sum(len(r.get(q)[0]) for q in r.query_ids) == 20_001


def test_the_run_size_limit(monkeypatch, tmp_path, qrels, capsys):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 1 t\n" * 200, encoding="utf-8")  # 3,000 bytes
    monkeypatch.setenv("RAGDASH_MAX_RUN_MB", "0.001")
    code, err = cli(capsys, "score", qrels, path)
    assert code == 2
    assert "over the limit of 0.0 MB for a run file" in err and "RAGDASH_MAX_RUN_MB=1" in err
    with pytest.raises(DatasetError, match="for a run file"):
        Ranking.parse_trec(path.read_bytes())
    monkeypatch.setenv("RAGDASH_MAX_RUN_MB", "many")
    code, err = cli(capsys, "score", qrels, path)
    assert code == 2 and "RAGDASH_MAX_RUN_MB='many' is not a number of megabytes" in err


@pytest.mark.parametrize("raw, problem", [
    (b"q1 Q0 d1 1 1 t\n" + b"\0" * (8 << 20), "line 2: the line contains a NUL byte"),
    (b"q1 Q0 d1 1 1 t\nq1 Q0 " + b"x" * (2 << 20), "line 2: this line is longer than 1.0 MB"),
])
def test_the_apps_run_import_meets_the_same_limits(monkeypatch, raw, problem):
    # the Compare page's upload: the file's bytes, already in memory
    monkeypatch.setenv("RAGDASH_MAX_LINE_MB", "1")
    dataset = Dataset([Document("d1", "a"), Document("d2", "b")], [Query("q1", "x")],
                      {"q1": {"d1": 1}}, name="tiny", source="test")
    with pytest.raises(DatasetError, match=problem) as err:
        run_from_trec(raw, dataset=dataset, filename="upload.trec")
    assert str(err.value).startswith("upload.trec, line 2")
