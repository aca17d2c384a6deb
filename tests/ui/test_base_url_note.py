"""The Run page says in one line when the base URL as typed got 404 and its other form
answered (a real embeddings server on 127.0.0.1 that serves at its root only)."""

from app_support import custom_server, new_app, open_sample, texts, wait_for_jobs
from fake_openai import FakeOpenAI


def test_the_finished_banner_says_which_url_answered():
    with FakeOpenAI(only_path="/embeddings") as server:
        root = server.root
        at = custom_server(open_sample(new_app()), root, model="emb-1", key="sk-local").run()
        at.number_input(key="w:rd_query_limit").set_value(3).run()
        at.button(key="run_start").click().run()
        jobs = wait_for_jobs(at)
        at.run()
    assert [j.state for j in jobs] == ["done"]
    assert not at.exception, [e.value for e in at.exception]
    assert (f"{root}/v1/embeddings answered 404 and {root}/embeddings answered, so ragdash "
            f"used {root}/embeddings") in texts(at).replace("`", "")
