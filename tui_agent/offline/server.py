"""Provides the offline model's HTTP server (`OfflineServer`) and a thread-hosted wrapper (`BackgroundServer`).

Speaks the OpenAI chat-completions API on 127.0.0.1: `POST /v1/chat/completions` (SSE streaming or one
JSON body), `GET /v1/models` and `POST /v1/embeddings` (deterministic vectors, `embeddings_route.py`); and
Anthropic's Messages API, `POST /v1/messages` (`anthropic_route.py`).
Any model name and any API key are accepted. In strict mode a request
a strict chat template would refuse (roles that do not alternate, unanswered tool calls...) gets 400.
Replies come from the scenario in order, then from the default behaviour. Every request is recorded in
`requests` (without its headers, so no API key is kept) with how it ended, for tests. A request naming
another host, or without the key the server was given, is refused first (`guard.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal
from urllib.parse import unquote

from tui_agent.offline import frames, served
from tui_agent.offline.agent_route import ServedModels, serve_served
from tui_agent.offline.anthropic_route import serve_messages
from tui_agent.offline.attached import INVALID_IMAGE, NO_IMAGES, has_broken_image, has_image
from tui_agent.offline.behaviour import text_of
from tui_agent.offline.cors import Cors
from tui_agent.offline.embeddings_route import serve_embeddings
from tui_agent.offline.guard import Guard
from tui_agent.offline.http import ChunkedStream, Request, every_response, read_request, send, send_json
from tui_agent.offline.prompt_cache import PromptCache
from tui_agent.offline.request_checks import request_problem, stops
from tui_agent.offline.request_options import answer_as_asked, stopped
from tui_agent.offline.scenario import Reply, Scenario, ToolCallSpec, as_scenario
from tui_agent.offline.strict import role_problem

HTML_PAGE = b"<!DOCTYPE html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>\n"
MALFORMED = b'data: {"id": "chatcmpl-broken", "choices": [{"delta": {"content": "oops"\n\n'
NON_UTF8 = b'data: {"choices": [{"index": 0, "delta": {"content": "\xff\xfe\xc3("}}]}\n\n'


@dataclass
class RequestRecord:
    """What the server saw and how the response ended."""

    method: str
    path: str
    body: dict[str, Any] | None
    outcome: str = "pending"
    """pending, ok, status <n>, html, stalled, cut, client_closed."""
    events: int = field(default=0)
    """SSE events written."""
    request_id: str = ""
    """Sent back as `X-Request-Id` (chat requests: `req_offline_<n>`, n counting every request)."""


ErrorBody = Callable[[int, str | None], dict[str, Any]]
"""A protocol's error object for a status and a message (`frames.error_body`, `anthropic_protocol.error_body`)."""


@dataclass
class Received:
    """A request a route answers: its JSON body, its record (in `OfflineServer.requests`), and the headers that
    tag every response to it with its id."""

    body: dict[str, Any]
    record: RequestRecord
    headers: dict[str, str]


