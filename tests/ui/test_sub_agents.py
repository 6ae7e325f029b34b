"""Sub-agents in the chat screen, on the scripted backend: an `ask_<agent>` call's panel shows the sub-agent live
(its text, reasoning, tool calls, status), its questions open the approval modal naming the agent, the task tree
names its turn after it and cancels it there, and `o` opens its session (read only, or as the current one)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from textual.pilot import Pilot
from textual.widgets import OptionList

from tests.ui.helpers import FIXED_NOW, call, chat, chat_idle, make_app, send, showing, task_tree, wait_until
from tui_agent.agent.events import (
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    SubAgentEvent,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
)
from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role
from tui_agent.testing.scripted import AskApproval, Delegated, Gate, Script, ScriptItem
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.screens.sub_session import SubSessionScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.sub_agent import PENDING_PIECES, TAIL_CHARS, TEXT_LINES, SubAgentRun
from tui_agent.ui.widgets.tool_panel import ToolPanel

ASK = ("m1", "c1")
"""The caller's `ask_researcher` call."""


def ask(
    status: ToolStatus, *, result: str | None = None, agent: str = "researcher", call_id: str = "c1"
) -> ToolCallUpdated:
    finished = 102.0 if status.is_final else None
    return call(
        call_id,
        status,
        name=f"ask_{agent}",
        arguments='{"task": "Find the weather in Oslo"}',
        started=100.0,
        finished=finished,
        result=result,
    )


def weather(status: ToolStatus, *, message_id: str = "s1") -> ToolCallUpdated:
    finished = 101.5 if status.is_final else None
    result = "Oslo: 4 °C, rain" if status is ToolStatus.DONE else None
    return ToolCallUpdated(
        ToolCall(
            "t1",
            "get_weather",
            '{"location": "Oslo"}',
            message_id=message_id,
            status=status,
            started_at=101.0,
            finished_at=finished,
            result=result,
        )
    )


def researcher_turn(*middle: ScriptItem, text: str = "It rains in Oslo.") -> list[ScriptItem]:
    return [
        TurnStarted("sub-researcher", "su1", "Find the weather in Oslo"),
        AssistantMessageStarted("s1"),
        AssistantPartDelta("s1", "reasoning", "The weather tool knows."),
        *middle,
        AssistantTextDelta("s1", text),
        AssistantMessageFinished("s1", MessageStatus.COMPLETE),
        TurnFinished(TurnEndReason.DONE),
    ]


def delegating(*sub: ScriptItem, session_id: str = "") -> Script:
    """The caller asks the researcher, which plays `sub`; then the caller answers."""
    return [
        AssistantMessageStarted("m1"),
        ask(ToolStatus.RUNNING),
        Delegated(ASK, "researcher", list(sub), session_id),
        ask(ToolStatus.DONE, result="It rains in Oslo."),
        AssistantMessageFinished("m1", MessageStatus.COMPLETE),
    ]


def panel_text(pilot: Pilot[None], key: tuple[str, str] = ASK) -> str:
    panel = chat(pilot).tool_panels.panel(key)
    return "" if panel is None else str(panel.render())


async def test_the_ask_panel_shows_the_sub_agent_streaming_with_its_own_tool_call() -> None:
    gate = Gate()
    sub = researcher_turn(weather(ToolStatus.RUNNING), gate, weather(ToolStatus.DONE))
    app, _ = make_app([delegating(*sub)])
    async with app.run_test() as pilot:
        await send(pilot, "Ask the researcher about Oslo", wait=False)
        await wait_until(pilot, lambda: gate.reached, "the sub-agent mid-turn")
        await wait_until(pilot, lambda: "running get_weather" in panel_text(pilot), lambda: panel_text(pilot))
        shown = panel_text(pilot)
        assert "◆ researcher" in shown
        assert "▸ thinking · 23 chars" in shown
        assert "◐ get_weather" in shown
        assert f"{FIXED_NOW - 101.0:.1f}s" in shown  # its call's time, ticking
        gate.open()
        await wait_until(pilot, lambda: chat_idle(pilot), "turn finished")
        await wait_until(pilot, lambda: "researcher · finished" in panel_text(pilot), lambda: panel_text(pilot))
        shown = panel_text(pilot)
        assert "✓ get_weather  0.5s" in shown
        assert "── result ──\nIt rains in Oslo." in shown


async def test_esc_shows_the_sub_agent_and_its_open_call_interrupted() -> None:
    gate = Gate()
    app, backend = make_app([delegating(*researcher_turn(weather(ToolStatus.RUNNING), gate))])
    async with app.run_test() as pilot:
        await send(pilot, "Ask the researcher about Oslo", wait=False)
        await wait_until(pilot, lambda: gate.reached, "the sub-agent mid-turn")
        await pilot.press("escape")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn ended")
        await wait_until(pilot, lambda: "researcher · interrupted" in panel_text(pilot), lambda: panel_text(pilot))
        assert "■ get_weather" in panel_text(pilot)
        assert backend.cancel_count == 1


