"""Where the tests find their data: inside the repository, so a fresh clone is enough.

Use as ``from paths import JSQUAD`` (pytest puts tests/ on sys.path).
"""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: JSQuAD validation split in BEIR layout (1,145 documents, 4,442 queries, graded qrels 1-2).
JSQUAD = TESTS / "data" / "jsquad-valid"
