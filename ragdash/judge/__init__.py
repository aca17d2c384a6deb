"""An LLM judge for the gaps in the human labels (``python -m ragdash judge``).

- :mod:`.pool`: the union of the runs' top ``depth`` minus the pairs the human qrels judge.
"""
