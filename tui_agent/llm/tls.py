"""Provides `shared_tls`: one TLS context for every model client of the process.

Building a TLS context loads the certificate authorities: 100–300 ms of CPU here. The SDKs build one per
client, and a client is built for the chat's agent, each sub-agent and team member, every request `serve`
runs, and a model switch. The context is the one the SDKs would build themselves (`httpx2`'s default: the
system's authorities, `SSL_CERT_FILE` / `SSL_CERT_DIR` honoured), made once, when the first client is built;
an `SSLContext` holds no connection, so clients on any event loop share it.

On Linux (where httpx2 loads the authorities from files) they are loaded at the first TLS handshake rather
than when the context is built: a run against an `http://` endpoint (a local model server, the offline model)
never pays for them.
"""

from __future__ import annotations

import functools
import os
import platform
import ssl
import threading
from typing import Any

import httpx2

CA_FILE_CANDIDATES = (
    "/etc/ssl/cert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/pki/tls/cert.pem",
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/ssl/ca-bundle.pem",
)
"""Where distributions keep the bundle when OpenSSL's compiled-in paths hold none (httpcore2's own list)."""


@functools.cache
def shared_tls() -> ssl.SSLContext:
    """The process's TLS context for model clients (built on first use)."""
    if platform.system() != "Linux":
        return httpx2.create_ssl_context()  # the system's trust store (truststore): nothing to load up front
    context = AuthoritiesAtFirstHandshake(ssl.PROTOCOL_TLS_CLIENT)
    context.named_file, context.named_folder = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    if (context.named_file or context.named_folder) and (key_log := os.environ.get("SSLKEYLOGFILE")):
        context.keylog_filename = key_log  # as `ssl.create_default_context`, which httpx2 uses for those, does
    return context


class AuthoritiesAtFirstHandshake(ssl.SSLContext):
    """httpx2's default client context on Linux (certificates and host names checked against the authorities
    `SSL_CERT_FILE` or `SSL_CERT_DIR` names, else OpenSSL's compiled-in ones), which loads those authorities
    just before its first handshake."""

    _loading = threading.Lock()
    _loaded = False
    named_file: str | None = None
    named_folder: str | None = None

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.load_authorities()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.load_authorities()
        return super().wrap_bio(*args, **kwargs)

    def load_authorities(self) -> None:
        """Load the authorities, once (handshakes may start on several threads at once)."""
        with self._loading:
            if self._loaded:
                return
            if self.named_file or self.named_folder:
                self.load_verify_locations(self.named_file if self.named_file else None, self.named_folder)
            elif (found := _compiled_in()) != (None, None):
                self.load_verify_locations(*found)
            self._loaded = True


def _compiled_in() -> tuple[str | None, str | None]:
    """OpenSSL's compiled-in bundle and folder, as httpcore2 picks them (`default_ssl_context`)."""
    paths = ssl.get_default_verify_paths()
    cafile = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    capath = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if capath and not cafile and not any(_is_hashed_name(name) for name in os.listdir(capath)):
        capath = None
    if not cafile and not capath:
        cafile = next(filter(os.path.isfile, CA_FILE_CANDIDATES), None)
    return cafile, capath


def _is_hashed_name(name: str) -> bool:
    """An OpenSSL hashed certificate link (`5ad8a5d6.0`): a folder of them is a usable `capath`."""
    stem, _, suffix = name.partition(".")
    return len(stem) == 8 and all(c in "0123456789abcdefABCDEF" for c in stem) and suffix.isdigit()
