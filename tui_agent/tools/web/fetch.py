"""Provides `fetch`: one GET of a web address, redirects followed within limits, the body capped in size and time.

Only http and https; every hop's connection goes through `GuardedBackend` (public addresses only, unless
allowed); the body is read up to `max_bytes` and the rest left unread. No content decoding is asked for
(`Accept-Encoding: identity`), so what arrives is what is measured.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import httpcore2

from tui_agent.tools.web.guarded import GuardedBackend, RefusedAddress

REDIRECTS = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "tui-agent web_fetch (+https://github.com/tui-agent)"
URL_SAFE = "/%:@!$&'()*+,;=-._~?"
"""Characters left as they are in a path or query: the rest (spaces, non-ASCII) is percent-encoded."""
ACCEPT = "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.5"


class FetchError(ValueError):
    """The page could not be fetched; the message is a sentence for the model and the user (a ValueError, so
    the runner shows it alone)."""


@dataclass(frozen=True)
class Limits:
    """How far a fetch may go."""

    max_bytes: int = 5_000_000
    timeout: float = 20.0
    """Seconds for the whole fetch, redirects included."""
    max_redirects: int = 5


@dataclass(frozen=True)
class Page:
    """What a fetch got: the final address, the answer's status and type, and the body (perhaps cut)."""

    url: str
    status: int
    content_type: str
    body: bytes
    cut: bool = False
    """The body went on past `max_bytes` and was not read further."""
    redirects: tuple[str, ...] = field(default=())

    @property
    def media_type(self) -> str:
        return self.content_type.split(";")[0].strip().lower()

    @property
    def charset(self) -> str | None:
        for part in self.content_type.split(";")[1:]:
            key, _, value = part.partition("=")
            if key.strip().lower() == "charset" and value.strip():
                return value.strip().strip('"')
        return None


def checked_url(url: str) -> str:
    """`url` when it is an http(s) address with a host; raises `FetchError` saying what is wrong otherwise."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https"):
        raise FetchError(f"{url!r} is not an http or https address; web_fetch fetches only those")
    if not parts.hostname:
        raise FetchError(f"{url!r} has no host")
    if parts.username or parts.password:
        raise FetchError(f"{url!r} carries a user name or password; web_fetch does not send credentials")
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise FetchError(f"{url!r} has a host name that cannot be looked up ({parts.hostname!r})") from exc
    host = f"[{host}]" if ":" in host else host
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    path, query = quote(parts.path or "/", safe=URL_SAFE), quote(parts.query, safe=URL_SAFE)
    return urlunsplit((parts.scheme.lower(), netloc, path, query, ""))


async def fetch(url: str, limits: Limits, allow_private: tuple[str, ...] = ()) -> Page:
    """GET `url`, following up to `limits.max_redirects` redirects; raises `FetchError` with a sentence."""
    url = checked_url(url)
    pool = httpcore2.AsyncConnectionPool(network_backend=GuardedBackend(allow_private), retries=0)
    try:
        async with pool, asyncio.timeout(limits.timeout):
            return await _follow(pool, url, limits)
    except TimeoutError as exc:
        raise FetchError(f"{url} did not answer within {limits.timeout:g} s") from exc
    except RefusedAddress as exc:
        raise FetchError(str(exc)) from exc
    except httpcore2.TimeoutException as exc:
        raise FetchError(f"{url} did not answer in time") from exc
    except (httpcore2.NetworkError, httpcore2.ProtocolError, httpcore2.ProxyError) as exc:
        raise FetchError(f"{url} could not be fetched: {exc or type(exc).__name__}") from exc


async def _follow(pool: httpcore2.AsyncConnectionPool, url: str, limits: Limits) -> Page:
    hops: list[str] = []
    while True:
        async with pool.stream("GET", url, headers=_headers()) as response:
            location = _header(response, b"location")
            if response.status in REDIRECTS and location:
                if len(hops) >= limits.max_redirects:
                    raise FetchError(f"{hops[0]} redirected more than {limits.max_redirects} times")
                hops.append(url)
                url = checked_url(urljoin(url, location))
                continue
            body, cut = await _read_capped(response, limits.max_bytes)
            content_type = _header(response, b"content-type") or "application/octet-stream"
            return Page(url, response.status, content_type, body, cut, tuple(hops))


def _headers() -> list[tuple[bytes, bytes]]:
    return [
        (b"User-Agent", USER_AGENT.encode()),
        (b"Accept", ACCEPT.encode()),
        (b"Accept-Encoding", b"identity"),
    ]


def _header(response: httpcore2.Response, name: bytes) -> str | None:
    for key, value in response.headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _read_capped(response: httpcore2.Response, cap: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_stream():
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            return b"".join(chunks)[:cap], True
    return b"".join(chunks), False
