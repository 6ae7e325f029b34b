"""Provides readings of what the transport tells us: how long Retry-After asks to wait, why a connect failed."""

from __future__ import annotations

import email.utils
import socket
import time
from collections.abc import Mapping


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (seconds or an HTTP date); None when absent or bad."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(parsed.timestamp() - time.time(), 0.0)


def root_cause(error: BaseException) -> str:
    """The innermost cause as a short phrase ("connection refused")."""
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and link not in chain:
        chain.append(link)
        link = link.__cause__ or link.__context__
    if any(isinstance(link, ConnectionRefusedError) for link in chain):
        return "connection refused"
    if any(isinstance(link, socket.gaierror) for link in chain):
        return "the host name could not be resolved"
    text = str(chain[-1]).strip() or type(chain[-1]).__name__
    return text[:200]
