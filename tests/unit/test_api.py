"""The public Python API (`tui_agent.api`): its examples in docs/api.md run as written, one turn at a time per
chat, and what is public does not change by accident. The offline model over real HTTP, a real history file."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import tui_agent.api as api
from tui_agent.api import ApprovalRequested, ChatBusyError, Decision, TurnFinished, open_chat

DOCS = Path(__file__).parents[2] / "docs" / "api.md"
PUBLIC = [
    "AgentEvent", "ApprovalRequested", "AssistantMessageFinished", "AssistantMessageStarted", "AssistantPartDelta",
    "AssistantTextDelta", "Chat", "ChatBusyError", "Decision", "MessageStatus", "SubAgentEvent", "TeamStopped",
    "ToolCall", "ToolCallUpdated", "ToolStatus", "TurnEndReason", "TurnFinished", "TurnStarted", "UsageUpdated",
    "open_chat",
]  # fmt: skip
SIGNATURES = {
    "open_chat": "(*, offline: 'bool' = False, base_url: 'str | None' = None, model: 'str | None' = None, "
    "agent: 'str | None' = None, resume: 'str | None' = None, allow: 'Sequence[str]' = (), db: 'Path | None' = None, "
    "read_config: 'bool' = True, **settings: 'Any') -> 'Chat'",
    "Chat.send": "(self, prompt: 'str') -> 'AsyncIterator[AgentEvent]'",
    "Chat.run_team": "(self, team: 'str', prompt: 'str') -> 'AsyncIterator[AgentEvent]'",
    "Chat.reply": "(self, prompt: 'str', approve: 'Approver | None' = None) -> 'str'",
    "Chat.close": "(self) -> 'None'",
}


def test_what_is_public_is_listed_and_does_not_change_by_accident() -> None:
    assert sorted(api.__all__) == sorted(PUBLIC)
    assert all(hasattr(api, name) for name in api.__all__)
    shown = {name: str(inspect.signature(eval(f"api.{name}"))) for name in SIGNATURES}
    assert shown == SIGNATURES


def test_the_documented_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)
    assert len(blocks) == 2
    outputs = []
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), {"__name__": "docs"})
        outputs.append(capsys.readouterr().out)
    assert "[calculate] 84" in outputs[0] and "84" in outputs[0].split("]", 1)[1] and "session " in outputs[0]
    assert "exit status 0\nhi" in outputs[1] and "I wasn't allowed to run `rm -rf build`" in outputs[1], outputs[1]


async def test_one_turn_at_a_time_and_approvals_in_the_stream() -> None:
    async with await open_chat(offline=True, read_config=False) as chat:
        first = chat.send("run `echo hi`")
        events = [await anext(first)]
        with pytest.raises(ChatBusyError):
            await anext(chat.send("and another"))
        async for event in first:
            events.append(event)
            if isinstance(event, ApprovalRequested):
                event.answer.set_result(Decision.DENY)
        assert isinstance(events[-1], TurnFinished)
        assert any(isinstance(event, ApprovalRequested) for event in events)
        assert await chat.reply("what is 2 + 2?")  # the chat is free again
        assert chat.session_id is not None and chat.model
