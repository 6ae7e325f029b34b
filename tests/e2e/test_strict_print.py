"""`-p` then `-p --continue` against a strict server: the failed first turn does not make every later one fail."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.offline.server import BackgroundServer


def test_continue_after_a_failed_print_turn_is_answered(isolated_home: Path) -> None:
    with BackgroundServer(
        {"replies": [{"status": 500, "retry_after": 0.01}], "then": "repeat_last", "strict": True}
    ) as server:
        endpoint = ["--base-url", server.base_url, "--model", "offline"]
        failed = run([*endpoint, "-p", "What is asyncio?"], isolated_home)
        assert failed.returncode == 1 and "500" in failed.stderr
        server.server.script([])
        done = run([*endpoint, "--continue", "-p", "Are you there?"], isolated_home)
        assert done.returncode == 0, done.stderr
        assert "offline model" in done.stdout
        sent = (server.requests[-1].body or {})["messages"]
    assert sent[1:] == [{"role": "user", "content": "What is asyncio?\n\nAre you there?"}]  # after the agent's prompt
