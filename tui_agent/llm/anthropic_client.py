"""Provides `AnthropicClient`: Anthropic's Messages API as a `ModelClient`, on the official `anthropic` SDK.

The turn sees the same `StreamEvent`s as from the OpenAI-protocol `ChatClient`: the Messages API's SSE events
(message_start, content_block_start/delta/stop for text, thinking and tool_use, message_delta, message_stop,
ping, error) are translated into chat-completion chunks and fed to the shared `StreamAssembler`, so tool calls
(several in one reply: parallel), `to_user` decoding, invalid arguments and usage behave exactly as there.
Thinking streams as the `reasoning` part; its blocks, with their signatures, are kept by the id of the tool
call they came before (`ThinkingMemory`) and sent back while the tool loop goes on, as the API requires with
thinking on. History stays in our neutral shape: `anthropic_format.to_anthropic` translates each request.

Errors become our types: 401/403 `authentication_error` → `AuthenticationFailedError`; 429 `rate_limit_error`
and 529 `overloaded_error` (and 500/502/503/504) are retried before the first event, Retry-After honoured, then
`RateLimitedError`/`ServerError`; a 400 "prompt is too long" → `ContextTooLongError` (the agent compacts);
an `error` event inside the stream → `ServerError`; no connection → `ConnectionFailedError`.

The SDK sends the request (auth headers, `anthropic-version`, status errors); the SSE body is read here, and the
retries, the stall watchdog and the closing are `reply_stream.stream_reply`'s, as for `ChatClient`. Nothing
imports this module at package import time: the engine builds it only for `provider = "anthropic"`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import anthropic

from tui_agent.llm import reply_stream
from tui_agent.llm.anthropic_format import ThinkingMemory, mark_cache, to_anthropic, tools_to_anthropic
from tui_agent.llm.assembler import StreamAssembler
from tui_agent.llm.errors import (
    AuthenticationFailedError,
    ContextTooLongError,
    LLMError,
    MalformedResponseError,
    ModelNotFoundError,
    RequestRejectedError,
    ServerError,
    StreamStalledError,
    StreamTruncatedError,
    preview,
    redact,
)
from tui_agent.llm.events import StreamEvent
from tui_agent.llm.tls import shared_tls
from tui_agent.llm.to_user import schema_has_to_user
from tui_agent.llm.watchdog import StallWatchdog

ANTHROPIC_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 8192
"""`max_tokens` is required by the Messages API: sent when no limit is configured."""
RETRY_STATUSES = (429, 500, 502, 503, 504, 529)
"""529 is Anthropic's `overloaded_error`."""
STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
"""Anthropic's `stop_reason` → the finish reason the turn knows."""
TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum")
NO_KEY = "no-key-set"


