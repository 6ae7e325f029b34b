"""`-p` against a real HTTP server that sends a malformed SSE chunk: the user is shown its start, sanitised."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.offline.server import BackgroundServer

BROKEN = '{"choices": [{"delta": {"content": "\x1b]0;pwned\x07\x1b[2Jhello \u202egnp.exe"'
"""Not JSON (never closed), with a title change, a clear-screen and a right-to-left override in it."""


def test_a_malformed_chunks_start_is_shown_sanitised(isolated_home: Path) -> None:
    with BackgroundServer({"replies": [{"raw_events": [BROKEN]}]}) as server:
        done = run(["--base-url", server.base_url, "--model", "offline", "-p", "hi"], isolated_home)
    assert done.returncode == 1, done.stderr
    assert "sent a chunk that is not a valid chat-completions event before the reply started" in done.stderr
    assert """(it began '{"choices": [{"delta": {"content": "hello gnp.exe"')""" in done.stderr
    assert "\x1b" not in done.stderr and "\u202e" not in done.stderr and "\x07" not in done.stderr
