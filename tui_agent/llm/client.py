"""Provides `ChatClient`: one OpenAI-compatible endpoint, streamed replies as typed events, typed errors.

`stream_chat` yields `StreamEvent`s (see events.py) and raises only `LLMError` subclasses, each with a
sentence a person can act on and never the API key. 429 (honouring Retry-After) and 502/503/504 are
retried, but only before the first chunk — once text has streamed, a retry would repeat it. A stall
watchdog ends a stream that goes quiet; a stream that ends without a finish reason is reported as
truncated. Closing or cancelling the consumer closes the HTTP response. That loop is `reply_stream.stream_reply`,
shared with the other protocols: this client gives it the chat-completions request and parser.

`max_tokens` limits each reply: sent as `max_completion_tokens` to OpenAI's own API (which deprecates
`max_tokens` and refuses it for its newer models) and Azure OpenAI, as `max_tokens` everywhere else (local
and compatible servers know only that name). See `token_limit_parameter`.

The request goes through `openai.AsyncOpenAI` (auth, headers, status errors); the SSE body is read
here (strict UTF-8, `json.loads` to dicts), which costs a fraction of building openai's chunk models.
A lone surrogate (`"\\ud800"` is legal JSON but cannot be encoded) becomes U+FFFD as each chunk is
decoded, so no text that enters here can later break an encoder, a request or the database.

This is the only module that imports `openai`; nothing imports it at package import time.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai

from tui_agent.llm.assembler import StreamAssembler
from tui_agent.llm.errors import (
    AuthenticationFailedError,
    ConnectionFailedError,
    ContextTooLongError,
    LLMError,
    MalformedResponseError,
    ModelNotFoundError,
    RequestRejectedError,
    ServerError,
    StreamStalledError,
    StreamTruncatedError,
    bytes_preview,
    preview,
    redact,
)
from tui_agent.llm.events import StreamEvent
from tui_agent.llm.parts import PART_FIELDS
from tui_agent.llm.reply_stream import (
    MAX_RETRY_WAIT as MAX_RETRY_WAIT,  # the retry rule's, named here too: callers import it from the client
)
from tui_agent.llm.reply_stream import (
    STREAM_SLICE,  # read at each reply from this module, so a test can set it here
    cannot_connect,
    decode_payload,
    rate_limited,
    scheduled_retry,
    sse_payloads,
    still_after,
    stream_reply,
    transport_failure,
    unexpected,
)
from tui_agent.llm.served_context import context_overflow, learn_windows, server_root
from tui_agent.llm.tls import shared_tls
from tui_agent.llm.to_user import schema_has_to_user
from tui_agent.llm.watchdog import StallWatchdog

RETRY_STATUSES = (429, 500, 502, 503, 504)
"""Retried before the first token, as the openai SDK's own rule does (with its retries off: ours are shown)."""
OPENAI_HOSTS = ("api.openai.com", ".openai.azure.com")
"""Hosts that take `max_completion_tokens` (a suffix when it starts with a dot)."""
NO_KEY = "no-key-set"
"""Sent when no API key is configured (the openai client insists on one; local servers ignore it)."""


