"""`-p` with `max_tokens` in the config: a reply cut at the limit exits 4 and says so on stderr."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_print import run
from tui_agent.offline.server import BackgroundServer


def test_a_reply_cut_at_the_token_limit_exits_4(isolated_home: Path) -> None:
    (isolated_home / "config").mkdir(parents=True)
    (isolated_home / "config" / "config.toml").write_text("max_tokens = 3\n")
    with BackgroundServer({"replies": [{"text": "one two three four five"}], "strict": True}) as server:
        done = run(["--base-url", server.base_url, "--model", "offline", "-p", "count"], isolated_home)
        assert (server.requests[-1].body or {})["max_tokens"] == 3
    assert done.returncode == 4, done.stderr
    assert done.stdout.strip() == "one two three"
    assert "tui-agent: Cut off at the token limit (max_tokens = 3)" in done.stderr
