"""Provides just enough HTTP/1.1 for the offline server: read a request, write a response or a chunked stream.

Hand-written on asyncio streams so the offline model needs no web framework; keep-alive is supported
because the openai client reuses connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from weakref import WeakKeyDictionary

MAX_BODY = 32 * 1024 * 1024
FLUSH_AT = 64 * 1024
_ADDED: WeakKeyDictionary[asyncio.StreamWriter, dict[str, str]] = WeakKeyDictionary()
"""Headers every response on a connection carries, set per request (`every_response`: CORS)."""


def every_response(writer: asyncio.StreamWriter, headers: dict[str, str]) -> None:
    """Make every response written to `writer` from now on carry `headers` (empty: none), whichever route
    writes it, until the next call (the server sets them for each request it reads)."""
    if headers:
        _ADDED[writer] = headers
    else:
        _ADDED.pop(writer, None)


@dataclass
class Request:
    """One parsed HTTP request."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def keep_alive(self) -> bool:
        return self.headers.get("connection", "").lower() != "close"


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """Read one request; None when the client closed the connection between requests."""
    line = await reader.readline()
    if not line.strip():
        return None
    method, target, _version = line.decode("latin-1").split(" ", 2)
    headers: dict[str, str] = {}
    while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    if length > MAX_BODY:
        raise ValueError("request body too large")
    body = await reader.readexactly(length) if length else b""
    return Request(method.upper(), target.split("?", 1)[0], headers, body)


def head(status: int, headers: dict[str, str]) -> bytes:
    """The status line and headers of a response."""
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Status"
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def send(
    writer: asyncio.StreamWriter, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None
) -> None:
    """Write a complete response with a Content-Length."""
    headers = {"Content-Type": content_type, "Content-Length": str(len(body)), **(extra or {})}
    writer.write(head(status, {**headers, **_ADDED.get(writer, {})}) + body)
    await writer.drain()


async def send_json(writer: asyncio.StreamWriter, status: int, data: Any, extra: dict[str, str] | None = None) -> None:
    """Write a JSON response."""
    await send(writer, status, json.dumps(data).encode(), "application/json", extra)


class ChunkedStream:
    """A `Transfer-Encoding: chunked` body; small writes are batched until `flush`."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.pending: list[bytes] = []
        self.size = 0

    async def open(self, status: int, headers: dict[str, str]) -> None:
        added = _ADDED.get(self.writer, {})
        self.writer.write(head(status, {**headers, **added, "Transfer-Encoding": "chunked"}))
        await self.writer.drain()

    async def write(self, data: bytes) -> None:
        self.pending.append(data)
        self.size += len(data)
        if self.size >= FLUSH_AT:
            await self.flush()

    async def flush(self) -> None:
        if not self.pending:
            return
        data = b"".join(self.pending)
        self.pending.clear()
        self.size = 0
        self.writer.write(b"%x\r\n%s\r\n" % (len(data), data))
        await self.writer.drain()

    async def close(self) -> None:
        await self.flush()
        self.writer.write(b"0\r\n\r\n")
        await self.writer.drain()

    async def cut(self) -> None:
        """End the body mid-way, as a dropped connection does: what was written goes out, then no last chunk."""
        await self.flush()
        self.writer.transport.abort()

    async def stall(self, reader: asyncio.StreamReader) -> None:
        """Go quiet mid-way: what was written goes out, then nothing, the connection held open until the client
        gives up."""
        await self.flush()
        with contextlib.suppress(ConnectionError):
            while await reader.read(65536):
                pass