class AnthropicClient:
    """A Messages API endpoint. `stream_chat` streams a reply; `list_models`; `aclose` when done."""

    def __init__(
        self,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60,
        max_retries: int = 2,
        stall_timeout: float = 30,
        max_tokens: int | None = None,
        thinking_budget: int | None = None,
    ) -> None:
        # Our endpoints are named with their /v1 (as OpenAI's are); the SDK adds /v1/messages itself.
        self.base_url = (base_url or ANTHROPIC_URL).rstrip("/").removesuffix("/v1")
        self.model = model
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.stall_timeout = stall_timeout
        self.thinking_budget = thinking_budget
        """Tokens of extended thinking a reply may use (None: thinking off)."""
        self._api_key = api_key
        self._thinking = ThinkingMemory()
        # Our own retry loop (not the SDK's) so retries stay before the first event and are shown.
        self._client = anthropic.AsyncAnthropic(
            base_url=self.base_url,
            api_key=api_key or NO_KEY,
            timeout=timeout,
            max_retries=0,
            http_client=anthropic.DefaultAsyncHttpxClient(verify=shared_tls()),  # no certificate loading per client
        )

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).netloc or self.base_url

    async def aclose(self) -> None:
        await self._client.close()

    async def list_models(self) -> list[str]:
        try:
            page = await self._client.models.list()
        except Exception as error:  # every failure becomes a sentence
            raise self._request_error(error) from error
        return [model.id for model in page.data]

    async def context_windows(self) -> dict[str, int]:
        """Anthropic's model list says nothing of windows (the shipped table knows Claude's)."""
        return {}

    def request(
        self, messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None, options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The Messages API request body for our `messages` and OpenAI-shaped `tools`."""
        thinking_on = self.thinking_budget is not None
        system, turns = to_anthropic(messages, self._thinking if thinking_on else None)
        if thinking_on and _continues_without_thinking(turns):
            thinking_on = False  # a tool loop begun without thinking (another provider's): the API refuses it on
        converted = tools_to_anthropic(tools)
        mark_cache(system, turns, converted)
        limit = self.max_tokens or DEFAULT_MAX_TOKENS
        body: dict[str, Any] = {"model": self.model, "messages": turns, "max_tokens": limit}
        if system:
            body["system"] = system
        if converted:
            body["tools"] = converted
        if thinking_on and self.thinking_budget is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget}
            body["max_tokens"] = max(limit, self.thinking_budget + 1024)
        elif "temperature" in options:  # the API refuses a temperature with thinking on, and one over 1
            body["temperature"] = min(float(options["temperature"]), 1.0)
        return body

    def stream_chat(
        self, messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None = None, **options: Any
    ) -> AsyncIterator[StreamEvent]:
        """Stream one reply to `messages` (see the module docstring)."""
        return reply_stream.stream_reply(self, messages, tools, options)

    # The Messages API, as `stream_reply` drives it (`reply_stream.WireProtocol`).

    def reading(self, tools: list[dict[str, Any]] | None) -> _Reading:
        return _Reading(StreamAssembler(decode_to_user=tools is None or schema_has_to_user(tools)))

    def failed(self, error: Exception, reading: _Reading) -> LLMError:
        return self._stream_error(error, reading.assembler.received_content)

    def ending(self, reading: _Reading) -> list[StreamEvent]:
        assembler = reading.assembler
        if not reading.stopped or assembler.finish_reason is None:
            what = "partway through" if assembler.received_content else "before any of it arrived"
            raise StreamTruncatedError(
                f"The reply from {self.host} ended {what}: the stream stopped without message_stop. Try again."
            )
        reading.keep_thinking(self._thinking)
        return assembler.finished()

    def stalled(self, reading: _Reading) -> LLMError:
        return StreamStalledError(
            f"The model at {self.host} stopped sending and nothing arrived for "
            f"{self.stall_timeout:g} seconds, so the reply was abandoned. Try again."
        )

    async def send(self, request: dict[str, Any], attempt: int) -> Any:
        """Send the request once: the streaming httpx response, or when to send it again."""
        if not self.model:
            raise ModelNotFoundError(
                f"No model is chosen for {self.host}: name one with --model (or `model` in the config file)."
            )
        try:
            opened = await self._client.messages.with_streaming_response.create(**request, stream=True).__aenter__()
            return opened.http_response
        except anthropic.APIStatusError as error:
            headers = error.response.headers
            retry = reply_stream.scheduled_retry(error.status_code, headers, attempt, self.max_retries, RETRY_STATUSES)
            if retry is None:
                raise self._status_error(error, retries=attempt) from error
            return retry

    async def read(
        self, response: Any, reading: _Reading, watchdog: StallWatchdog
    ) -> AsyncGenerator[list[StreamEvent], None]:
        """The events of each SSE payload, until message_stop."""
        assembler = reading.assembler
        async with contextlib.aclosing(reply_stream.sse_payloads(response, watchdog)) as blocks:
            async for payloads in blocks:
                for payload in payloads:
                    yield self._events(assembler, reading, reply_stream.decode_payload(payload))
                    if reading.stopped:
                        return

    def _events(self, assembler: StreamAssembler, reading: _Reading, event: Any) -> list[StreamEvent]:
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise self._malformed(json.dumps(event, ensure_ascii=False), assembler.received_content)
        if event["type"] == "error":
            error = event.get("error") or {}
            kind = error.get("type", "error") if isinstance(error, dict) else "error"
            message = error.get("message") if isinstance(error, dict) else None
            detail = f": {redact(str(message), self._api_key)}" if message else ""
            where = "partway through the reply" if assembler.received_content else "before the reply started"
            raise ServerError(f"The server at {self.host} reported {kind} {where}{detail}. Try again in a moment.")
        try:
            chunk = reading.chunk(event)
        except (AttributeError, TypeError, KeyError) as shape:
            raise self._malformed(json.dumps(event, ensure_ascii=False), assembler.received_content) from shape
        return assembler.feed(chunk) if chunk is not None else []

    def _malformed(self, payload: str, received: bool) -> MalformedResponseError:
        where = "in the middle of the reply" if received else "before the reply started"
        return MalformedResponseError(
            f"The server at {self.host} sent an event that is not a Messages API event {where} "
            f"(it began {redact(preview(payload), self._api_key)})."
        )

    def located(self, error: LLMError, response: Any = None) -> LLMError:
        error.base_url = error.base_url or self.base_url
        if error.request_id is None and response is not None:
            error.request_id = response.headers.get("request-id") or response.headers.get("x-request-id") or None
        return error

    def _request_error(self, error: Exception) -> LLMError:
        if isinstance(error, LLMError):
            return error
        if isinstance(error, anthropic.APIStatusError):
            return self._status_error(error)
        if isinstance(error, anthropic.APIConnectionError):
            return self.located(reply_stream.cannot_connect(self.base_url, error))
        return self.located(self._stream_error(error, received=False))

    def _status_error(self, error: anthropic.APIStatusError, retries: int = 0) -> LLMError:
        typed = self._status_sentence(error, retries)
        typed.request_id = error.response.headers.get("request-id") or error.response.headers.get("x-request-id")
        return self.located(typed)

    def _status_sentence(self, error: anthropic.APIStatusError, retries: int) -> LLMError:
        status, message = error.status_code, _message(error.body)
        detail = f": {redact(message.rstrip('.'), self._api_key)}" if message else ""
        after = reply_stream.still_after(retries)
        if status in (401, 403):
            problem = "needs an API key and none is set" if self._api_key is None else "rejected the API key"
            return AuthenticationFailedError(
                f"{self.host} {problem} ({status}{detail}). "
                "Set a valid key in ANTHROPIC_API_KEY (or the variable api_key_env names)."
            )
        if status == 404:
            return ModelNotFoundError(f"{self.host} does not know the model '{self.model}' (404{detail}).")
        if status == 429:
            return reply_stream.rate_limited(self.host, detail, retries, error.response.headers)
        if status == 529:
            return ServerError(f"{self.host} is overloaded (529{detail}){after}. Try again in a moment.")
        if status >= 500:
            return ServerError(f"The server at {self.host} failed ({status}{detail}){after}. Try again in a moment.")
        if (found := TOO_LONG.search(message)) is not None or "prompt is too long" in message:
            return ContextTooLongError(
                f"The conversation is longer than the context window of the model at {self.host} ({status}{detail}).",
                window=int(found.group(2)) if found else None,
                prompt_tokens=int(found.group(1)) if found else None,
            )
        return RequestRejectedError(f"The server at {self.host} rejected the request ({status}{detail}).")

    def _stream_error(self, error: Exception, received: bool) -> LLMError:
        where = "in the middle of the reply" if received else "before the reply started"
        if isinstance(error, UnicodeDecodeError | json.JSONDecodeError):
            return MalformedResponseError(f"The server at {self.host} sent something that is not SSE JSON {where}.")
        timeout, connection = anthropic.APITimeoutError, anthropic.APIConnectionError
        broken = reply_stream.transport_failure(error, self.host, received, timeout, connection)
        return broken if broken is not None else reply_stream.unexpected(error, self.host, self._api_key)


class _Reading:
    """One reply's translation: Messages API events → chat-completion chunks (tool_use blocks numbered as
    tool-call indexes) fed to the reply's `assembler`, the usage, and the thinking blocks to keep."""

    def __init__(self, assembler: StreamAssembler) -> None:
        self.assembler = assembler
        self.stopped = False
        self._calls: dict[int, int] = {}
        """Content block index → tool-call index."""
        self._thinking: dict[int, dict[str, Any]] = {}
        self._first_call_id: str | None = None
        self._usage: dict[str, int] = {}

    def chunk(self, event: dict[str, Any]) -> dict[str, Any] | None:
        kind = event["type"]
        if kind == "message_start":
            self._count(event["message"].get("usage") or {})
            return None
        if kind == "content_block_start":
            return self._block_start(event["index"], event["content_block"])
        if kind == "content_block_delta":
            return self._delta(event["index"], event["delta"])
        if kind == "message_delta":
            self._count(event.get("usage") or {})
            reason = (event.get("delta") or {}).get("stop_reason")
            mapped = STOP_REASONS.get(reason, "stop") if reason else None
            return {"choices": [{"delta": {}, "finish_reason": mapped}]} if mapped else None
        if kind == "message_stop":
            self.stopped = True
            return {"usage": self.usage()} if self._usage else None
        return None  # ping, content_block_stop, events of later API versions

    def _block_start(self, index: int, block: dict[str, Any]) -> dict[str, Any] | None:
        kind = block.get("type")
        if kind == "tool_use":
            number = self._calls[index] = len(self._calls)
            self._first_call_id = self._first_call_id or block["id"]
            function = {"name": block["name"], "arguments": ""}
            call = {"index": number, "id": block["id"], "type": "function", "function": function}
            return {"choices": [{"delta": {"tool_calls": [call]}}]}
        if kind in ("thinking", "redacted_thinking"):
            self._thinking[index] = dict(block)
            text = block.get("thinking")
            return {"choices": [{"delta": {"reasoning_content": text}}]} if text else None
        if kind == "text" and block.get("text"):
            return {"choices": [{"delta": {"content": block["text"]}}]}
        return None

    def _delta(self, index: int, delta: dict[str, Any]) -> dict[str, Any] | None:
        kind = delta.get("type")
        if kind == "text_delta":
            return {"choices": [{"delta": {"content": delta["text"]}}]}
        if kind == "input_json_delta":
            piece = {"index": self._calls[index], "function": {"arguments": delta["partial_json"]}}
            return {"choices": [{"delta": {"tool_calls": [piece]}}]}
        if kind == "thinking_delta":
            block = self._thinking.setdefault(index, {"type": "thinking", "thinking": ""})
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
            return {"choices": [{"delta": {"reasoning_content": delta["thinking"]}}]}
        if kind == "signature_delta":
            block = self._thinking.setdefault(index, {"type": "thinking", "thinking": ""})
            block["signature"] = block.get("signature", "") + delta["signature"]
        return None

    def _count(self, usage: dict[str, Any]) -> None:
        for name, value in usage.items():
            if isinstance(value, int) and not isinstance(value, bool):
                self._usage[name] = value  # message_delta's counts are cumulative

    def usage(self) -> dict[str, Any]:
        """As OpenAI counts it: prompt tokens include the cache's reads and writes; `cached_tokens` the reads,
        `cache_write_tokens` the writes (Anthropic bills them above the input price)."""
        read = self._usage.get("cache_read_input_tokens", 0)
        written = self._usage.get("cache_creation_input_tokens", 0)
        return {
            "prompt_tokens": self._usage.get("input_tokens", 0) + read + written,
            "completion_tokens": self._usage.get("output_tokens", 0),
            "prompt_tokens_details": {"cached_tokens": read, "cache_write_tokens": written},
        }

    def keep_thinking(self, memory: ThinkingMemory) -> None:
        if self._first_call_id is not None and self._thinking:
            memory.keep(self._first_call_id, [self._thinking[index] for index in sorted(self._thinking)])


def _continues_without_thinking(turns: list[dict[str, Any]]) -> bool:
    """Whether the request continues a tool loop whose assistant message has no thinking block first."""
    if len(turns) < 2 or turns[-1]["role"] != "user":
        return False
    if not any(block["type"] == "tool_result" for block in turns[-1]["content"]):
        return False
    first = turns[-2]["content"][0]
    return bool(first["type"] not in ("thinking", "redacted_thinking"))


def _message(body: object) -> str:
    """The `error.message` of an Anthropic error body (`{"type": "error", "error": {...}}`)."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"]).strip()
        if isinstance(body.get("message"), str):
            return str(body["message"]).strip()
    return ""