async def test_a_long_sub_agent_answer_shows_only_its_newest_lines() -> None:
    gate = Gate()
    lines = [f"line {n}\n" for n in range(300)]
    sub: list[ScriptItem] = [AssistantMessageStarted("s1"), *(AssistantTextDelta("s1", line) for line in lines), gate]
    app, _ = make_app([delegating(*sub, TurnFinished(TurnEndReason.DONE))])
    async with app.run_test() as pilot:
        await send(pilot, "Ask the researcher for a lot", wait=False)
        await wait_until(pilot, lambda: gate.reached, "the sub-agent's text sent")
        await wait_until(pilot, lambda: "line 299" in panel_text(pilot), lambda: panel_text(pilot))
        shown = panel_text(pilot)
        assert f"line {299 - TEXT_LINES}\n" not in shown and "line 0\n" not in shown
        assert f"… {300 - TEXT_LINES} earlier lines (o: open its session)" in shown
        gate.open()
        await wait_until(pilot, lambda: chat_idle(pilot), "turn finished")
        # answered: its final answer is the call's result; the text it streamed is only counted
        await wait_until(pilot, lambda: "… its text: 300 lines" in panel_text(pilot), lambda: panel_text(pilot))
        assert "line 299" not in panel_text(pilot)


async def test_a_sub_agents_question_names_the_agent_and_its_answer_reaches_it() -> None:
    ask_weather = AskApproval(weather(ToolStatus.AWAITING_APPROVAL), allowed=[weather(ToolStatus.DONE)])
    app, backend = make_app([delegating(*researcher_turn(ask_weather))])
    async with app.run_test() as pilot:
        await send(pilot, "Ask the researcher about Oslo", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        modal = app.screen
        assert isinstance(modal, ApprovalScreen)
        assert "Asked by the sub-agent researcher" in str(modal.query_one("#approval-agent").render())
        assert "researcher asks" in str(modal.query_one("#approval-dialog").border_title)
        await pilot.press("a")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn finished")
        assert backend.decisions == [Decision.ALLOW_ONCE]
        assert "✓ get_weather" in panel_text(pilot)


async def test_a_delegates_delegate_asks_through_the_chain() -> None:
    deeper = Delegated(("s1", "d1"), "critic", [AskApproval(weather(ToolStatus.AWAITING_APPROVAL, message_id="k1"))])
    app, _ = make_app([delegating(*researcher_turn(deeper))])
    async with app.run_test() as pilot:
        await send(pilot, "Ask the researcher, who asks the critic", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        assert "researcher → critic" in str(app.screen.query_one("#approval-agent").render())
        await pilot.press("d")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn finished")


async def test_the_task_tree_names_the_sub_agents_turn_and_cancels_it() -> None:
    gate = Gate()
    app, backend = make_app([delegating(*researcher_turn(weather(ToolStatus.RUNNING), gate))])
    async with app.run_test() as pilot:
        tree = await task_tree(pilot)
        await send(pilot, "Ask the researcher about Oslo", wait=False)
        await wait_until(pilot, lambda: gate.reached, "the sub-agent mid-turn")
        agents = [item for item in tree.items.values() if item.kind == "agent"]
        assert [item.title for item in agents] == ["researcher"]
        assert tree.items[agents[0].parent or ""].name == "ask_researcher"
        nested = tree.items["ntool:s1/t1"]
        assert nested.tool_status is ToolStatus.RUNNING  # its call's updates reach its node
        under = nested.parent
        while under is not None and tree.items[under].kind != "agent":
            under = tree.items[under].parent
        assert under == agents[0].key
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: tree.has_focus, "the tree focused")
        # In the user's words the call's line is the agent's, its own calls under it.
        (turn,) = tree.root.children
        (asked,) = turn.children
        assert re.sub(r" [\d.]+s$", "", str(asked.label)) == "◐ researcher · running 1 tool"
        assert [re.sub(r" [\d.]+s$", "", str(node.label)) for node in asked.children] == [
            "◐ get_weat…(Oslo) · running"  # folded to the 80 columns it has, its argument kept
        ]
        while (selected := tree.selected_item()) is None or selected.name != "ask_researcher":
            await pilot.press("down")  # handled a moment after `press` returns, maybe: one key per move
            await wait_until(pilot, lambda selected=selected: tree.selected_item() is not selected, "moved down")  # type: ignore[misc]
        await pilot.press("x")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn ended")
        assert backend.cancelled_nodes == [selected.node_id]
        assert any("Cancelled the sub-agent researcher" in n.message for n in notifications(app))


async def test_o_on_the_panel_opens_the_sub_agents_session_read_only_then_as_current() -> None:
    app, backend = make_app()
    child = backend.add_session(
        "Find the weather in Oslo", [stored("task", Role.USER), stored("It rains.", Role.ASSISTANT)]
    )
    *answered, finished = delegating(*researcher_turn(), session_id=child.id)
    backend.add_script([*answered, AssistantTextDelta("m1", "The researcher says:\n\n> It rains in Oslo.\n"), finished])
    async with app.run_test() as pilot:
        await send(pilot, "Ask the researcher about Oslo")
        # Its answer, quoted in the reply, is drawn in the text's own colour (Rich's magenta read as an error).
        reply = chat(pilot).chat_log.assistant_messages[-1]
        await wait_until(pilot, lambda: reply.size.height > 2, "the reply laid out")
        segments = [segment for y in range(reply.size.height) for segment in reply.render_line(y)]
        said, quoted = (next(s.style for s in segments if text in s.text) for text in ("researcher says", "rains"))
        assert said is not None and quoted is not None
        assert quoted.color == said.color and quoted.italic
        panel = chat(pilot).tool_panels.panel(ASK)
        assert panel is not None and panel.sub_agent is not None
        assert panel.sub_agent.session_id == child.id
        panel.focus()
        await wait_until(pilot, lambda: "o: open its session" in panel_text(pilot), "the hint on the focused panel")
        await pilot.press("o")
        await wait_until(pilot, lambda: showing(app, SubSessionScreen), "the session shown")
        assert "It rains." in "".join(str(s.render()) for s in app.screen.query(".sub-session-message"))
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: backend.current_session_id == child.id, "opened as the current session")


