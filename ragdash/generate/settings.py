"""The generator's choices and defaults, in one light module (the command line's parser reads
them without importing the job)."""

from __future__ import annotations

#: how the queries are written: a natural question, a keyword query, or one of the two per
#: document drawn with the seed
STYLES = ("question", "keyword", "mixed")
#: the queries' language: the passage's (kana → Japanese, else English), or forced
LANGUAGES = ("auto", "ja", "en")
#: documents to write a query from
DEFAULT_N = 100
#: tokens of one passage cut from a text file (.txt, .md): each passage is a document
DEFAULT_CHUNK_TOKENS = 256
#: tokens of a passage shown to the writer; a longer document shows one chunk of it
DEFAULT_PASSAGE_TOKENS = 512
#: the judge's pool depth: the top 10 of each retriever
DEFAULT_DEPTH = 10
#: the most tokens a reply may take (one query; longer is cut and dropped)
DEFAULT_MAX_TOKENS = 120
