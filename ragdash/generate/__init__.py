"""An evaluation set written from a corpus (``python -m ragdash generate``), checked, and
judged beyond the one source passage.

- :mod:`.corpus`: the corpus and each document's source (file, folder, a ``source`` column).
- :mod:`.sample`: documents drawn with a seed, spread across sources and lengths.
- :mod:`.settings`: the choices and defaults.
- :mod:`.prompt`: the query writer's prompt in the passage's language, style and examples.
- :mod:`.filters`: the checks (one query, language, copied, duplicate), each a counted reason.
- :mod:`.cache`: every reply kept as it arrives, so a rerun with the same seed sends nothing.
- :mod:`.job`: the job — cost before, writing, checks, answerability and pooled judging.
- :mod:`.output`: the BEIR folder with label sources, and the store.
- :mod:`.validate`: the generated set against human queries (Kendall's τ of the run order).
"""

__all__ = ["Corpus", "GenerateJob", "Generated", "generated_source", "read_corpus",
           "read_corpus_sources", "save_generated", "write_generated"]

_LAZY = {"Corpus": ".corpus", "read_corpus": ".corpus", "read_corpus_sources": ".corpus",
         "GenerateJob": ".job", "Generated": ".job", "generated_source": ".job",
         "save_generated": ".output", "write_generated": ".output"}


def __getattr__(name: str):
    """Each part on first use: the command line's parser reads :mod:`.settings` alone."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(name)