def stored(text: str, role: Role, *, calls: list[ToolCall] | None = None, message_id: str | None = None) -> Message:
    now = datetime.now(UTC)
    return Message(
        message_id or text, "", 0, role, text, MessageStatus.COMPLETE, None, None, None, now, now, calls or []
    )


async def test_a_resumed_ask_call_shows_its_agent_and_opens_its_stored_session() -> None:
    answered = ask(ToolStatus.DONE, result="It rains in Oslo.").call.replace(message_id="a1")
    app, backend = make_app()
    parent = backend.add_session(
        "Weather", [stored("Ask about Oslo", Role.USER), stored("", Role.ASSISTANT, calls=[answered], message_id="a1")]
    )
    child = backend.add_session(
        "Find the weather in Oslo", [stored("Find it", Role.USER), stored("It rains.", Role.ASSISTANT)]
    )
    child.parent_session_id, child.parent_message_id, child.agent = parent.id, "a1", "researcher"
    await backend.open_session(parent.id)
    async with app.run_test() as pilot:
        await wait_until(
            pilot, lambda: chat(pilot).tool_panels.panel(("a1", "c1")) is not None, "the stored call shown"
        )
        shown = panel_text(pilot, ("a1", "c1"))
        assert "◆ researcher · done" in shown and "It rains in Oslo." in shown
        panel = chat(pilot).tool_panels.panel(("a1", "c1"))
        assert isinstance(panel, ToolPanel)
        panel.focus()
        await wait_until(pilot, lambda: "o: open its session" in panel_text(pilot, ("a1", "c1")), "the hint")
        chat(pilot).prompt_input.focus()
        await wait_until(pilot, lambda: "o: open" not in panel_text(pilot, ("a1", "c1")), "no hint once it lost focus")
        panel.focus()  # the focus moves a moment later: wait before the key
        await wait_until(pilot, lambda: panel.has_focus, "the panel focused again")
        await pilot.press("o")
        await wait_until(pilot, lambda: showing(app, SubSessionScreen), "the session shown")
        assert panel.sub_agent is not None and panel.sub_agent.session_id == child.id


async def test_sub_agent_sessions_are_listed_under_their_parent_and_forks_are_not() -> None:
    app, backend = make_app()
    older = backend.add_session("Older chat", updated_at=datetime(2026, 1, 1, tzinfo=UTC))
    parent = backend.add_session("Weather", updated_at=datetime(2026, 1, 2, tzinfo=UTC))
    fork = backend.add_session("Weather (fork)", updated_at=datetime(2026, 1, 4, tzinfo=UTC))
    fork.parent_session_id, fork.agent = parent.id, "assistant"  # a fork runs its parent's agent
    child = backend.add_session("Find the weather in Oslo", updated_at=datetime(2026, 1, 3, tzinfo=UTC))
    child.parent_session_id, child.parent_message_id, child.agent = parent.id, "a1", "researcher"
    child.sub_agent = True  # as the listing read marks it (a call of the parent's ran it)
    async with app.run_test() as pilot:
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "the sessions screen")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await wait_until(pilot, lambda: len(screen.sessions) == 4, "the sessions listed")
        assert list(screen.sessions) == [fork.id, parent.id, child.id, older.id]
        options = screen.query_one(OptionList)
        child_row = str(options.get_option_at_index(2).prompt).splitlines()[0]
        assert child_row.startswith("    ") and "↳ researcher · Find the weather in Oslo" in child_row
        assert not str(options.get_option_at_index(0).prompt).startswith(" " * 4)


def test_a_text_nobody_draws_keeps_only_its_tail() -> None:
    run = SubAgentRun("writer")
    for _ in range(10_000):
        run.take(SubAgentEvent(("s1", "d1"), "critic", "sub-critic", AssistantTextDelta("k1", "word ")))
    critic = run.delegates[("s1", "d1")]
    assert critic.text.chars == 50_000 - 5 * (10_000 % PENDING_PIECES)  # joined as it came, though never drawn
    assert len(critic.text.text) == TAIL_CHARS and critic.text.chars == 50_000
