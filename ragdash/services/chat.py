"""A chat-completions client (OpenAI, Azure OpenAI, vLLM, Ollama, LiteLLM, …) on the service
layer: ``POST {base}/chat/completions``.

API (for an LLM judge, a query generator, …)::

    from ragdash.services.chat import ChatClient, ChatRequest, ChatReply, ChatFailure

    client = ChatClient(base_url, model, api_key=key, concurrency=4, timeout=120.0)
    result = client.complete([{"role": "user", "content": "…"}],
                             temperature=0.0, max_tokens=256)
    if result.ok:                      # a ChatReply
        result.text, result.finish_reason, result.prompt_tokens, result.completion_tokens
    else:                              # a ChatFailure: count it, never a crash
        result.kind                    # "refusal" | "length" | "empty" | "html" | "bad_reply"
                                       # | "too_long" | "server" | "refused"
        result.message                 # one sentence (a Text: message(result.message, "ja"))

    results = client.complete_many(
        [ChatRequest(messages, temperature=0.0, max_tokens=256), ...],
        on_result=lambda i, result: cache.put(keys[i], result),  # in the calling thread,
        cancel=event, progress=lambda p: ...)                    # as each answer arrives
    client.usage            # requests, retries, prompt_tokens, completion_tokens, failures
    client.close()

- ``base_url`` follows :mod:`ragdash.services.urls` (``http://localhost:11434/v1``, a bare
  host gets ``/v1``, a URL ending in ``/chat/completions`` is the endpoint itself; Azure hosts
  send the key in ``api-key``). ``api_key_header`` names any other header.
- Up to ``concurrency`` requests are in flight. ``on_result(index, result)`` runs in the
  calling thread for every request as soon as its answer is in, so the caller can cache it.
- Retries follow :mod:`ragdash.services.retry`: timeouts, dropped connections, 408/409/429/5xx with
  the server's ``Retry-After`` honoured; a 2xx body that is not JSON (an HTML page) is asked
  again once at most.
- A failure of the whole service — wrong key, no such model, quota exhausted, still rate
  limited after every retry, unreachable — stops everything: no new request starts, those in
  flight finish and reach ``on_result``, then one :class:`~ragdash.errors.ChatError` of that
  kind is raised (``AuthenticationError``, ``NotFoundError``, ``QuotaExceededError``,
  ``RateLimitedError``, ``ServerUnreachableError``), one sentence with a ``chat.*`` id.
  ``Cancelled`` when ``cancel`` was set before every request was done.
- Replies are read up to ``max_reply_bytes`` (decoded); a larger one is a ``bad_reply``.
- The key is sent only in a header and scrubbed from anything the server says back.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import CHAT_ERRORS, Cancelled, RetrievalError, ServiceError
from ..i18n import Text, error, text
from . import failures as fk
from .failures import Failure
from .pool import run_parallel
from .retry import MAX_RETRIES
from .service import Service, Spec, reported_count
from .urls import moved_to, resolve_endpoint, typed_form

#: decoded bytes a reply may take unless told otherwise (a long answer is ~100 KB)
DEFAULT_MAX_REPLY_BYTES = 2 * 1024 * 1024
#: the service's path under the base URL
CHAT_PATH = "chat/completions"
#: what a chat message's role may be
ROLES = frozenset({"system", "user", "assistant", "developer", "tool"})

#: failure kinds of the whole service: they stop every request
STOP_KINDS = frozenset({fk.AUTH, fk.NOT_FOUND, fk.QUOTA, fk.RATE_LIMITED, fk.UNREACHABLE})
#: kinds of a :class:`ChatFailure` (one request that got no usable answer)
ITEM_KINDS = ("refusal", "length", "empty", "html", "bad_reply", "too_long", "server",
              "refused")

SPEC = Spec("chat", CHAT_ERRORS, fk.messages("chat"))

#: the sentence of each kind of one failed request
_ITEM_MESSAGES = {"refusal": "chat.item.refusal", "length": "chat.item.length",
                  "empty": "chat.item.empty", "html": "chat.item.html"}


@dataclass(frozen=True)
class ChatRequest:
    """One completion to ask for."""

    messages: Sequence[Mapping[str, str]]
    temperature: float = 0.0
    max_tokens: int | None = None
    extra: Mapping[str, object] = field(default_factory=dict)  #: more body fields (seed, …)


@dataclass(frozen=True)
class ChatReply:
    """An answer: the reply text and what the server reported."""

    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    model: str | None = None
    ok = True

    @property
    def usage(self) -> dict:
        return {"prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


@dataclass(frozen=True)
class ChatFailure:
    """A request that got no usable answer (see :data:`ITEM_KINDS`); ``text`` holds what the
    server did send (the cut answer of a ``length``)."""

    kind: str
    message: str
    text: str = ""
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    ok = False


ChatResult = ChatReply | ChatFailure
ResultFn = Callable[[int, ChatResult], None]


class ChatClient:
    """Completions from an OpenAI-compatible ``/chat/completions`` endpoint (module docstring)."""

    def __init__(self, base_url: str | None, model: str, *, api_key: str | None = None,
                 api_key_header: str | None = None, api_version: str | None = None,
                 timeout: float = 120.0, max_retries: int = MAX_RETRIES, concurrency: int = 4,
                 max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES, session=None,
                 seed: int | None = None) -> None:
        if not model or not str(model).strip():
            raise error(RetrievalError, "chat.no_model_given")
        _check(text("embed.setting.concurrency"), concurrency, 1, 64)
        _check(text("embed.setting.max_retries"), max_retries, 0, 100)
        if not timeout or timeout <= 0:
            raise error(RetrievalError, "embed.bad_timeout")
        self.model = str(model).strip()
        self.endpoint = resolve_endpoint(base_url, model=self.model, api_version=api_version,
                                         path=CHAT_PATH)
        self.concurrency = int(concurrency)
        self.max_reply_bytes = int(max_reply_bytes)
        self._lock = threading.Lock()
        self.usage = {"requests": 0, "retries": 0, "prompt_tokens": 0,
                      "completion_tokens": 0, "answers": 0, "failures": 0}
        self.service = Service(
            self.endpoint.url, SPEC, api_key=api_key,
            api_key_header=api_key_header or ("api-key" if self.endpoint.azure
                                              else "Authorization"),
            params=self.endpoint.params, timeout=timeout, concurrency=self.concurrency,
            max_retries=max_retries, session=session, seed=seed, usage=self.usage,
            lock=self._lock, model=self.model, alternate=self.endpoint.alternate,
            on_moved=self._moved)
        #: the URL as typed, when it got 404 and its other form answered (then used)
        self.moved_from: str | None = None
        self.warnings = self.service.warnings

    def __repr__(self) -> str:
        return f"ChatClient({self.endpoint.base!r}, {self.model!r})"

    def _moved(self, typed: str, used: str) -> None:
        self.endpoint = moved_to(self.endpoint, used, CHAT_PATH)
        self.moved_from = typed

    def config(self) -> dict:
        """Settings, JSON-safe; never the key (only whether one is set)."""
        moved = {"moved_from": self.moved_from} if self.moved_from else {}
        return {**moved, "base_url": typed_form(self.endpoint, CHAT_PATH),
                "endpoint": self.endpoint.url,
                "model": self.model, "concurrency": self.concurrency,
                "api_key_header": self.service.api_key_header,
                "api_key_set": self.service.has_key, "timeout": self.service.timeout,
                "max_retries": self.service.max_retries}

    def close(self) -> None:
        self.service.close()

    # -- one request ---------------------------------------------------------------------
    def complete(self, messages: Sequence[Mapping[str, str]], *, temperature: float = 0.0,
                 max_tokens: int | None = None, extra: Mapping[str, object] | None = None,
                 cancel: threading.Event | None = None) -> ChatResult:
        """One completion: a :class:`ChatReply`, or a :class:`ChatFailure` for a request
        that got no usable answer. A failure of the whole service raises a ChatError."""
        request = ChatRequest(messages, temperature, max_tokens, extra or {})
        return self._complete(request, cancel)

    def _complete(self, request: ChatRequest, cancel: threading.Event | None) -> ChatResult:
        data = self._body(request)
        try:
            result = self.service.request(data, max_bytes=self.max_reply_bytes,
                                          parse=self._parse, cancel=cancel)
        except ServiceError as exc:
            kind = getattr(exc, "kind", fk.BAD_REPLY)
            if kind in STOP_KINDS:
                raise
            failure = getattr(exc, "failure", None)
            shape = getattr(failure, "shape", None)
            item_kind = shape if shape in ("html", "empty") else kind
            result = ChatFailure(item_kind, _said(item_kind, exc, self.endpoint.url))
        with self._lock:
            if result.ok:
                self.usage["answers"] += 1
            else:
                self.usage["failures"] += 1
            self.usage["prompt_tokens"] += result.prompt_tokens or 0
            self.usage["completion_tokens"] += result.completion_tokens or 0
        return result

    def _body(self, request: ChatRequest) -> bytes:
        messages = _check_messages(request.messages)
        temperature = request.temperature
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
                or not 0 <= temperature <= 2:
            raise error(RetrievalError, "chat.bad_temperature", value=repr(temperature))
        body: dict[str, object] = {**dict(request.extra), "model": self.model,
                                   "messages": messages, "temperature": float(temperature)}
        if request.max_tokens is not None:
            _check(text("chat.setting.max_tokens"), request.max_tokens, 1, 10**7)
            body["max_tokens"] = int(request.max_tokens)
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    def _parse(self, obj) -> ChatResult:
        """A reply's JSON -> a ChatReply, a ChatFailure, or Failure("invalid") for a reply
        that is not chat completions at all."""
        url = self.endpoint.url
        choices = obj.get("choices") if isinstance(obj, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise Failure("invalid", status=200, detail=text("chat.not_chat", url=url))
        choice = choices[0]
        message = choice.get("message")
        message = message if isinstance(message, dict) else {}
        finish = choice.get("finish_reason")
        finish = finish if isinstance(finish, str) else None
        content = _content_text(message.get("content"))
        usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else {}
        prompt, completion = reported_count(usage.get("prompt_tokens")), \
            reported_count(usage.get("completion_tokens"))
        model = obj.get("model") if isinstance(obj.get("model"), str) else None
        refusal = message.get("refusal")
        if (isinstance(refusal, str) and refusal.strip()) or finish == "content_filter":
            kind = "refusal"
        elif finish == "length":
            kind = "length"
        elif not content.strip():
            kind = "empty"
        else:
            return ChatReply(content, finish, prompt, completion, model)
        return ChatFailure(kind, text(_ITEM_MESSAGES[kind], url=url), content, finish,
                           prompt, completion)

    # -- many requests -------------------------------------------------------------------
    def complete_many(self, requests: Sequence[ChatRequest], *,
                      on_result: ResultFn | None = None,
                      progress: Callable[[dict], None] | None = None,
                      cancel: threading.Event | None = None) -> list[ChatResult | None]:
        """Every request's result, in order, ``concurrency`` at a time (module docstring).

        ``on_result(index, result)`` runs in this thread as each answer arrives;
        ``progress`` gets ``{stage: "chat", done, total, calls, tokens}``. When ``cancel`` is
        set, or the service has failed for good, no new request starts; those in flight
        finish and reach ``on_result``; then :class:`~ragdash.errors.Cancelled` or the
        failure is raised.
        """
        requests = list(requests)
        for r in requests:  # a bad request is refused before anything is sent
            self._body(r)
        total = len(requests)
        out: list[ChatResult | None] = [None] * total
        done = 0

        def report() -> None:
            if progress is not None:
                progress({"stage": "chat", "done": done, "total": total,
                          "calls": self.usage["requests"],
                          "tokens": self.usage["prompt_tokens"]
                          + self.usage["completion_tokens"]})

        def work(i: int, emit, halt: threading.Event) -> None:
            emit(self._complete(requests[i], halt))

        def handle(i: int, result) -> None:
            nonlocal done
            out[i] = result
            done += 1
            if on_result is not None:
                on_result(i, result)
            report()

        report()
        run_parallel(range(total), work, concurrency=self.concurrency, on_result=handle,
                     cancel=cancel, name="ragdash-chat")
        if done < total:
            raise error(Cancelled, "chat.cancelled_after", done=done, total=total)
        return out


def _said(kind: str, exc: ServiceError, url: str) -> Text | str:
    """The sentence of a failed request: the item's own for a shape, else the service's."""
    if kind in _ITEM_MESSAGES:
        return text(_ITEM_MESSAGES[kind], url=url)
    msg_id = getattr(exc, "msg_id", None)
    return text(msg_id, **exc.params) if msg_id else str(exc)


def _content_text(content) -> str:
    """The reply text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _check_messages(messages) -> list[dict]:
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence) or not messages:
        raise error(RetrievalError, "chat.bad_messages")
    out = []
    for m in messages:
        if not isinstance(m, Mapping) or m.get("role") not in ROLES \
                or not isinstance(m.get("content"), str):
            raise error(RetrievalError, "chat.bad_messages")
        out.append(dict(m))
    return out


def _check(what: str, value, lo: int, hi: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise error(RetrievalError, "embed.bad_setting", lo=lo, hi=hi, value=value, what=what)


__all__ = ["ITEM_KINDS", "STOP_KINDS", "ChatClient", "ChatFailure", "ChatReply", "ChatRequest",
           "ChatResult"]
