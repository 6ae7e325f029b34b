"""The offline model's strict mode: it refuses, with a 400 and the server's words, what strict chat templates do."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import openai
import pytest

from tests.unit.offline.test_cli import SERVE
from tui_agent.offline import strict
from tui_agent.offline.server import BackgroundServer

USER = {"role": "user", "content": "hi"}
REPLY = {"role": "assistant", "content": "hello"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
}
ANSWER = {"role": "tool", "tool_call_id": "c1", "content": "42"}
SYSTEM = {"role": "system", "content": "be brief"}


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        pytest.param([SYSTEM, USER], None, id="system-then-user"),
        pytest.param([USER, REPLY, USER], None, id="alternating"),
        pytest.param([USER, CALL, ANSWER], None, id="call-answered"),
        pytest.param([USER, CALL, ANSWER, REPLY, USER], None, id="call-answered-then-reply"),
        pytest.param([USER, USER], strict.ALTERNATE, id="two-users"),
        pytest.param([USER, REPLY, REPLY, USER], strict.ALTERNATE, id="two-assistants"),
        pytest.param([REPLY, USER], strict.ALTERNATE, id="assistant-first"),
        pytest.param([USER, SYSTEM], strict.SYSTEM_FIRST, id="late-system"),
        pytest.param([USER, {"role": "assistant", "content": ""}, USER], strict.EMPTY_ASSISTANT, id="empty-assistant"),
        pytest.param([USER, CALL, USER], strict.UNANSWERED, id="unanswered-call"),
        pytest.param([USER, CALL], strict.UNANSWERED, id="unanswered-at-end"),
        pytest.param([USER, CALL, ANSWER, USER], "Unexpected role 'user' after role 'tool'", id="user-after-tool"),
        pytest.param([USER, ANSWER], "Unexpected tool call id c1 after role 'user'", id="orphan-answer"),
        pytest.param([USER, REPLY], strict.LAST_ROLE, id="ends-with-assistant"),
    ],
)
def test_role_problem_names_what_a_strict_template_refuses(messages: list[dict[str, Any]], problem: str | None) -> None:
    assert strict.role_problem(messages) == problem


@pytest.mark.parametrize("offline_server", [{"strict": True, "replies": [{"text": "scripted"}]}], indirect=True)
def test_strict_server_answers_400_and_keeps_its_script(offline_server: BackgroundServer) -> None:
    client = openai.OpenAI(base_url=offline_server.base_url, api_key="k", max_retries=0)
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="m", messages=[USER, USER])  # type: ignore[list-item]
    assert raised.value.status_code == 400 and strict.ALTERNATE in str(raised.value)
    reply = client.chat.completions.create(model="m", messages=[USER])  # type: ignore[list-item]
    assert reply.choices[0].message.content == "scripted"  # the refused request used no scripted reply
    assert [record.outcome for record in offline_server.requests] == ["status 400", "ok"]


@pytest.mark.parametrize("offline_server", [{"strict": False}], indirect=True)
def test_lenient_server_accepts_what_openai_accepts(offline_server: BackgroundServer) -> None:
    client = openai.OpenAI(base_url=offline_server.base_url, api_key="k", max_retries=0)
    reply = client.chat.completions.create(model="m", messages=[USER, USER])  # type: ignore[list-item]
    assert reply.choices[0].message.content


def test_offline_server_fixture_is_strict_by_default(offline_server: BackgroundServer) -> None:
    assert offline_server.server.scenario.strict


def test_serve_strict_refuses_roles_that_do_not_alternate() -> None:
    process = subprocess.Popen([sys.executable, "-c", SERVE, "serve", "--strict"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().rsplit(" ", 1)[-1].strip()
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
        with pytest.raises(openai.BadRequestError, match="Conversation roles must alternate"):
            client.chat.completions.create(model="m", messages=[USER, USER])  # type: ignore[list-item]
    finally:
        process.terminate()
        process.wait(timeout=10)
