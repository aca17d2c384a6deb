"""The retry policy now lives in :mod:`ragdash.retry` (shared by every HTTP client).

This name stays so that ``from ragdash.embeddings import retry`` and
``monkeypatch.setattr(retry, "INITIAL_DELAY", ...)`` keep working: the module object is the
very same one, so a patched constant changes the policy everywhere.
"""

import sys

from .. import retry as _retry

sys.modules[__name__] = _retry