class OfflineServer:
    """The asyncio server; `await start()` returns the base URL (`http://127.0.0.1:PORT/v1`).

    Each protocol's route (`_chat` for OpenAI's, `anthropic_route.serve_messages`) answers through the same few
    methods: `receive` (the body, recorded), `refuse` / `refuse_as_scripted` (an error in the protocol's words),
    `next_reply` (the scripted or default reply), `prompt_tokens` and `usage` (the counts, the prompt cache)."""

    def __init__(
        self,
        scenario: Any = None,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        *,
        served_models: ServedModels | None = None,
        cors: Cors | None = None,
    ) -> None:
        self.scenario: Scenario = as_scenario(scenario)
        self.host, self.port = host, port
        self.guard = Guard(host, api_key)
        self.served_models = served_models
        """Models answered by something else (`serve`'s agents and teams, `agent_route.py`)."""
        self.cors = cors or Cors()
        """The web origins allowed to call from a browser (none unless `serve --cors-origin` names them)."""
        self.requests: list[RequestRecord] = []
        self._replies = list(self.scenario.replies)
        self._last: Reply | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ids = itertools.count(1)
        self._rendered: dict[tuple[int, str, tuple[int, int, int] | None], list[str]] = {}
        """Payloads of scripted replies, rendered once (benchmarks repeat one huge reply)."""
        self._prompt_cache = PromptCache(words)
        self._used: frozenset[str] = frozenset()
        """Models chat requests have asked for (an imitated Ollama has loaded them)."""

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._on_connection, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.base_url

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while (request := await read_request(reader)) is not None:
                if not await self._dispatch(request, reader, writer) or not request.keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass  # a client that goes away or speaks nonsense just loses its connection
        except asyncio.CancelledError:
            pass  # `stop()` cancels open connections; this task is the connection's top level
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _dispatch(self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        path = request.path.rstrip("/")
        every_response(writer, self.cors.headers_for(request))  # nothing unless the page's origin is allowed
        if request.method == "OPTIONS" and (preflight := self.cors.preflight(request)) is not None:
            self.requests.append(RequestRecord(request.method, path, None, "ok"))
            await send(writer, 204, b"", "text/plain", preflight)
            return True
        if (refusal := self.guard.refusal(request)) is not None:
            self.requests.append(RequestRecord(request.method, path, None, f"status {refusal.status}"))
            await send_json(writer, refusal.status, refusal.body)
            return True
        if request.method == "GET" and path in ("/v1/models", "/models"):
            self.requests.append(RequestRecord(request.method, path, None, "ok"))
            data = [self._model_entry(model) for model in self._listed()]
            await send_json(writer, 200, {"object": "list", "data": data})
            return True
        if request.method == "GET" and path.startswith(("/v1/models/", "/models/")):
            return await self._one_model(request, path.split("/models/", 1)[1], writer)
        if request.method == "POST" and path in ("/v1/chat/completions", "/chat/completions"):
            return await self._chat(request, reader, writer)
        if request.method == "POST" and path == "/v1/messages":  # Anthropic's Messages API
            return await serve_messages(self, request, reader, writer)
        if request.method == "POST" and path in ("/v1/embeddings", "/embeddings"):  # deterministic vectors
            return await serve_embeddings(self, request, writer)
        if (answer := served.root_answer(self.scenario, request.method, path, request.body, self._used)) is not None:
            self.requests.append(RequestRecord(request.method, path, None, "ok"))  # llama.cpp's, Ollama's own
            await send_json(writer, 200, answer)
            return True
        self.requests.append(RequestRecord(request.method, path, None, "status 404"))
        await send_json(writer, 404, frames.error_body(404, f"No route {request.method} {path} on the offline model."))
        return True

    def _listed(self) -> list[str]:
        """The model ids `/v1/models` lists: the scenario's, then the served agents and teams."""
        return [*self.scenario.models, *(self.served_models.names() if self.served_models else [])]

    def _model_entry(self, model: str) -> dict[str, Any]:
        if self.served_models is not None and self.served_models.claims(model):
            return {"id": model, "object": "model", "created": 0, "owned_by": "tui-agent"}
        return served.models_entry(self.scenario, model)

    async def _one_model(self, request: Request, model: str, writer: asyncio.StreamWriter) -> bool:
        """`GET /v1/models/{id}`: its entry. Any name is answered (the offline model answers any), but an agent or
        team that is not served is 404, as a chat request naming it would be."""
        model = unquote(model)
        unknown = self.served_models is not None and self.served_models.claims(model) and model not in self._listed()
        self.requests.append(RequestRecord(request.method, request.path, None, "status 404" if unknown else "ok"))
        if unknown:
            said = f"The model {model!r} does not exist: `tui-agent serve` serves {', '.join(self._listed())}."
            await send_json(writer, 404, frames.client_error(said, "model_not_found"))
            return True
        await send_json(writer, 200, self._model_entry(model))
        return True

    def script(self, replies: list[Any], then: Literal["default", "repeat_last"] = "default") -> None:
        """Replace the replies still to serve (a test changing the server's behaviour between two turns)."""
        self.scenario = self.scenario.model_copy(update={"then": then})
        self._replies = [Reply.model_validate(reply) for reply in replies]
        self._last = None

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self._replies:
            self._last = self._replies.pop(0)
            return self._last
        if self.scenario.then == "repeat_last" and self._last is not None:
            return self._last
        reply = answer_as_asked(body)
        return reply.model_copy(update={"chunk_delay": self.scenario.default_chunk_delay})

    async def receive(
        self, request: Request, writer: asyncio.StreamWriter, error_body: ErrorBody, id_header: str
    ) -> Received | None:
        """The request's JSON body, recorded, its responses to be tagged `id_header: req_offline_<n>`; None when
        the body is not a JSON object (answered 400 in the protocol's words)."""
        try:
            body = json.loads(request.body)
            assert isinstance(body, dict)
        except (ValueError, AssertionError):
            self.requests.append(RequestRecord(request.method, request.path, None, "status 400"))
            await send_json(writer, 400, error_body(400, "The request body is not a JSON object."))
            return None
        record = RequestRecord(request.method, request.path, body, request_id=f"req_offline_{len(self.requests) + 1}")
        self.requests.append(record)
        return Received(body, record, {id_header: record.request_id})

    async def refuse(
        self, writer: asyncio.StreamWriter, received: Received, status: int, error: dict[str, Any]
    ) -> bool:
        """Answer `status` with `error` (the protocol's error object), recorded; True: the connection goes on."""
        received.record.outcome = f"status {status}"
        await send_json(writer, status, error, received.headers)
        return True

    async def refuse_as_scripted(
        self, writer: asyncio.StreamWriter, received: Received, reply: Reply, error_body: ErrorBody
    ) -> bool:
        """Answer a scripted error `reply` (its status, message and Retry-After)."""
        if reply.retry_after is not None:
            wait = reply.retry_after
            received.headers["Retry-After"] = wait if isinstance(wait, str) else f"{wait:g}"
        return await self.refuse(writer, received, reply.status, error_body(reply.status, reply.error_message))

    def next_reply(self, body: dict[str, Any], limit: int | None = None) -> Reply:
        """The reply to the chat-shaped `body`: the next scripted one, else the default behaviour's; cut after
        `limit` tokens, and each of its calls with an id."""
        return self._with_call_ids(frames.within_limit(stopped(self._next_reply(body), stops(body)), limit))

    @staticmethod
    def prompt_tokens(body: dict[str, Any]) -> int:
        """The chat-shaped `body`'s prompt tokens, as the offline model counts them."""
        return _usage(body, Reply())[0]

    async def _chat(self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        # Tagged `X-Request-Id`, as OpenAI and most proxies do: support desks ask for it.
        if (received := await self.receive(request, writer, frames.error_body, "X-Request-Id")) is None:
            return True
        body, record = received.body, received.record
        if (wrong := request_problem(body)) is not None:  # no messages, a tool_choice naming no tool...
            return await self.refuse(writer, received, 400, wrong)
        if self.served_models is not None and self.served_models.claims(str(body.get("model"))):
            return await serve_served(self, self.served_models, received, reader, writer)
        self._used |= {str(body.get("model"))}
        # Each refusal comes before any scripted reply is used, as a server's would.
        if self.scenario.strict and (problem := role_problem(body.get("messages"))) is not None:
            return await self.refuse(writer, received, 400, frames.error_body(400, problem))
        if self.scenario.text_only and has_image(body.get("messages")):
            # as vLLM or llama.cpp answer for a model without a vision encoder
            return await self.refuse(writer, received, 400, frames.error_body(400, NO_IMAGES))
        if self.scenario.check_images and has_broken_image(body.get("messages")):
            # as OpenAI answers an image it cannot decode
            return await self.refuse(writer, received, 400, frames.error_body(400, INVALID_IMAGE))
        prompt = self.prompt_tokens(body)
        if (refusal := served.too_long(self.scenario, prompt)) is not None:
            return await self.refuse(writer, received, 400, refusal)
        limits = [n for n in (frames.token_limit(body), served.reply_room(self.scenario, prompt)) if n is not None]
        reply = self.next_reply(body, min(limits, default=None))
        if reply.status != 200:
            return await self.refuse_as_scripted(writer, received, reply, frames.error_body)
        tagged = received.headers
        if reply.html:
            record.outcome = "html"
            await send(writer, 200, HTML_PAGE, "text/html; charset=utf-8", tagged)
            return True
        if body.get("stream") and not reply.ignore_stream:
            return await self._stream(reply, body, record, reader, writer)
        record.outcome = "ok"
        ids = self._identity(body)
        await send_json(
            writer, 200, frames.completion_body(reply, ids[0], ids[1], ids[2], self.usage(body, reply)), tagged
        )
        return True

    def _with_call_ids(self, reply: Reply) -> Reply:
        """`reply` with a unique id for each call that has none (unless calls are numbered per response)."""
        if self.scenario.call_ids == "per_response" or all(spec.id for spec in reply.all_calls):
            return reply

        def with_ids(specs: list[ToolCallSpec]) -> list[ToolCallSpec]:
            return [
                spec if spec.id else spec.model_copy(update={"id": f"call_{secrets.token_hex(12)}"}) for spec in specs
            ]

        segments = [
            segment.model_copy(update={"tool_calls": with_ids(segment.tool_calls)}) for segment in reply.interleaved
        ]
        return reply.model_copy(update={"tool_calls": with_ids(reply.tool_calls), "interleaved": segments})

    def _identity(self, body: dict[str, Any]) -> tuple[str, int, str]:
        return str(body.get("model") or "offline"), int(time.time()), f"chatcmpl-offline-{next(self._ids)}"

    def _payloads(self, reply: Reply, body: dict[str, Any]) -> list[str]:
        if reply.raw_events is not None:
            return list(reply.raw_events)
        wants_usage = (body.get("stream_options") or {}).get("include_usage")
        counted = self.usage(body, reply)  # the prompt cache remembers every request, usage asked for or not
        usage = counted if wants_usage else None
        key = (id(reply), str(body.get("model")), usage)
        if not any(reply is scripted for scripted in self.scenario.replies):
            return self._render(reply, body, usage)
        if key not in self._rendered:
            self._rendered[key] = self._render(reply, body, usage)
        return self._rendered[key]

    def usage(self, body: dict[str, Any], reply: Reply) -> tuple[int, int, int]:
        """The request's usage: prompt and completion tokens (`_usage`), and of the prompt's, those an earlier
        request already sent (the prompt cache), or the scripted counts."""
        prompt, completion = _usage(body, reply)
        cached = self._prompt_cache.cached(body.get("messages"))
        if reply.usage is not None:
            return prompt, completion, reply.usage.cached_tokens
        return prompt, completion, min(cached, prompt)

    def _render(self, reply: Reply, body: dict[str, Any], usage: tuple[int, int, int] | None) -> list[str]:
        chunks = frames.ChunkWriter(*self._identity(body))
        payloads = [chunks.chunk(delta, reason) for delta, reason in frames.reply_deltas(reply)]
        if reply.missing_finish_reason:
            return payloads
        if usage is not None:
            payloads.append(chunks.usage(*usage))
        return [*payloads, "[DONE]"]

    async def _stream(
        self,
        reply: Reply,
        body: dict[str, Any],
        record: RequestRecord,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        stream = ChunkedStream(writer)
        try:
            await stream.open(
                200,
                {
                    "Content-Type": "text/event-stream; charset=utf-8",
                    "Cache-Control": "no-cache",
                    "X-Request-Id": record.request_id,
                },
            )
            if reply.first_token_delay:
                await asyncio.sleep(reply.first_token_delay)
            payloads = self._payloads(reply, body)
            for number, payload in enumerate(payloads):
                if not await self._fault(reply, number, stream, record, reader):
                    return False
                if number == len(payloads) - 1:
                    record.outcome = "ok"  # before the last event, so a client that has read it sees it recorded
                await stream.write(b"data: %s\n\n" % payload.encode())
                record.events += 1
                if reply.chunk_delay and number < len(payloads) - 1:
                    await stream.flush()
                    await asyncio.sleep(reply.chunk_delay)
            record.outcome = "ok"
            await stream.close()
        except ConnectionError:
            if record.outcome != "ok":  # a client may hang up after [DONE] without reading the last bytes
                record.outcome = "client_closed"
            return False
        return True

    async def _fault(
        self,
        reply: Reply,
        number: int,
        stream: ChunkedStream,
        record: RequestRecord,
        reader: asyncio.StreamReader,
    ) -> bool:
        """Apply the reply's fault due before chunk `number`; False when the response must end here."""
        if number == reply.malformed_after:
            await stream.write(MALFORMED)
        if number == reply.non_utf8_after:
            await stream.write(NON_UTF8)
        if number == reply.stall_after:
            record.outcome = "stalled"
            await stream.stall(reader)
            record.outcome = "client_closed"
            return False
        if number == reply.cut_after:
            record.outcome = "cut"
            await stream.cut()
            return False
        return True


def _usage(body: dict[str, Any], reply: Reply) -> tuple[int, int]:
    """Deterministic token counts: words in; words of reasoning, text and arguments out (reasoning tokens are
    completion tokens, as real servers count them)."""
    if reply.usage is not None:
        return reply.usage.prompt_tokens, reply.usage.completion_tokens
    prompt = sum(words(m.get("content")) for m in body.get("messages") or [] if isinstance(m, dict))
    said = [part for s in reply.segments for part in (s.reasoning, s.text, *map(frames.raw_arguments, s.tool_calls))]
    return prompt, sum(len(part.split()) for part in said)


def words(content: Any) -> int:
    """A message content's tokens, as the offline model counts them: its words."""
    return len(text_of(content).split())


class BackgroundServer:
    """An `OfflineServer` on its own thread and event loop, usable from sync or async code.

    `start()` returns the base URL; `stop()` shuts it down; `with BackgroundServer() as server:` does both.
    """

    def __init__(
        self, scenario: Any = None, host: str = "127.0.0.1", port: int = 0, api_key: str | None = None
    ) -> None:
        self.server = OfflineServer(scenario, host, port, api_key)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def requests(self) -> list[RequestRecord]:
        return self.server.requests

    def start(self) -> str:
        """Start the server thread; returns the base URL once the socket listens."""
        if self._thread is None:
            self._ready = threading.Event()
            self._thread = threading.Thread(target=self._run, name="offline-model", daemon=True)
            self._thread.start()
            self._ready.wait()
        if self._error is not None:
            raise RuntimeError(f"The offline model could not start: {self._error}") from self._error
        return self.base_url

    def stop(self) -> None:
        """Stop the server and join its thread (idempotent)."""
        if self._thread is None:
            return
        if self._loop is not None and self._stopping is not None:
            with contextlib.suppress(RuntimeError):  # loop already closed
                self._loop.call_soon_threadsafe(self._stopping.set)
        self._thread.join(timeout=10)
        self._thread = None

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        try:
            self._loop.run_until_complete(self._main())
        finally:
            self._ready.set()
            self._loop.close()

    async def _main(self) -> None:
        self._stopping = asyncio.Event()
        try:
            await self.server.start()
        except OSError as error:
            self._error = error
            return
        self._ready.set()
        await self._stopping.wait()
        await self.server.stop()

    def __enter__(self) -> BackgroundServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
