"""Provides `connect`, `call_tool`, `catalogue`, `read_resource`, `get_prompt`, `result_text`, `result_media` and
`sampling_request`: the only code that talks to the MCP SDK (a server's sampling requests become
`sampling.SamplingRequest`s, answered through `connect`'s `on_sample`).

Importing this module imports the SDK (about a second): `servers` loads it in a thread, after the first
frame. The SDK's loggers are silenced here, once: they print tracebacks to stderr (a server that crashes,
a malformed line) and stderr is the user's terminal; what went wrong reaches the user as a sentence instead.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import mimetypes
import os
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from tui_agent.config import McpServerSettings
from tui_agent.payloads import Attachment
from tui_agent.sandbox import Policy
from tui_agent.sandbox import run as sandbox_run
from tui_agent.tools.mcp.elicitation import Action, Value
from tui_agent.tools.mcp.environment import server_environment
from tui_agent.tools.mcp.oauth import http_auth
from tui_agent.tools.mcp.oauth_desk import SignIn
from tui_agent.tools.mcp.sampling import SamplingDenied, SamplingMessage, SamplingReply, SamplingRequest
from tui_agent.tools.progress import current_reporter
from tui_agent.tools.results import ToolResult

Tool = types.Tool
CallError = MCPError
LIST_CHANGES = (
    types.ToolListChangedNotification,
    types.PromptListChangedNotification,
    types.ResourceListChangedNotification,
)
"""What makes the server's tools, prompts and resources be listed again."""
Elicit = Callable[[str, dict[str, Any] | None, str | None], Awaitable[tuple[Action, dict[str, Value] | None]]]
"""Answers a server's request for input: (message, form schema, URL) → (action, values)."""
Sample = Callable[[SamplingRequest], Awaitable[SamplingReply]]
"""Answers a server's sampling request (its `server` left empty: the caller knows which it is); raises
`SamplingDenied` when the user (or `-p`) refuses it."""
WAVE, WAVE_TYPES = ".wav", ("audio/wav", "audio/wave", "audio/x-wav")
"""WAV's types, which Python's `mimetypes` does not all know."""
USER_REJECTED = -1
"""The error code MCP gives a sampling request the user rejected."""

for _name in ("mcp", "mcp_types", "httpx2", "httpcore"):
    _logger = logging.getLogger(_name)
    _logger.addHandler(logging.NullHandler())
    _logger.propagate = False  # never to the root logger's last-resort stderr handler


class ToolReportedError(ValueError):
    """The tool answered with `isError`: a failed call whose text is for the model (a ValueError, so the
    runner shows the message alone)."""


