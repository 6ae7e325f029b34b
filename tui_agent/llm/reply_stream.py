"""Provides `stream_reply`: the one loop every model client streams a reply with, whatever its protocol.

A client gives only its protocol (`WireProtocol`): its request (`request`, `send`), how to read the response
body into events (`reading`, `read`), what a finished reply adds (`ending`), and how it words a stall or a
failure. The loop does the rest the same way for all: retries before the first event (a `RetryScheduled`
shown to the consumer, Retry-After waited out, the wait not counted as a stall), the stall watchdog, payloads
handed on a slice of time at a time, the response closed however the reply ends (the consumer closing or
cancelling it too), and every failure raised as an `LLMError` naming the endpoint. Also the parts of the retry
rule and of the error sentences that do not depend on the protocol (`scheduled_retry`, `rate_limited`,
`transport_failure`, `unexpected`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from json.scanner import make_scanner
from typing import Any, Protocol, TypeVar, cast

from tui_agent.llm.errors import (
    ConnectionFailedError,
    LLMError,
    RateLimitedError,
    StreamStalledError,
    StreamTruncatedError,
    redact,
)
from tui_agent.llm.events import RetryScheduled, StreamEvent
from tui_agent.llm.sse import SSEParser
from tui_agent.llm.transport import retry_after, root_cause
from tui_agent.llm.watchdog import StallWatchdog
from tui_agent.sanitize import may_decode_to_surrogate, replace_surrogates_in

MAX_RETRY_WAIT = 60.0
"""A Retry-After longer than this is not waited out: the user is told instead."""
STREAM_SLICE = 0.004
"""Seconds of handling payloads that arrived together before the event loop runs its other tasks: a burst of
hundreds of small payloads (a fast endpoint, or a slow reader) would otherwise hold it for tens of
milliseconds, and in the app a key or a frame waits for that."""
R = TypeVar("R")


class WireProtocol(Protocol[R]):
    """A model client's side of `stream_reply`: its protocol's request and parser. `R` is what one reply's reading
    keeps between payloads (the `StreamAssembler`, and what else the protocol's parser needs)."""

    stall_timeout: float
    """Seconds without new data before a reply is given up as stalled."""

    def reading(self, tools: list[dict[str, Any]] | None) -> R:
        """A new reply's reading state, for a request offering `tools`."""
        ...

    def request(
        self, messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None, options: Mapping[str, Any]
    ) -> Any:
        """The request for this reply, built once (sent again as it is when retried)."""
        ...

    async def send(self, request: Any, attempt: int) -> Any:
        """Send `request` once (`attempt` retries so far): the streaming HTTP response, or the `RetryScheduled`
        saying when to send it again; a final failure is raised."""
        ...

    def read(self, response: Any, reading: R, watchdog: StallWatchdog) -> AsyncGenerator[list[StreamEvent], None]:
        """The events of each payload of the body (bumping `watchdog.count` as data arrives)."""
        ...

    def ending(self, reading: R) -> list[StreamEvent]:
        """The events a reply read to its end adds (its last tool calls, usage, `StreamEnd`); raises when the body
        ended without the reply saying it was finished."""
        ...

    def stalled(self, reading: R) -> LLMError:
        """The error for a reply the watchdog gave up on."""
        ...

    def failed(self, error: Exception, reading: R) -> LLMError:
        """The typed error for any other failure while sending or reading."""
        ...

    def located(self, error: LLMError, response: Any = None) -> LLMError:
        """`error` with the endpoint and, when the response has one, the request's id."""
        ...


async def stream_reply(
    protocol: WireProtocol[R],
    messages: Iterable[Mapping[str, Any]],
    tools: list[dict[str, Any]] | None,
    options: Mapping[str, Any],
    slice_seconds: float = STREAM_SLICE,
) -> AsyncIterator[StreamEvent]:
    """Stream one reply to `messages` over `protocol` (see the module docstring); raises only `LLMError`s."""
    watchdog = StallWatchdog(protocol.stall_timeout)
    watchdog.arm()
    response: Any = None
    reading = protocol.reading(tools)
    try:
        request = protocol.request(messages, tools, options)
        attempt = 0
        while isinstance(opened := await protocol.send(request, attempt), RetryScheduled):
            watchdog.paused = True  # waiting out Retry-After (and the consumer showing it) is not a stall
            yield opened
            await asyncio.sleep(max(0.0, opened.at - time.monotonic()))
            watchdog.paused = False
            attempt += 1
        response = opened
        async with contextlib.aclosing(protocol.read(response, reading, watchdog)) as batches:
            slice_end = time.perf_counter() + slice_seconds
            async for events in batches:
                watchdog.paused = True  # time the consumer spends on events is not a stall
                for event in events:
                    yield event
                    if time.perf_counter() > slice_end:  # payloads read together come without a pause
                        await asyncio.sleep(0)
                        slice_end = time.perf_counter() + slice_seconds
                watchdog.paused = False
        for event in protocol.ending(reading):
            yield event
    except asyncio.CancelledError:
        if not watchdog.fired:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        raise protocol.located(protocol.stalled(reading), response) from None
    except LLMError as error:
        raise protocol.located(error, response) from error.__cause__
    except Exception as error:  # every failure becomes a sentence
        raise protocol.located(protocol.failed(error, reading), response) from error
    finally:
        watchdog.disarm()
        if response is not None:
            await response.aclose()


def scheduled_retry(
    status: int, headers: Mapping[str, str], attempt: int, max_retries: int, statuses: tuple[int, ...]
) -> RetryScheduled | None:
    """When to send again a request answered `status` (`attempt` retries so far), or None when the answer is
    final: not one of the `statuses` retried, the retries spent, or a Retry-After over `MAX_RETRY_WAIT`."""
    if status not in statuses or attempt >= max_retries:
        return None
    wait = retry_after(headers)
    if wait is None:
        wait = 0.5 * float(1 << attempt)
    elif wait > MAX_RETRY_WAIT:
        return None
    return RetryScheduled(status, attempt + 1, max_retries, time.monotonic() + wait)


def cannot_connect(base_url: str, error: Exception) -> ConnectionFailedError:
    """A request that found no server to talk to: why, and what to check."""
    return ConnectionFailedError(
        f"Cannot connect to {base_url} ({root_cause(error)}). "
        "Check that the server is running and the base URL is right."
    )


def still_after(retries: int) -> str:
    """ " and still was after N retries" for a status error that retries did not cure ("" for none)."""
    return f" and still was after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""


def rate_limited(host: str, detail: str, retries: int, headers: Mapping[str, str]) -> RateLimitedError:
    """A 429 that is final: when to try again, as the server said."""
    wait = retry_after(headers)
    when = f"in {wait:g} seconds" if wait is not None else "in a little while"
    if wait is not None and wait > MAX_RETRY_WAIT:
        when += f" (tui-agent waits out at most {MAX_RETRY_WAIT:g} seconds by itself)"
    return RateLimitedError(
        f"{host} is rate limiting requests (429{detail}){still_after(retries)}. Try again {when}.", retry_after=wait
    )


def transport_failure(
    error: Exception, host: str, received: bool, timeout: type[Exception], connection: type[Exception]
) -> LLMError | None:
    """The error for a read that timed out or a connection that broke (`timeout`, `connection`: the SDK's own
    types; httpx's too), by whether any of the reply had arrived; None for another failure."""
    where = "in the middle of the reply" if received else "before the reply started"
    if isinstance(error, timeout) or "Timeout" in type(error).__name__:
        return StreamStalledError(f"The model at {host} stopped sending {where}. Try again.")
    if isinstance(error, connection) or type(error).__module__.startswith(("httpx", "httpcore")):
        if not received:
            return ConnectionFailedError(
                f"The connection to {host} failed before the reply started ({root_cause(error)}). Try again."
            )
        return StreamTruncatedError(f"The connection to {host} closed {where}. Try again.")
    return None


def unexpected(error: Exception, host: str, api_key: str | None) -> LLMError:
    """The error for a failure nothing else words: its type and start, the key scrubbed."""
    return LLMError(
        f"Talking to {host} failed unexpectedly ({type(error).__name__}: {redact(str(error)[:200], api_key)})."
    )


async def sse_payloads(response: Any, watchdog: StallWatchdog) -> AsyncGenerator[list[str], None]:
    """The SSE payloads of `response`'s body, those of each block read together (the watchdog counting each block
    that brought any), then what the parser held when the body ended."""
    parser = SSEParser()
    async for block in response.aiter_bytes():
        payloads = parser.feed(block)
        if payloads:
            watchdog.count += 1
            yield payloads
    if tail := parser.close():
        yield tail


def decode_payload(payload: str) -> Any:
    """One JSON payload, lone surrogates replaced by U+FFFD (legal JSON, but no encoder takes them).

    The C scanner `json.loads` itself ends in is called directly: a stream is ~100,000 small payloads, and the
    three Python calls and two whitespace matches `json.loads` wraps it in were a quarter of decoding one. Any
    payload it does not take whole (spaces around it, not JSON) goes to `json.loads`, which accepts it or
    raises its own error: the same values and the same errors as `json.loads` alone."""
    try:
        value, end = _scan(payload, 0)
    except StopIteration:  # no JSON value starts at 0 (a space, or not JSON)
        end = -1
    if end != len(payload):
        value = json.loads(payload)
    return replace_surrogates_in(value) if may_decode_to_surrogate(payload) else value


_scan = make_scanner(cast(Any, json.JSONDecoder()))
"""`json.loads`'s own scanner (a default `JSONDecoder`'s settings): the JSON value starting at an index, and its
end."""
