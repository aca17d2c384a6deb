"""The query writer's reply cache: one SQLite file, ``$RAGDASH_HOME/generate.sqlite``.

A reply is stored under (endpoint, model, prompt version, sha256 of the whole prompt): the
endpoint's base URL as shown to users, the model name as sent, the version of
:mod:`ragdash.generate.prompt`, and the digest of the prompt text (passage, style, language
and examples are all in it). What is stored is the reply's text (the query as written — the
product itself, before any check), with the tokens the API reported; every run reads it again
with the current checks (:mod:`ragdash.generate.filters`), so a check that reads more keeps
more. A request that got no answer (a server error, a refusal, a cut or empty reply) is not
stored, so the next run — against a fixed server — asks again; rows without a reply that
older versions wrote are not read. A rerun with the same seed builds the same prompts and
sends nothing for what was answered. The API key is never part of it. File handling:
:class:`ragdash.embeddings.cache.CacheFile`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ..embeddings.cache import CacheFile, text_hashes

FILENAME = "generate.sqlite"
_CHUNK = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    endpoint          TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_version    TEXT NOT NULL,
    prompt_sha256     BLOB NOT NULL,
    reply             TEXT,             -- the reply's text (NULL only in older rows: not read)
    failure           TEXT,             -- unused now (older versions: the failure's kind)
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    answered_at       TEXT NOT NULL,
    PRIMARY KEY (endpoint, model, prompt_version, prompt_sha256)
) WITHOUT ROWID;
"""

__all__ = ["FILENAME", "GenerateCache", "Reply", "text_hashes"]


@dataclass(frozen=True)
class Reply:
    """One prompt's answer: the reply text, or the kind of failure there was."""

    text: str | None
    failure: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class GenerateCache(CacheFile):
    FILENAME = FILENAME
    SCHEMA = _SCHEMA
    TABLE = "replies"
    LABEL = "query writer cache"

    def get_many(self, endpoint: str, model: str, version: str,
                 keys: Sequence[bytes]) -> dict[bytes, Reply]:
        found: dict[bytes, Reply] = {}
        if not keys or (self._conn is None and not self.path.exists()):
            return found
        unique = list(dict.fromkeys(keys))
        with self._connect() as conn:
            for lo in range(0, len(unique), _CHUNK):
                chunk = unique[lo:lo + _CHUNK]
                rows = conn.execute(
                    "SELECT prompt_sha256, reply, failure, prompt_tokens, completion_tokens "
                    "FROM replies WHERE endpoint=? AND model=? AND prompt_version=? AND "
                    "reply IS NOT NULL AND "
                    f"prompt_sha256 IN ({','.join('?' * len(chunk))})",
                    (endpoint, model, version, *chunk))
                for key, reply, failure, pt, ct in rows:
                    found[bytes(key)] = Reply(reply, failure, pt, ct)
        return found

    def put(self, endpoint: str, model: str, version: str, key: bytes, reply: Reply) -> None:
        """Store one reply (committed before this returns); a failure (no text) is not
        stored."""
        if reply.text is None:
            return
        at = datetime.now(UTC).isoformat(timespec="seconds")
        with self._connect() as conn:
            conn.execute("INSERT OR REPLACE INTO replies VALUES (?,?,?,?,?,?,?,?,?)",
                         (endpoint, model, version, key, reply.text, reply.failure,
                          reply.prompt_tokens, reply.completion_tokens, at))
