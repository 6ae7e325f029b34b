"""The TLS context model clients share (`llm/tls.py`): built once per process, and as strict as the SDKs' own
(certificates and host names checked)."""

from __future__ import annotations

import platform
import ssl
from pathlib import Path

import httpx2
import pytest

from tui_agent.llm.tls import CA_FILE_CANDIDATES, AuthoritiesAtFirstHandshake, shared_tls


def test_one_context_for_the_process_that_checks_certificates_and_names() -> None:
    context = shared_tls()
    assert shared_tls() is context
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname


def test_the_authorities_load_at_the_first_handshake_and_are_httpx2s(monkeypatch: pytest.MonkeyPatch) -> None:
    """An `http://` endpoint never pays for loading them; the first TLS handshake has the same ones httpx2 would
    have loaded, from `SSL_CERT_FILE` when set and from OpenSSL's compiled-in paths when not."""
    if platform.system() != "Linux":
        pytest.skip("elsewhere the system's trust store is used, with nothing to load up front")
    bundle = next((path for path in CA_FILE_CANDIDATES if Path(path).is_file()), None)
    if bundle is None:
        pytest.skip("no CA bundle on this machine")
    for named in (bundle, None):
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
        if named is None:
            monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        else:
            monkeypatch.setenv("SSL_CERT_FILE", named)
        context = shared_tls.__wrapped__()  # a fresh one, not the process's
        assert isinstance(context, AuthoritiesAtFirstHandshake)
        assert context.get_ca_certs() == []
        context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.com")
        context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.com")  # loaded once
        expected = httpx2.create_ssl_context().get_ca_certs()
        assert expected and context.get_ca_certs() == expected
        assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
