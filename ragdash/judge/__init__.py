"""An LLM judge for the gaps in the human labels (``python -m ragdash judge``).

- :mod:`.pool`: the union of the runs' top ``depth``, minus the pairs the human qrels judge.
- :mod:`.prompt`: UMBRELA's relevance prompt (English, Japanese) and the passage's cut.
- :mod:`.answers`: a grade read from a reply, or the reason there is none; never a guess.
- :mod:`.cache`: every answer kept as it arrives (SQLite), so a rerun sends nothing.
- :mod:`.calibration`: the human-labeled sample and the agreement report.
- :mod:`.job`: one job from the pool to the labels, with cost before and after.
"""
