"""Retry after a failure and Continue a cut-off reply make sibling replies, on the real stack (a strict scripted
offline model over HTTP, the real agent, a real SQLite file): the old reply is kept on its own branch with its
status, `‹1/2›`/`‹2/2›` mark both, left/right switch between them with the tool column following, and what the
model is sent afterwards is the active branch as a strict chat template accepts it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import chat, send, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving
from tests.ui.test_branching import SIZE, marked, panels
from tui_agent.agent.turn import CONTINUE_PROMPT
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.widgets.messages import AssistantMessage, MessageMarker

LYON = {"name": "get_current_weather", "arguments": {"location": "Lyon"}, "id": "call_lyon"}
BROKEN = {"text": "Partial answer that breaks", "chunk_size": 5, "cut_after": 2}
RETRY = [BROKEN, {"text": "Let me look.", "tool_calls": [LYON]}, {"text": "Sunny in Lyon."}, {"text": "Noted."}]
CONTINUE = [{"text": "Cut at the", "finish_reason": "length"}, {"text": " token limit."}, {"text": "Next."}]


@pytest.fixture
def retry_stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path, {"replies": RETRY})


@pytest.fixture
def continue_stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path, {"replies": CONTINUE})


def replies(screen: ChatScreen) -> list[AssistantMessage]:
    return [entry for entry in screen.chat_log.entries if isinstance(entry, AssistantMessage)]


def texts(screen: ChatScreen) -> list[str]:
    return [reply.text for reply in replies(screen)]


def markers(screen: ChatScreen) -> list[str]:
    return [str(marker.render()) for marker in screen.query(MessageMarker)]


def sent(stack: RealStack) -> list[dict[str, Any]]:
    """The last request's conversation, the agent's system prompt left out."""
    return [m for m in stack.chat_requests()[-1]["messages"] if m["role"] != "system"]


async def tree(db: Path) -> list[Message]:
    store = await HistoryStore.open(db)
    try:
        (session,) = await store.list_recent()
        return await store.tree(session.id)
    finally:
        await store.close()


async def switch(pilot: Pilot[None], entry: AssistantMessage, key: str) -> None:
    """Put the message cursor on `entry` (a reply on screen) and press `key`."""
    screen = chat(pilot)
    cursor = screen.message_cursor
    if not cursor.active:
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: cursor.active and cursor.selected is not None, "a message selected")
    for _ in range(10):
        if (selected := cursor.selected) is entry:
            await pilot.press(key)
            return
        await pilot.press("up")  # handled a moment after `press` returns, maybe: one key per move
        await wait_until(pilot, lambda selected=selected: cursor.selected is not selected, "the cursor moved up")  # type: ignore[misc]
    raise AssertionError(f"the cursor never reached {entry.text!r}")


async def test_a_retry_after_a_failure_is_a_sibling_and_left_right_switch_with_the_tool_column(
    retry_stack: RealStack,
) -> None:
    app, _ = retry_stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Weather in Lyon?")
        screen = chat(pilot)
        (failed,) = replies(screen)
        partial = failed.text
        assert failed.status is MessageStatus.FAILED and partial and "Partial answer that breaks".startswith(partial)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: screen.idle and "Sunny in Lyon." in texts(screen), "the retry answered")
        assert replies(screen)[0] is failed and failed.replaced  # kept, dimmed, as it was
        looked = replies(screen)[1]
        assert looked.text == "Let me look." and panels(screen) == [looked.message_id]
        await marked(pilot, looked, "‹2/2›")
        await marked(pilot, failed, "‹1/2›")

        await switch(pilot, looked, "left")  # the failed attempt is the branch now: not dimmed, not replaced
        await wait_until(pilot, lambda: texts(screen) == [partial], "the failed branch shown")
        (shown,) = replies(screen)
        assert shown.status is MessageStatus.FAILED and not shown.replaced
        assert markers(screen)[0].startswith("✗ failed") and panels(screen) == []
        await marked(pilot, shown, "‹1/2›")
        await wait_until(pilot, lambda: screen.status_bar.branch_note is not None, "the status line says so")

        await pilot.press("right")
        await wait_until(pilot, lambda: texts(screen) == [partial, "Let me look.", "Sunny in Lyon."], "the retry")
        await wait_until(pilot, lambda: len(panels(screen)) == 1, "its tool call back in the column")
        assert replies(screen)[0].replaced and screen.status_bar.branch_note is None

        await switch(pilot, replies(screen)[1], "left")
        await wait_until(pilot, lambda: texts(screen) == [partial], "the failed branch again")
        await pilot.press("escape")
        await send(pilot, "Never mind.")
        assert texts(screen)[-1] == "Noted."
    assert sent(retry_stack) == [  # the failed branch as it was, to a strict server
        {"role": "user", "content": "Weather in Lyon?"},
        {"role": "assistant", "content": partial},
        {"role": "user", "content": "Never mind."},
    ]
    stored = await tree(retry_stack.db)
    old, new = (m for m in stored if m.parent_id == stored[0].id)
    assert (old.content, old.status, old.replaced_by) == (partial, MessageStatus.FAILED, new.id)
    assert new.content == "Let me look." and [call.call_id for call in new.tool_calls] == ["call_lyon"]


async def test_continue_makes_a_whole_sibling_reply_and_the_cut_off_one_stays_on_its_branch(
    continue_stack: RealStack,
) -> None:
    app, _ = continue_stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me")
        screen = chat(pilot)
        (reply,) = replies(screen)
        cut_id = reply.message_id
        assert reply.status is MessageStatus.INTERRUPTED and markers(screen)[0].startswith("✂ Cut off")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: screen.idle and reply.status is MessageStatus.COMPLETE, "continued")
        assert replies(screen) == [reply] and reply.text == "Cut at the token limit."  # on screen, it went on
        assert reply.message_id != cut_id and markers(screen) == []
        assert sent(continue_stack) == [  # the cut-off text once, then the request to go on
            {"role": "user", "content": "Tell me"},
            {"role": "assistant", "content": "Cut at the"},
            {"role": "user", "content": CONTINUE_PROMPT},
        ]
        await marked(pilot, reply, "‹2/2›")

        await switch(pilot, reply, "left")
        await wait_until(pilot, lambda: texts(screen) == ["Cut at the"], "the cut-off reply shown")
        (cut,) = replies(screen)
        assert cut.message_id == cut_id and cut.status is MessageStatus.INTERRUPTED and not cut.replaced
        assert markers(screen)[0].startswith("✂ Cut off")
        await marked(pilot, cut, "‹1/2›")
        await pilot.press("right")
        await wait_until(pilot, lambda: texts(screen) == ["Cut at the token limit."], "the continued reply")
        await marked(pilot, replies(screen)[0], "‹2/2›")
        await pilot.press("escape")
        await send(pilot, "And then?")
    assert sent(continue_stack) == [  # one whole reply on the branch: roles alternate, nothing empty
        {"role": "user", "content": "Tell me"},
        {"role": "assistant", "content": "Cut at the token limit."},
        {"role": "user", "content": "And then?"},
    ]
    stored = await tree(continue_stack.db)
    cut_off, whole = (m for m in stored if m.role is Role.ASSISTANT and m.parent_id == stored[0].id)
    assert (cut_off.id, cut_off.content, cut_off.status) == (cut_id, "Cut at the", MessageStatus.INTERRUPTED)
    assert (whole.content, whole.status, whole.replaced_by) == ("Cut at the token limit.", MessageStatus.COMPLETE, None)
    assert cut_off.usage is not None and whole.usage is not None
    assert (cut_off.usage.completion_tokens, whole.usage.completion_tokens) == (3, 2)  # each its own, counted once
