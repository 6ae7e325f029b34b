"""Reply parts of a kind the app has no view for: shown live and from history in a plain collapsed block named
after the kind, above the answer (reasoning's `[ui] reasoning` setting does not hide them)."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.ui.helpers import chat, make_app, send, wait_until
from tui_agent.agent.events import AssistantMessageFinished, AssistantMessageStarted, AssistantPartDelta
from tui_agent.agent.events import AssistantTextDelta as Text
from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role
from tui_agent.testing.scripted import Script
from tui_agent.ui.history_view import message_widgets
from tui_agent.ui.widgets.thinking import ThinkingBlock

SCRIPT: Script = [
    AssistantMessageStarted("m1"),
    AssistantPartDelta("m1", "self_check", "Too "),
    AssistantPartDelta("m1", "self_check", "terse."),
    Text("m1", "Four."),
    AssistantMessageFinished("m1", MessageStatus.COMPLETE),
]


async def test_a_kind_without_a_view_streams_into_a_plain_collapsed_block() -> None:
    app, _ = make_app([SCRIPT])
    async with app.run_test() as pilot:
        await send(pilot, "2 + 2?")
        log = chat(pilot).chat_log
        await wait_until(pilot, lambda: bool(log.query(ThinkingBlock)) and log.query_one(ThinkingBlock).ended)
        block = log.query_one(ThinkingBlock)
        assert (block.kind, block.text, block.expanded) == ("self_check", "Too terse.", False)
        assert str(block.render()) == "▸ self check (2 words)"
        assert log.children.index(block) == log.children.index(log.assistant_messages[-1]) - 1


def test_a_stored_kind_without_a_view_is_shown_and_not_hidden_with_reasoning() -> None:
    now = datetime.now(UTC)
    message = Message(
        "m1",
        "s1",
        1,
        Role.ASSISTANT,
        "",
        MessageStatus.COMPLETE,
        None,
        None,
        None,
        now,
        now,
        part_texts={"reasoning": "Hmm.", "self_check": "Nothing to add."},
    )
    (block, _reply) = message_widgets(message, reasoning="hidden")
    assert isinstance(block, ThinkingBlock) and block.kind == "self_check"
    assert str(block.render()) == "▸ self check — no answer followed (3 words)"