async def connect(
    stack: AsyncExitStack,
    settings: McpServerSettings,
    errlog: TextIO,
    on_tools_changed: Callable[[], Awaitable[None]],
    on_stray_output: Callable[[str], None] = lambda line: None,
    on_log: Callable[[str], None] = lambda line: None,
    on_elicit: Elicit | None = None,
    on_sample: Sample | None = None,
    sign_in: SignIn | None = None,
) -> ClientSession:
    """Open the transport and the session inside `stack` (which the caller's task must close), initialise.
    `on_stray_output(line)` hears of each line the server wrote on stdout that is not JSON-RPC; `on_log(line)`
    of each log message it sent (`notifications/message`, info and above); `on_elicit(message, schema, url)`
    answers its requests for the user's input (`(action, values)`); `on_sample(request)` its requests that the
    model answer a prompt (sampling: declared only when given); `sign_in`, its OAuth sign-in (an HTTP server
    only). The working directory is offered as the session's root."""
    if settings.command is not None:
        argv = [settings.command, *settings.args]
        if settings.sandbox:  # the SDK takes a command line only: a launcher confines itself, then execs it
            argv = sandbox_run.wrapped(argv, Policy(network=settings.sandbox_network))
        parameters = StdioServerParameters(
            command=argv[0],
            args=argv[1:],
            env=server_environment(settings.env),
            cwd=_cwd(settings.cwd),
            # Not "strict": a byte that is not UTF-8 would end the SDK's reader, which then waits for the
            # server to exit, and the start-up hangs without a word. Replaced, it is a line that is not
            # JSON-RPC, which the session hands to `on_message` and we can name.
            encoding_error_handler="replace",
        )
        read, write = await stack.enter_async_context(stdio_client(parameters, errlog=errlog))
    else:
        assert settings.url is not None
        # OAuth (oauth.py) when the server may use it: a kept sign-in sent and refreshed, or a new one started
        auth = http_auth(sign_in) if sign_in is not None else None
        client = create_mcp_http_client(headers=_headers(settings), auth=auth)
        await stack.enter_async_context(client)
        read, write = await stack.enter_async_context(streamable_http_client(settings.url, http_client=client))

    async def on_message(message: Any) -> None:
        if isinstance(message, LIST_CHANGES):
            await on_tools_changed()
        elif isinstance(message, Exception) and (line := stray_line(message)) is not None:
            on_stray_output(line)

    async def logged(params: types.LoggingMessageNotificationParams) -> None:
        on_log(log_line(params))

    async def elicited(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        if on_elicit is None:
            return types.ElicitResult(action="decline")
        url = params.url if isinstance(params, types.ElicitRequestURLParams) else None
        schema = None if isinstance(params, types.ElicitRequestURLParams) else params.requested_schema
        action, content = await on_elicit(params.message, schema, url)
        return types.ElicitResult(action=action, content=content if action == "accept" and url is None else None)

    async def sampled(
        context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        assert on_sample is not None
        try:
            reply = await on_sample(sampling_request(params))
        except SamplingDenied as denied:
            return types.ErrorData(code=USER_REJECTED, message=str(denied))
        except Exception as error:  # the model failed (no key, offline...): the server is told why, in a sentence
            return types.ErrorData(code=types.INTERNAL_ERROR, message=str(error) or type(error).__name__)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=reply.text),
            model=reply.model,
            stop_reason=reply.stop_reason,
        )

    session = await stack.enter_async_context(
        ClientSession(
            read,
            write,
            message_handler=on_message,
            logging_callback=logged,
            list_roots_callback=_roots,
            elicitation_callback=elicited,
            sampling_callback=sampled if on_sample is not None else None,
            log_level="info",
        )
    )
    await session.initialize()
    return session


async def list_tools(session: ClientSession) -> list[Tool]:
    """Every tool the server offers (all pages)."""
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


async def catalogue(session: ClientSession) -> tuple[list[Any], list[Any], list[Any]]:
    """The server's resources, resource templates and prompts (all pages); empty for what it does not offer, or
    fails to list (its tools still work)."""
    offers = session.server_capabilities
    resources: list[Any] = []
    templates: list[Any] = []
    prompts: list[Any] = []
    if offers is not None and offers.resources is not None:
        resources = await _all_pages(session.list_resources, "resources")
        templates = await _all_pages(session.list_resource_templates, "resource_templates")
    if offers is not None and offers.prompts is not None:
        prompts = await _all_pages(session.list_prompts, "prompts")
    return resources, templates, prompts


