"""Provides `CallbackListener`: the loopback address the browser is sent back to after an OAuth sign-in.

The authorisation server redirects the browser to `http://127.0.0.1:PORT/callback?code=…&state=…`; this
listens there (loopback only) for the one request that carries `code` or `error`, answers it with a short
page saying the sign-in is done (or why not) and hands the query's parameters over. Other requests (a
favicon) get a 404. It is plain asyncio: one request line and its headers read, one answer written.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import socket
from urllib.parse import parse_qsl, urlsplit

CALLBACK_PATH = "/callback"
READ_LIMIT = 16_384
"""Bytes of a request's head read at most."""


def free_port() -> int:
    """A loopback port free now (for a redirect URI that must be known before the listener starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class CallbackListener:
    """Listens on 127.0.0.1:`port` until `close()`; `received()` waits for the redirect's parameters."""

    def __init__(self, server: str) -> None:
        """`server`: the MCP server's name, for the page the browser shows."""
        self.server = server
        self._server: asyncio.Server | None = None
        self._found: asyncio.Future[dict[str, str]] | None = None

    async def start(self, port: int) -> None:
        """Listen (OSError when the port is taken)."""
        self._found = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", port)

    async def received(self) -> dict[str, str]:
        """The parameters of the redirect (the caller bounds the wait)."""
        assert self._found is not None, "start() first"
        return await asyncio.shield(self._found)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            writer.close()
            return
        request_line = head[:READ_LIMIT].split(b"\r\n", 1)[0].decode("latin-1")
        parts = request_line.split(" ")
        target = urlsplit(parts[1] if len(parts) >= 2 else "")
        query = dict(parse_qsl(target.query))
        if target.path != CALLBACK_PATH or not ("code" in query or "error" in query):
            await _answer(writer, 404, "Not found", "This address only receives the sign-in's redirect.")
            return
        if "error" in query:
            why = query.get("error_description") or query["error"]
            await _answer(writer, 400, "Sign-in failed", f"{self.server} was not signed in: {why}.")
        else:
            await _answer(writer, 200, "Signed in", f"tui-agent is signed in to {self.server}. You can close this tab.")
        if self._found is not None and not self._found.done():
            self._found.set_result(query)


async def _answer(writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
    body = (
        f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
    ).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    writer.close()
