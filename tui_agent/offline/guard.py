"""Provides `Guard`: who may use the offline server — the `Host` header it names, and the key it carries.

A web page can make a browser send requests to 127.0.0.1 by DNS rebinding: its own name is made to resolve to
127.0.0.1, and the browser then sends the page's requests there, with the page's name in `Host`. So a request
whose `Host` names something other than this server (a loopback address or `localhost`, the address or name
it was started on; any IP address when it listens on all interfaces) is refused. A request without `Host`
cannot come from a browser and is served. Off loopback, anyone on the network can connect: `serve` refuses to
start there without a key, and then every request must carry it (`Authorization: Bearer KEY`, which is how
OpenAI clients send their API key, or `x-api-key: KEY`, as Anthropic's do).
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from dataclasses import dataclass, field

from tui_agent.offline import frames
from tui_agent.offline.http import Request

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})


@dataclass(frozen=True)
class Refusal:
    """A request the guard turned away: the status and the OpenAI-shaped error body to answer with."""

    status: int
    body: dict[str, object]


@dataclass(frozen=True)
class Guard:
    """The checks for a server bound to `host` (as given to `serve --host`), with an optional key."""

    host: str = "127.0.0.1"
    api_key: str | None = None
    names: frozenset[str] = field(init=False)
    """Host names (lower case) a request may name besides IP addresses."""

    def __post_init__(self) -> None:
        bound = _bare(self.host)
        extra = {socket.gethostname().lower()} if bound in WILDCARDS else set()  # a LAN client may use it
        object.__setattr__(self, "names", LOCAL_NAMES | extra | ({bound} if _ip(bound) is None else set()))

    def refusal(self, request: Request) -> Refusal | None:
        """Why `request` must not be served, or None."""
        host = request.headers.get("host")
        if host is not None and not self.accepts_host(host):
            message = (
                f"The Host header {host!r} does not name this server, so the request was refused (a web page "
                "may be trying to reach a local server through DNS rebinding). Use http://127.0.0.1:PORT/v1, "
                "or start `tui-agent serve --host NAME` with the name clients use."
            )
            return Refusal(403, frames.client_error(message, "host_not_allowed"))
        if self.api_key is not None and not _carries(request, self.api_key):
            message = "This server needs the API key it was started with (sent as `Authorization: Bearer KEY`)."
            return Refusal(401, frames.client_error(message, "invalid_api_key"))
        return None

    def accepts_host(self, header: str) -> bool:
        """Whether a `Host` header names this server (its port is not checked: a proxy may change it)."""
        name = _bare(_without_port(header.strip()))
        address = _ip(name)
        if address is None:
            return name in self.names
        bound = _ip(_bare(self.host))
        return address.is_loopback or address == bound or _bare(self.host) in WILDCARDS


def listens_off_loopback(host: str) -> bool:
    """Whether binding `host` listens on an address other than a loopback one (as asyncio would bind it)."""
    if _bare(host) in WILDCARDS:
        return True
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError):
        return False  # binding fails the same way, and says so
    return any(not ipaddress.ip_address(str(entry[4][0]).split("%", 1)[0]).is_loopback for entry in found)


def _carries(request: Request, key: str) -> bool:
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), key.encode()):
        return True
    anthropic_key = request.headers.get("x-api-key")  # how Anthropic clients send theirs
    return anthropic_key is not None and hmac.compare_digest(anthropic_key.strip().encode(), key.encode())


def _without_port(header: str) -> str:
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _bare(name: str) -> str:
    """A host name or address, lower case, without brackets or a final dot."""
    return name.strip().lower().removeprefix("[").removesuffix("]").rstrip(".")


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None