async def _all_pages(list_page: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    found: list[Any] = []
    cursor: str | None = None
    try:
        while True:
            page = await list_page(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            found.extend(getattr(page, field))
            cursor = page.next_cursor
            if not cursor:
                return found
    except MCPError:
        return found


async def read_resource(session: ClientSession, uri: str) -> str | ToolResult:
    """The resource at `uri` as text (its images kept as attachments, other binary content as a stand-in)."""
    result = await session.read_resource(uri)
    parts: list[str] = []
    images: list[Attachment] = []
    for item in result.contents:
        if isinstance(item, types.TextResourceContents):
            parts.append(item.text)
            continue
        data = base64.b64decode(getattr(item, "blob", ""), validate=False)
        attachment = Attachment.of_bytes(str(item.uri).rsplit("/", 1)[-1] or "resource", data, item.mime_type)
        if attachment.kind == "image":
            images.append(attachment)
        else:
            parts.append(f"[resource {item.uri}: {item.mime_type or 'binary'}, {len(data)} bytes]")
    text = "\n".join(parts)
    return ToolResult(text, images) if images else text


async def get_prompt(session: ClientSession, name: str, arguments: dict[str, str]) -> list[tuple[str, str]]:
    """The prompt's messages as (role, text); content that is not text becomes a readable stand-in."""
    result = await session.get_prompt(name, arguments)
    return [(message.role, _content_text(message.content)) for message in result.messages]


async def call_tool(session: ClientSession, name: str, arguments: dict[str, Any]) -> str | ToolResult:
    """Call `name`; its result as text, or with the images and audio it returned as a `ToolResult`
    (`ToolReportedError` for `isError`)."""
    reporter = current_reporter()

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        if reporter is not None:
            reporter(progress, total, message)

    result = await session.call_tool(name, arguments, progress_callback=progressed)
    media = result_media(result) if not result.is_error else []
    text = result_text(result, media_apart=bool(media))
    if result.is_error:
        raise ToolReportedError(text or f"{name} reported an error")
    return ToolResult(text, media) if media else text


def sampling_request(params: types.CreateMessageRequestParams, server: str = "") -> SamplingRequest:
    """A sampling request as tui-agent shows and answers it: text and images kept, other content as stand-ins."""
    messages = []
    for message in params.messages:
        texts: list[str] = []
        images: list[Attachment] = []
        for item in message.content_as_list:
            if isinstance(item, types.ImageContent):
                try:
                    image = Attachment.of_bytes(
                        f"image-{len(images) + 1}", base64.b64decode(item.data, validate=True), item.mime_type
                    )
                except ValueError:
                    image = None
                if image is not None and image.kind == "image":
                    images.append(image)
                    continue
            texts.append(_content_text(item))
        messages.append(SamplingMessage(message.role, "\n".join(text for text in texts if text), tuple(images)))
    hints = (params.model_preferences.hints or []) if params.model_preferences is not None else []
    return SamplingRequest(
        server,
        tuple(messages),
        params.max_tokens,
        params.system_prompt,
        params.temperature,
        tuple(params.stop_sequences or ()),
        tuple(hint.name for hint in hints if hint.name),
    )


def log_line(params: types.LoggingMessageNotificationParams) -> str:
    """A log message as one line of the server's log: `[warning] indexer: disk almost full`."""
    data = params.data if isinstance(params.data, str) else json.dumps(params.data, ensure_ascii=False, default=str)
    source = f"{params.logger}: " if params.logger else ""
    return f"[{params.level}] {source}{data}"


async def _roots(context: Any) -> types.ListRootsResult:
    """The session's roots: the working directory (the folder tui-agent works in)."""
    folder = Path.cwd()
    return types.ListRootsResult(roots=[types.Root(uri=folder.as_uri(), name=folder.name or str(folder))])


def stray_line(error: Exception) -> str | None:
    """The stdout line a transport error is about, when it is one the server wrote that is not JSON-RPC."""
    if not isinstance(error, ValidationError):
        return None
    found = error.errors()
    line = found[0].get("input") if found else None
    return line if isinstance(line, str) else None


def is_closed(session: ClientSession) -> bool:
    """Whether the connection has ended (the server exited or hung up) — known before a request is sent, so a
    call can restart the server rather than fail. The SDK has no public flag for it: this reads its
    dispatcher's, and `tests/unit/tools/test_mcp.py` checks it still says so after a server dies."""
    return bool(getattr(getattr(session, "_dispatcher", None), "_closed", False))


def result_media(result: types.CallToolResult) -> list[Attachment]:
    """The images and audio among the result's content, as attachments: an image goes to a model that takes
    images, audio is kept as a file (a chip with its type and size; models are sent its stand-in). One whose
    data is not base64, or not the image it claims to be, is left to its stand-in text."""
    media: list[Attachment] = []
    for item in result.content:
        if not isinstance(item, types.ImageContent | types.AudioContent):
            continue
        try:
            data = base64.b64decode(item.data, validate=True)
        except ValueError:
            continue
        count = 1 + sum(1 for kept in media if (kept.kind == "image") == isinstance(item, types.ImageContent))
        if isinstance(item, types.ImageContent):
            image = Attachment.of_bytes(f"image-{count}", data, item.mime_type)
            if image.kind == "image":
                media.append(image)
        else:
            extension = WAVE if item.mime_type in WAVE_TYPES else mimetypes.guess_extension(item.mime_type) or ""
            media.append(Attachment("file", f"audio-{count}{extension}", item.mime_type, data))
    return media


def result_text(result: types.CallToolResult, media_apart: bool = False) -> str:
    """Text, images, audio and resource links as readable text (their annotations said); structured content as
    JSON (instead of the text copy of it that servers usually send alongside). `media_apart`: the images and
    audio kept as attachments are left out (the runner adds their stand-ins after the text)."""
    structured = result.structured_content
    if structured is not None and list(structured) == ["result"] and result.content:
        structured = None  # the SDK's wrapping of a plain return value, whose text is in `content` already
    kept = {attachment.hash for attachment in result_media(result)} if media_apart else set()
    parts = [
        _content_text(item) + annotations_note(item)
        for item in result.content
        if (structured is None or not isinstance(item, types.TextContent)) and not _apart(item, kept)
    ]
    if structured is not None:
        parts.insert(0, json.dumps(structured, indent=2, ensure_ascii=False))
    return "\n".join(part for part in parts if part)


def annotations_note(item: Any) -> str:
    """What a content item's annotations say, kept beside it: ` (for the user; priority 0.9; modified …)`;
    empty without any."""
    annotations = getattr(item, "annotations", None)
    if annotations is None:
        return ""
    said = []
    if annotations.audience:
        said.append("for the " + " and the ".join(annotations.audience))
    if annotations.priority is not None:
        said.append(f"priority {annotations.priority:g}")
    if annotations.last_modified:
        said.append(f"modified {annotations.last_modified}")
    return f" ({'; '.join(said)})" if said else ""


def _apart(item: Any, kept: set[str]) -> bool:
    """Whether `item` is an image or audio kept as an attachment (its stand-in comes from the runner)."""
    if not kept or not isinstance(item, types.ImageContent | types.AudioContent):
        return False
    try:
        return hashlib.sha256(base64.b64decode(item.data, validate=True)).hexdigest() in kept
    except ValueError:
        return False


def _content_text(item: Any) -> str:
    if isinstance(item, types.TextContent):
        return item.text
    if isinstance(item, types.ImageContent | types.AudioContent):
        kind = "image" if isinstance(item, types.ImageContent) else "audio"
        return f"[{kind}: {item.mime_type}, {_decoded_size(item.data)} bytes]"
    if isinstance(item, types.ResourceLink):
        about = f" — {item.description}" if item.description else ""
        return f"[resource: {item.name} <{item.uri}>]{about}"
    if isinstance(item, types.EmbeddedResource):
        resource = item.resource
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return f"[resource {resource.uri}]\n{text}"
        return f"[resource {resource.uri}: {resource.mime_type or 'binary'}]"
    return f"[{getattr(item, 'type', type(item).__name__)} content]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)


def _headers(settings: McpServerSettings) -> dict[str, str]:
    headers = dict(settings.headers)
    if settings.bearer_token_env_var:
        token = os.environ.get(settings.bearer_token_env_var)
        if not token:
            raise RuntimeError(f"${settings.bearer_token_env_var} (bearer_token_env_var) is not set")
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _cwd(cwd: str | None) -> str | None:
    return os.path.expanduser(cwd) if cwd else None
