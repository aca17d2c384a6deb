"""Default run names: a search in an engine never shares its exact twin's name."""

from ragdash.ui.job_panel import default_run_name


def test_engine_and_ann_runs_say_where_they_searched():
    exact = default_run_name("en", "openai", "m", "ds")
    ann = default_run_name("en", "ann", "m", "ds", {"engine": "milvus", "index": "hnsw"})
    deployed = default_run_name("en", "engine", "m", "ds",
                                {"engine": "qdrant", "collection": "docs"})
    assert (exact, ann, deployed) == ("m on ds", "m (milvus hnsw) on ds", "m (qdrant docs) on ds")
    assert default_run_name("en", "bm25", None, "ds") == "bm25 on ds"
    assert "milvus hnsw" in default_run_name("ja", "ann", "m", "ds",
                                             {"engine": "milvus", "index": "hnsw"})
