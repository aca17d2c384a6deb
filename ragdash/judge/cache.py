"""The judge's answer cache: one SQLite file, ``$RAGDASH_HOME/judge.sqlite``.

An answer is stored under (endpoint, model, prompt version, sha256 of the query, sha256 of the
passage as the judge saw it): the endpoint's base URL as shown to users (no user:password, no
query string), the model name as sent, :data:`ragdash.judge.prompt.PROMPT_VERSION`, and the
digests of the two texts. What is stored is the grade (0–3) — never the reply's text — with
the tokens the API reported and when it answered.

Only grades are stored: an answer that could not be read as a grade (a refusal, a cut reply,
text without a grade, a server error) is asked again by the next run, so a fixed server or a
reader that reads more is not met by a stale failure. Rows without a grade that older
versions wrote are not read (:meth:`JudgeCache.get_many` skips them).

Every grade is committed as soon as it arrives, so a killed run loses at most the requests in
flight and the next run pays only for what is missing; a rerun of a fully graded job sends
nothing. WAL mode and a
busy timeout let two processes share the file (the file handling is
:class:`ragdash.embeddings.cache.CacheFile`'s). The API key is never part of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ..embeddings.cache import CacheFile, text_hash, text_hashes

FILENAME = "judge.sqlite"
_CHUNK = 400  # key pairs per statement: 2 parameters each, under old SQLite's 999

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    endpoint          TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_version    TEXT NOT NULL,
    query_sha256      BLOB NOT NULL,
    doc_sha256        BLOB NOT NULL,
    grade             INTEGER,          -- 0..3 (NULL only in rows of older versions: not read)
    reason            TEXT,             -- unused now (older versions: why no grade)
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    answered_at       TEXT NOT NULL,
    PRIMARY KEY (endpoint, model, prompt_version, query_sha256, doc_sha256)
) WITHOUT ROWID;
"""

__all__ = ["FILENAME", "Answer", "JudgeCache", "text_hash", "text_hashes"]


@dataclass(frozen=True)
class Answer:
    """One pair's answer: a grade, or the reason there is none."""

    grade: int | None
    reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    answered_at: str = ""


class JudgeCache(CacheFile):
    FILENAME = FILENAME
    SCHEMA = _SCHEMA
    TABLE = "answers"
    LABEL = "judge cache"

    def get_many(self, endpoint: str, model: str, version: str,
                 keys: Sequence[tuple[bytes, bytes]]) -> dict[tuple[bytes, bytes], Answer]:
        """The cached grades among ``keys`` ((query digest, passage digest) pairs)."""
        found: dict[tuple[bytes, bytes], Answer] = {}
        if not keys or (self._conn is None and not self.path.exists()):
            return found
        unique = list(dict.fromkeys(keys))
        with self._connect() as conn:
            for lo in range(0, len(unique), _CHUNK):
                chunk = unique[lo: lo + _CHUNK]
                where = " OR ".join(["(query_sha256=? AND doc_sha256=?)"] * len(chunk))
                rows = conn.execute(
                    "SELECT query_sha256, doc_sha256, grade, reason, prompt_tokens, "
                    "completion_tokens, answered_at FROM answers WHERE endpoint=? AND "
                    f"model=? AND prompt_version=? AND grade IS NOT NULL AND ({where})",
                    (endpoint, model, version, *(h for pair in chunk for h in pair)))
                for q, d, grade, reason, pt, ct, at in rows:
                    found[(bytes(q), bytes(d))] = Answer(grade, reason, pt, ct, at)
        return found

    def put(self, endpoint: str, model: str, version: str, key: tuple[bytes, bytes],
            answer: Answer) -> None:
        """Store one graded answer (committed before this returns); an answer without a
        grade is not stored."""
        if answer.grade is None:
            return
        at = answer.answered_at or datetime.now(UTC).isoformat(timespec="seconds")
        with self._connect() as conn:
            conn.execute("INSERT OR REPLACE INTO answers VALUES (?,?,?,?,?,?,?,?,?,?)",
                         (endpoint, model, version, key[0], key[1], answer.grade,
                          answer.reason, answer.prompt_tokens, answer.completion_tokens, at))

    def info(self) -> dict:
        """Path, bytes on disk, answers in all and per model and prompt version."""
        return self.grouped_info(
            "SELECT endpoint, model, prompt_version, COUNT(*), COUNT(grade) FROM answers "
            "GROUP BY endpoint, model, prompt_version ORDER BY model",
            lambda r: {"model": r[1], "base_url": r[0], "prompt_version": r[2], "rows": r[3],
                       "graded": r[4]})
