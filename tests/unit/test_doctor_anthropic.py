"""`doctor`'s check of an Anthropic endpoint: one `GET /v1/models` with `x-api-key` and `anthropic-version`, against
the offline model started with a key (so a wrong or missing key is refused, as Anthropic's API refuses it)."""

from __future__ import annotations

from tui_agent.doctor.anthropic import check_anthropic_endpoint
from tui_agent.offline.server import BackgroundServer


def test_the_key_is_sent_as_anthropic_expects_and_a_wrong_one_is_named() -> None:
    with BackgroundServer({"models": ["claude-haiku-4-5"]}, api_key="sk-ant-right") as server:
        good = check_anthropic_endpoint(
            server.base_url, "claude-haiku-4-5", "ANTHROPIC_API_KEY", {"ANTHROPIC_API_KEY": "sk-ant-right"}
        )
        wrong = check_anthropic_endpoint(
            server.base_url, None, "ANTHROPIC_API_KEY", {"ANTHROPIC_API_KEY": "sk-ant-wrong"}
        )
        unknown = check_anthropic_endpoint(
            server.base_url, "claude-nope", "ANTHROPIC_API_KEY", {"ANTHROPIC_API_KEY": "sk-ant-right"}
        )
    assert [(check.level, check.what) for check in good] == [("ok", "endpoint"), ("ok", "key"), ("ok", "model")]
    assert [record.path for record in server.requests] == ["/v1/models"] * 3  # the one cheap request, no tokens
    assert wrong[-1].level == "fail" and "$ANTHROPIC_API_KEY" in (wrong[-1].fix or "")
    assert "sk-ant-wrong" not in " ".join(line for check in wrong for line in check.lines())
    assert unknown[-1].level == "fail" and "claude-nope" in unknown[-1].detail
