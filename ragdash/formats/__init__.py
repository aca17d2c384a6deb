"""File formats read at the byte level, vectorized: one home for the TREC and qrels readers.

- :mod:`.words`: splitting a whole file into whitespace-separated words as numpy arrays
  (trec_eval's ASCII whitespace), with "not sure" answers so a caller can fall back to a
  reader that names the line;
- :mod:`.trec_run`: TREC run files as columns (:class:`ragdash.Ranking` reads through it, so
  the app's run import and ``ragdash score`` share it);
- :mod:`.qrels`: plain TREC / BEIR qrels (``ragdash score``'s fast path; anything it is unsure
  about goes to :func:`ragdash.loaders.load_qrels`, which names the file and line);
- :mod:`.files`: only regular files are opened (a FIFO or a device is refused in words).
- :mod:`.limits`: the ``RAGDASH_MAX_*`` limits on what is read (lines, run files, zips, JSON).

This package imports numpy and :mod:`ragdash.errors` only.
"""
