"""The service layer: what every client of a remote service (embeddings, rerank, chat) shares.

- :mod:`.urls` — from the base URL a user typed to the URL that is POSTed to;
- :mod:`.failures` — one table from a failed request to its *kind* (wrong key, no such model,
  quota exhausted, rate limited, too long, server error, unreachable, bad reply, refused) and
  the exception of that kind;
- :mod:`.service` — :class:`~.service.Service`: key placement and headers, scrubbing, the
  transport (:mod:`ragdash.services.http`: pooled connections, deadline, reply caps), the retry loop
  (:mod:`ragdash.services.retry`), the final error;
- :mod:`.chat` — :class:`~.chat.ChatClient`, chat completions (an LLM judge, a query
  generator).

A client keeps only what differs: planning its batches, its request body, parsing its reply.
``docs/services.md`` has the table and the exit codes.
"""
