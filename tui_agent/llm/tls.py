"""Provides `shared_tls`: one TLS context for every model client of the process.

Building a TLS context loads the certificate authorities: 150–300 ms of CPU here. The SDKs build one per
client, and a client is built for the chat's agent, each sub-agent and team member, every request `serve`
runs, and a model switch. The context is the one the SDKs would build themselves (`httpx2`'s default: the
system's authorities, `SSL_CERT_FILE` / `SSL_CERT_DIR` honoured), made once, when the first client is built;
an `SSLContext` holds no connection, so clients on any event loop share it.
"""

from __future__ import annotations

import functools
import ssl

import httpx2


@functools.cache
def shared_tls() -> ssl.SSLContext:
    """The process's TLS context for model clients (built on first use)."""
    return httpx2.create_ssl_context()
