"""The TLS context model clients share (`llm/tls.py`): built once per process, and as strict as the SDKs' own
(certificates and host names checked)."""

from __future__ import annotations

import ssl

from tui_agent.llm.tls import shared_tls


def test_one_context_for_the_process_that_checks_certificates_and_names() -> None:
    context = shared_tls()
    assert shared_tls() is context
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
