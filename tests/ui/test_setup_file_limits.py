"""AppTest: the Run page and what a setup file or the name field can carry (issue 31, items
9, 11, 12). A setup nested thousands deep was a traceback on the page (with the server's
paths); a name with ESC or BEL, or of a hundred megabytes, was taken as the run's name."""

from __future__ import annotations

from app_support import new_app, open_page, open_sample, plain, wait_for_jobs

from ragdash.runs import get_store

DEPTH = 5000


def _upload(at, name: str, text: str):
    at.file_uploader(key="run_setup_file").set_value(
        [(name, text.encode("utf-8"), "application/toml")]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _page_text(at) -> str:
    return "\n".join(str(e.value) for kind in ("error", "warning", "success", "markdown",
                                               "caption", "info") for e in getattr(at, kind))


def test_a_setup_nested_thousands_deep_is_one_sentence_on_the_run_page():
    at = open_sample(new_app())
    open_page(at, "run")
    _upload(at, "deep.toml", 'name = "x"\nk = ' + "[" * DEPTH + "]" * DEPTH + "\n")
    (error,) = at.error
    said = plain(error.value)
    assert said.startswith("deep.toml: the file nests tables or lists more than 16 levels deep")
    assert "Traceback" not in _page_text(at) and "site-packages" not in _page_text(at)
    assert at.radio(key="w:rd_retriever").value == "bm25"  # the form is as it was


def test_a_setup_files_name_with_control_characters_is_refused_escaped():
    at = open_sample(new_app())
    open_page(at, "run")
    _upload(at, "esc.toml", 'name = "red\\u001b[31m bell\\u0007"\n')
    (error,) = at.error
    said = plain(error.value)
    assert "esc.toml" in said and "line 1" in said
    assert "at most 200 characters without control characters" in said
    assert "red\\u001b[31m bell\\u0007" in said
    assert "\x1b" not in _page_text(at) and "\x07" not in _page_text(at)
    assert at.text_input(key="w:rd_run_name").value == ""  # not taken into the form
    _upload(at, "long.toml", 'name = "' + "x" * 300 + '"\n')
    assert "at most 200 characters" in plain(at.error[0].value)


def test_the_name_field_keeps_one_line_of_200_characters_at_most():
    at = open_sample(new_app())
    open_page(at, "run")
    field = at.text_input(key="w:rd_run_name")
    assert field.max_chars == 200  # the browser (and AppTest) stop typing there
    # what a paste can still put in: control characters, dropped from the run's name
    field.input("  my\x1b[31m run\x07 ").run()
    at.button(key="run_start").click().run()
    wait_for_jobs(at)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (saved,) = get_store().list()
    assert saved.name == "my[31m run"
