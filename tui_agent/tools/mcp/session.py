"""Provides `connect`, `call_tool`, `catalogue`, `read_resource`, `get_prompt` and `result_text`: the only code
that talks to the MCP SDK.

Importing this module imports the SDK (about a second): `servers` loads it in a thread, after the first
frame. The SDK's loggers are silenced here, once: they print tracebacks to stderr (a server that crashes,
a malformed line) and stderr is the user's terminal; what went wrong reaches the user as a sentence instead.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
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
    sign_in: SignIn | None = None,
) -> ClientSession:
    """Open the transport and the session inside `stack` (which the caller's task must close), initialise.
    `on_stray_output(line)` hears of each line the server wrote on stdout that is not JSON-RPC; `on_log(line)`
    of each log message it sent (`notifications/message`, info and above); `on_elicit(message, schema, url)`
    answers its requests for the user's input (`(action, values)`); `sign_in`, its OAuth sign-in (an HTTP server
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

    session = await stack.enter_async_context(
        ClientSession(
            read,
            write,
            message_handler=on_message,
            logging_callback=logged,
            list_roots_callback=_roots,
            elicitation_callback=elicited,
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
    """Call `name`; its result as text, or with the images it returned as a `ToolResult` (`ToolReportedError`
    for `isError`)."""
    reporter = current_reporter()

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        if reporter is not None:
            reporter(progress, total, message)

    result = await session.call_tool(name, arguments, progress_callback=progressed)
    images = result_images(result) if not result.is_error else []
    text = result_text(result, images_apart=bool(images))
    if result.is_error:
        raise ToolReportedError(text or f"{name} reported an error")
    return ToolResult(text, images) if images else text


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


def result_images(result: types.CallToolResult) -> list[Attachment]:
    """The images among the result's content, as attachments (one whose data is not an image it claims to be
    is left to its stand-in text)."""
    images: list[Attachment] = []
    for item in result.content:
        if isinstance(item, types.ImageContent):
            try:
                data = base64.b64decode(item.data, validate=True)
            except ValueError:
                continue
            image = Attachment.of_bytes(f"image-{len(images) + 1}", data, item.mime_type)
            if image.kind == "image":
                images.append(image)
    return images


def result_text(result: types.CallToolResult, images_apart: bool = False) -> str:
    """Text, images and resource links as readable text; structured content as JSON (instead of the text
    copy of it that servers usually send alongside). `images_apart`: the images that are one are left out (the
    runner adds their stand-ins after the text)."""
    structured = result.structured_content
    if structured is not None and list(structured) == ["result"] and result.content:
        structured = None  # the SDK's wrapping of a plain return value, whose text is in `content` already
    kept = result_images(result) if images_apart else []
    shown = {image.hash for image in kept}
    parts = [
        _content_text(item)
        for item in result.content
        if (structured is None or not isinstance(item, types.TextContent)) and not _apart(item, shown)
    ]
    if structured is not None:
        parts.insert(0, json.dumps(structured, indent=2, ensure_ascii=False))
    return "\n".join(part for part in parts if part)


def _apart(item: Any, images: set[str]) -> bool:
    """Whether `item` is an image kept as an attachment (its stand-in comes from the runner)."""
    if not images or not isinstance(item, types.ImageContent):
        return False
    try:
        return hashlib.sha256(base64.b64decode(item.data, validate=True)).hexdigest() in images
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
