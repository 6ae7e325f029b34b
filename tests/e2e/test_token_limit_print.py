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


CUT_CALL = {
    "text": "Let me look.",
    "tool_calls": [{"name": "get_current_weather", "arguments": '{"location": "Par'}],
    "finish_reason": "length",
}


def test_a_tool_call_cut_at_the_token_limit_ends_the_turn_and_continue_asks_again(isolated_home: Path) -> None:
    """The server's own limit cut the call's arguments: the turn ends (exit 4) instead of asking the model again
    by itself; `--continue --continue-reply` is what asks again."""
    scenario = {"replies": [CUT_CALL, {"text": "Sunny in Paris."}]}
    with BackgroundServer(scenario) as server:
        base = ["--base-url", server.base_url, "--model", "offline", "--allow", "get_current_weather"]
        done = run([*base, "-p", "weather in Paris?"], isolated_home)
        asked = len(server.requests)
        again = run([*base, "--continue", "--continue-reply", "-p"], isolated_home)
        asked_after = len(server.requests)
    assert done.returncode == 4, done.stderr
    assert asked == 1 and "Sunny" not in done.stdout
    assert "Cut off at the token limit while the model was writing its call to get_current_weather" in done.stderr
    assert "the call was not run. Continue has the model write it again." in done.stderr
    assert again.returncode == 0, again.stderr
    assert asked_after == 2 and "Sunny in Paris." in again.stdout
