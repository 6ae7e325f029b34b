"""Reading Retry-After and connect failures."""

from __future__ import annotations

import email.utils
import socket
import time

from tui_agent.llm.transport import retry_after, root_cause


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "2.5"}) == 2.5
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({}) is None
    assert retry_after({"retry-after": "soon"}) is None
    later = email.utils.formatdate(time.time() + 120, usegmt=True)
    wait = retry_after({"retry-after": later})
    assert wait is not None and 100 < wait <= 120


def test_root_cause_names_refused_and_unresolvable_hosts() -> None:
    try:
        raise RuntimeError("wrapper") from OSError("All connection attempts failed")
    except RuntimeError as error:
        assert root_cause(error) == "All connection attempts failed"
    refused = RuntimeError("wrapper")
    refused.__cause__ = ConnectionRefusedError(111, "Connect call failed")
    assert root_cause(refused) == "connection refused"
    unresolved = RuntimeError("wrapper")
    unresolved.__context__ = socket.gaierror(-2, "Name or service not known")
    assert root_cause(unresolved) == "the host name could not be resolved"
