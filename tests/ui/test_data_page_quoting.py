"""AppTest: MS MARCO-style tab-separated files whose texts hold stray quotes, uploaded on
the Data page, keep one row per line, and the page says which lines quoting would merge."""

from __future__ import annotations

from app_support import new_app, open_page, upload_files

from ragdash.ui import keys

CORPUS = ('id\ttext\nd1\tplain passage\nd2\t"Quoted start of a passage\nd3\tmiddle passage\n'
          'd4\tends with a quote"\n')
QUERIES = 'id\ttext\nq1\t"what is\nq2\tthe thing"\nq3\tthird question\n'
QRELS = "q1\td1\t1\nq2\td3\t1\nq3\td4\t1\n"


def test_stray_quotes_keep_every_row_and_the_page_says_why():
    at = upload_files(open_page(new_app(), "data"),
                      [("corpus.tsv", CORPUS), ("queries.tsv", QUERIES), ("qrels.tsv", QRELS)])
    ds = at.session_state[keys.DATASET]
    assert len(ds.documents) == 4 and len(ds.queries) == 3 and len(ds.qrels) == 3
    shown = "\n".join(w.value.replace("\\", "") for w in [*at.warning, *at.markdown])
    assert "corpus.tsv: a cell starting with \" on line 3" in shown, shown
    assert "to line 5" in shown and "4 rows, one per line" in shown
    assert "queries.tsv" in shown and "judgements name documents not in the corpus" not in shown