class ChatClient:
    """A chat-completions endpoint. `stream_chat` streams a reply; `list_models`; `aclose` when done."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60,
        max_retries: int = 2,
        stall_timeout: float = 30,
        max_tokens: int | None = None,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.max_tokens = max_tokens
        """Tokens one reply may have (None: the server's own limit); a longer reply ends with `length`."""
        self.max_retries = max_retries
        self.stall_timeout = stall_timeout
        self._api_key = api_key
        self._usage_supported = True
        # Our own retry loop (not openai's) so retries stay before the first token and Retry-After is honoured.
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or NO_KEY,
            timeout=timeout,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(verify=shared_tls()),  # no certificate loading per client
        )

    @property
    def host(self) -> str:
        """The endpoint as people name it: host and port."""
        return urlsplit(self.base_url).netloc or self.base_url

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.close()

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers."""
        try:
            page = await self._client.models.list()
        except Exception as error:  # every failure becomes a sentence
            raise self._request_error(error) from error
        return [model.id for model in page.data]

    async def context_windows(self) -> dict[str, int]:
        """Model id -> the context window the server serves it with, for the models it says it of: its
        `/v1/models` entries, llama.cpp's `/props`, Ollama's `/api/ps` (`served_context.learn_windows`)."""
        try:
            page = await self._client.models.list()
        except Exception as error:  # every failure becomes a sentence
            raise self._request_error(error) from error
        return await learn_windows([model.to_dict() for model in page.data], self.model, self._ask_root)

    async def _ask_root(self, path: str, body: Mapping[str, Any] | None) -> object:
        """The JSON the server answers at `path` of its root (a POST of `body`, or a GET); None when it fails:
        a route only some servers have (see `served_context.Ask`)."""
        url = server_root(self.base_url) + path
        try:
            if body is None:
                return await self._client.get(url, cast_to=object)
            return await self._client.post(url, body=dict(body), cast_to=object)
        except Exception:  # not that kind of server (404, not JSON...): it says nothing of its windows
            return None

    def stream_chat(
        self, messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None = None, **options: Any
    ) -> AsyncIterator[StreamEvent]:
        """Stream one reply to `messages`; extra keyword `options` go to the request (temperature, ...)."""
        return stream_reply(self, messages, tools, options, STREAM_SLICE)

    # The chat-completions protocol, as `stream_reply` drives it (`reply_stream.WireProtocol`).

    def reading(self, tools: list[dict[str, Any]] | None) -> StreamAssembler:
        return StreamAssembler(decode_to_user=tools is None or schema_has_to_user(tools))

    def request(
        self, messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None, options: Mapping[str, Any]
    ) -> tuple[list[Mapping[str, Any]], list[dict[str, Any]] | None, dict[str, Any]]:
        """What each attempt's parameters are made of (`_params`: they change when a server refuses the usage
        request)."""
        return list(messages), tools, dict(options)

    def failed(self, error: Exception, reading: StreamAssembler) -> LLMError:
        return self._stream_error(error, reading.received_content)

    def located(self, error: LLMError, response: Any = None) -> LLMError:
        """`error` with the endpoint and, when the server sent one, the request's id."""
        error.base_url = error.base_url or _without_credentials(self.base_url)
        if error.request_id is None and response is not None:
            error.request_id = response.headers.get("x-request-id") or None
        return error

    async def read(
        self, response: Any, assembler: StreamAssembler, watchdog: StallWatchdog
    ) -> AsyncGenerator[list[StreamEvent], None]:
        """The events of the SSE payloads each block of the body brought, up to `[DONE]` or the end of the body
        (one list a block, not a payload: a fast stream brings ~150 payloads a block, each a generator hop)."""
        self._check_content_type(response)
        if response.headers.get("content-type", "").lower().startswith("application/json"):
            # A server that ignores `stream`: its one completion is replayed as a single chunk.
            body = decode_payload((await response.aread()).decode("utf-8"))
            watchdog.count += 1
            yield self._events(assembler, self._completion_as_chunk(body))
            return
        async with contextlib.aclosing(sse_payloads(response, watchdog)) as blocks:
            async for payloads in blocks:
                events: list[StreamEvent] = []
                try:
                    for payload in payloads:
                        if payload.startswith("[DONE]"):
                            yield events
                            return
                        self._feed(assembler, decode_payload(payload), events)
                except Exception:
                    yield events  # what came before a bad payload is shown and kept before its error
                    raise
                yield events

    def _completion_as_chunk(self, body: Any) -> dict[str, Any]:
        """A non-streamed `chat.completion` as one chunk carrying the whole message (errors pass through)."""
        if not isinstance(body, dict) or not (body.get("choices") or body.get("error")):
            raise MalformedResponseError(
                f"The server at {self.host} answered with JSON that is not a chat "
                "completion; it may not be an OpenAI-compatible endpoint."
            )
        if body.get("error"):
            return body
        choice = body["choices"][0]
        message = choice.get("message") or {}
        calls = [{**call, "index": i} for i, call in enumerate(message.get("tool_calls") or [])]
        delta = {
            **{name: message.get(name) for name in PART_FIELDS},
            "content": message.get("content"),
            "tool_calls": calls,
        }
        return {"usage": body.get("usage"), "choices": [{"delta": delta, "finish_reason": choice.get("finish_reason")}]}

    def _events(self, assembler: StreamAssembler, chunk: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self._feed(assembler, chunk, events)
        return events

    def _feed(self, assembler: StreamAssembler, chunk: Any, events: list[StreamEvent]) -> None:
        """Append one decoded chunk's events to `events`; a chunk that fails adds none of them."""
        if not isinstance(chunk, dict):  # JSON, but not an object: no chat-completions chunk
            raise self._malformed(json.dumps(chunk, ensure_ascii=False), assembler.received_content)
        error = chunk.get("error")
        if error:
            message = error.get("message") if isinstance(error, dict) else str(error)
            detail = f": {redact(str(message), self._api_key)}" if message else ""
            where = "partway through the reply" if assembler.received_content else "before the reply started"
            raise ServerError(f"The server at {self.host} reported an error {where}{detail}. Try again in a moment.")
        kept = len(events)
        try:
            assembler.feed_into(chunk, events)
        except (AttributeError, TypeError, KeyError) as shape:  # valid JSON of another shape than a chunk
            del events[kept:]
            raise self._malformed(json.dumps(chunk, ensure_ascii=False), assembler.received_content) from shape

    def _malformed(self, payload: str | None, received: bool) -> MalformedResponseError:
        """A chunk that is not a chat-completions event, its start quoted (sanitised) when known."""
        where = "in the middle of the reply" if received else "before the reply started"
        shown = f" (it began {redact(preview(payload), self._api_key)})" if payload is not None else ""
        return MalformedResponseError(
            f"The server at {self.host} sent a chunk that is not a valid chat-completions event {where}{shown}; "
            "it may not be an OpenAI-compatible endpoint."
        )

    def ending(self, assembler: StreamAssembler) -> list[StreamEvent]:
        if assembler.finish_reason is None:
            what = "partway through" if assembler.received_content else "before any of it arrived"
            raise StreamTruncatedError(
                f"The reply from {self.host} ended {what}: the stream stopped without saying it was finished. "
                "Try again; if it keeps happening, the server or a proxy in between is cutting responses."
            )
        return assembler.finished()

    def stalled(self, assembler: StreamAssembler) -> LLMError:
        what = "in the middle of the reply" if assembler.received_content else "before the first token"
        return StreamStalledError(
            f"The model at {self.host} stopped sending {what} and nothing arrived for "
            f"{self.stall_timeout:g} seconds, so the reply was abandoned. Try again."
        )

    async def send(
        self, request: tuple[list[Mapping[str, Any]], list[dict[str, Any]] | None, dict[str, Any]], attempt: int
    ) -> Any:
        """Send the request once: the streaming httpx response, or when to send it again (a rate limit, a busy
        server, `attempt` retries so far); a final failure is raised."""
        messages, tools, options = request
        if not self.model:  # none named and the server did not say which (see agent.model_choice)
            raise ModelNotFoundError(
                f"No model is chosen for {self.host}: name one with --model (or `model` in "
                "the config file), or pick one with Switch model in the command palette."
            )
        while True:
            params = self._params(messages, tools, options)
            try:
                # The raw response: we parse SSE ourselves, several times cheaper than openai's chunk models.
                opened = await self._client.chat.completions.with_streaming_response.create(**params).__aenter__()
                return opened.http_response
            except openai.BadRequestError as error:
                if self._usage_supported and "stream_options" in str(error.message):
                    self._usage_supported = False  # an older server: ask again without the usage request
                    continue
                raise self._request_error(error) from error
            except openai.APIStatusError as error:
                headers = error.response.headers
                retry = scheduled_retry(error.status_code, headers, attempt, self.max_retries, RETRY_STATUSES)
                if retry is None:
                    raise self._status_error(error, retries=attempt) from error
                return retry

    def _params(
        self, messages: list[Mapping[str, Any]], tools: list[dict[str, Any]] | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if self.max_tokens is not None:
            params[token_limit_parameter(self.base_url)] = self.max_tokens
        params.update(options)
        if tools:  # as JSON as it is: the SDK's type-directed copy of `tools` cost ~0.3 s a request for 1000 tools
            params["extra_body"] = {**params.get("extra_body", {}), "tools": tools}
        if self._usage_supported:
            params["stream_options"] = {"include_usage": True}
        return params

    def _check_content_type(self, response: Any) -> None:
        content_type = response.headers.get("content-type", "").lower()
        if "html" in content_type:
            raise MalformedResponseError(
                f"The server at {self.base_url} answered with a web page instead of a model reply. "
                "Check the base URL: for OpenAI-compatible servers it usually ends in /v1."
            )

    def _request_error(self, error: Exception) -> LLMError:
        """The typed error for a failure before any reply arrived."""
        if isinstance(error, LLMError):
            return error
        if isinstance(error, openai.APIStatusError):
            return self._status_error(error)
        if isinstance(error, openai.APITimeoutError):
            return self.located(
                ConnectionFailedError(
                    f"The server at {self.host} did not answer in time. "
                    "Check that it is running and reachable, then try again."
                )
            )
        if isinstance(error, openai.APIConnectionError):
            return self.located(cannot_connect(self.base_url, error))
        return self.located(self._stream_error(error, received=False))

    def _status_error(self, error: openai.APIStatusError, retries: int = 0) -> LLMError:
        typed = self._status_sentence(error, retries)
        typed.request_id = error.request_id or None  # openai reads it from the `x-request-id` header
        return self.located(typed)

    def _status_sentence(self, error: openai.APIStatusError, retries: int) -> LLMError:
        status, detail = error.status_code, self._detail(error)
        after = still_after(retries)
        if status in (401, 403):
            problem = "needs an API key and none is set" if self._api_key is None else "rejected the API key"
            return AuthenticationFailedError(
                f"{self.host} {problem} ({status}{detail}). Set a valid key in OPENAI_API_KEY or in the config file."
            )
        if status == 404:
            return ModelNotFoundError(
                f"{self.host} does not know the model '{self.model}' or this endpoint (404{detail}). "
                "Pick one of the server's models, and check the base URL (it usually ends in /v1)."
            )
        if status == 429:
            return rate_limited(self.host, detail, retries, error.response.headers)
        if status >= 500:
            return ServerError(f"The server at {self.host} failed ({status}{detail}){after}. Try again in a moment.")
        if (overflow := context_overflow(error.body)) is not None:
            return ContextTooLongError(
                f"The conversation is longer than the context window of the model at {self.host} ({status}{detail}).",
                window=overflow.window,
                prompt_tokens=overflow.prompt_tokens,
            )
        return RequestRejectedError(f"The server at {self.host} rejected the request ({status}{detail}).")

    def _detail(self, error: openai.APIError) -> str:
        body = error.body
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str) or not message:
            return ""
        return ": " + redact(message.strip().rstrip("."), self._api_key)  # whole: the UI wraps it

    def _stream_error(self, error: Exception, received: bool) -> LLMError:
        """The typed error for a failure while reading the stream."""
        where = "in the middle of the reply" if received else "before the reply started"
        if isinstance(error, UnicodeDecodeError):
            return MalformedResponseError(
                f"The server at {self.host} sent bytes that are not UTF-8 text {where} "
                f"({redact(bytes_preview(error), self._api_key)}); it may not be an OpenAI-compatible endpoint."
            )
        if isinstance(error, json.JSONDecodeError | AttributeError | TypeError | KeyError):
            return self._malformed(error.doc if isinstance(error, json.JSONDecodeError) else None, received)
        broken = transport_failure(error, self.host, received, openai.APITimeoutError, openai.APIConnectionError)
        if isinstance(broken, ConnectionFailedError) and isinstance(error, openai.APIConnectionError):
            return self._request_error(error)  # the SDK's own words for a connect that failed
        if broken is not None:
            return broken
        if isinstance(error, openai.APIError):
            return ServerError(
                f"The server at {self.host} reported an error {where}{self._detail(error)}. Try again in a moment."
            )
        return unexpected(error, self.host, self._api_key)


def token_limit_parameter(base_url: str) -> str:
    """The request field that limits a reply's tokens at `base_url` (see the module docstring)."""
    host = (urlsplit(base_url).hostname or "").lower()
    openai_own = any(host == name or (name.startswith(".") and host.endswith(name)) for name in OPENAI_HOSTS)
    return "max_completion_tokens" if openai_own else "max_tokens"


def _without_credentials(url: str) -> str:
    """`url` as it may be shown and stored: no user name, password or query (keys hide there)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
