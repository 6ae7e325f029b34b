"""Provides `GuardedBackend`: the network backend of a web fetch, which connects only to allowed addresses.

The address is checked where the connection is made, after DNS resolution, and the connection goes to the
address that was checked: a name that resolves to a public address when asked and to 127.0.0.1 a moment later
(DNS rebinding) cannot slip through, and every redirect's new connection is checked the same way. TLS still
verifies the certificate against the host name of the URL (httpcore sends it as the server name).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable, Sequence

import httpcore2

from tui_agent.tools.web.addresses import Address, refusal


class RefusedAddress(Exception):
    """The host resolves only to addresses a fetch may not reach; the message says which and how to allow."""


class GuardedBackend(httpcore2.AsyncNetworkBackend):
    """Connects like the default backend, to the first resolved address `[web] allow_private` permits."""

    def __init__(self, allow_private: Sequence[str]) -> None:
        self.allow_private = tuple(allow_private)
        self.inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        async with asyncio.timeout(timeout):
            address = await self.checked_address(host, port)
        return await self.inner.connect_tcp(str(address), port, timeout, local_address, socket_options)

    async def checked_address(self, host: str, port: int) -> Address:
        """The first address of `host` a fetch may reach; raises `RefusedAddress` when none may."""
        addresses = await resolved(host, port)
        reasons = [refusal(host, address, self.allow_private) for address in addresses]
        for address, reason in zip(addresses, reasons, strict=True):
            if reason is None:
                return address
        raise RefusedAddress(next((reason for reason in reasons if reason), f"{host} has no address"))

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        raise RefusedAddress("web_fetch does not connect to local sockets")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def resolved(host: str, port: int) -> list[Address]:
    """The addresses `host` resolves to now (an address literal is itself), without duplicates."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    return list(dict.fromkeys(found))
