"""The chat screen on the real engine: offline model over HTTP, real agent and commander, real SQLite file.

What the person sees and what history holds must agree, for good turns, server faults and Esc.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import FIXED_NOW, Built, app_on_real_agent, chat, chat_idle, send, showing, task_tree, wait_until
from tests.unit.agent.test_turn_faults import FAULTS
from tui_agent.agent.endpoint import OFFLINE_NOTICE, EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.history.models import Message
from tui_agent.history.store import HistoryStore
from tui_agent.offline.scenario import Scenario
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.widgets.messages import ErrorNotice, MessageMarker, SystemLine

PLUGINS = Path(__file__).parents[1] / "unit" / "agent" / "plugins"
MakeApp = Callable[..., tuple[TuiAgentApp, Built]]


@pytest.fixture
async def real_app(tmp_path: Path) -> AsyncIterator[MakeApp]:
    """`real_app(scenario=None, **settings)`: the app on a real agent; offline model when no scenario."""
    servers: list[BackgroundServer] = []

    def make(scenario: dict[str, Any] | Scenario | None = None, **values: Any) -> tuple[TuiAgentApp, Built]:
        settings = Settings(db=tmp_path / "history.db", **values)
        if scenario is None:
            choice = EndpointChoice(None, "offline")
        else:
            server = BackgroundServer(strict_scenario(scenario))
            server.start()
            servers.append(server)
            choice = EndpointChoice(server.base_url, "scripted", "test-key")
        return app_on_real_agent(settings, choice)

    yield make
    for server in servers:
        server.stop()


async def history(path: Path) -> list[Message]:
    store = await HistoryStore.open(path)
    try:
        (session,) = await store.list_recent()
        return await store.load_tail(session.id, 100)
    finally:
        await store.close()


async def test_weather_turn_shows_panel_and_answer_and_is_saved(real_app: MakeApp, tmp_path: Path) -> None:
    app, _ = real_app()
    async with app.run_test(size=(140, 40)) as pilot:
        lines: Callable[[], list[str]] = lambda: [str(line.render()) for line in chat(pilot).query(SystemLine)]  # noqa: E731
        await wait_until(pilot, lambda: any(OFFLINE_NOTICE in line for line in lines()), "the offline model's line")
        await send(pilot, "What's the weather in Paris?")
        screen = chat(pilot)
        (panel,) = screen.tool_panels.panels
        assert panel.status is ToolStatus.DONE and panel.call.name == "get_current_weather"
        answer = screen.chat_log.assistant_messages[-1].shown_text()
        assert "Paris" in answer
    messages = await history(tmp_path / "history.db")
    assert [m.status for m in messages] == [MessageStatus.COMPLETE] * 3
    assert messages[2].content == answer


async def test_server_error_is_inline_and_the_next_prompt_works(real_app: MakeApp, tmp_path: Path) -> None:
    app, _ = real_app({"replies": [{"text": "Partial answer. " * 3, "chunk_size": 6, "cut_after": 3}]})
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "first")
        screen = chat(pilot)
        (notice,) = screen.query(ErrorNotice)
        assert "Traceback" not in str(notice.render())
        assert [marker.has_class("-failed") for marker in screen.query(MessageMarker)] == [True]
        partial = screen.chat_log.assistant_messages[0].shown_text()
        await send(pilot, "second")
        assert screen.chat_log.assistant_messages[-1].shown_text().strip()
    first_reply = (await history(tmp_path / "history.db"))[1]
    assert first_reply.status is MessageStatus.FAILED and first_reply.content == partial


@pytest.mark.parametrize(("fault", "word"), FAULTS)
async def test_every_server_fault_is_a_sentence_inline_and_the_app_carries_on(
    real_app: MakeApp, tmp_path: Path, fault: dict[str, Any], word: str
) -> None:
    app, _ = real_app({"replies": [fault], "then": "repeat_last"}, stall_timeout=0.5)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        for prompt in ("first", "second"):  # the second turn shows the app is still usable after the first
            await send(pilot, prompt)
        notices = [str(notice.render()) for notice in screen.query(ErrorNotice)]
        shown = [reply.shown_text() for reply in screen.chat_log.assistant_messages]
        assert len(notices) == 2 and all(word in notice.lower() and "Traceback" not in notice for notice in notices)
        assert [marker.has_class("-failed") for marker in screen.query(MessageMarker)] == [True, True]
    messages = await history(tmp_path / "history.db")
    replies = [message for message in messages if message.role.value == "assistant"]
    assert [reply.status for reply in replies] == [MessageStatus.FAILED] * 2
    assert [" ".join(reply.content.split()) for reply in replies] == [" ".join(text.split()) for text in shown]
    assert all(reply.error and "test-key" not in reply.error for reply in replies)


async def test_server_down_is_inline_and_the_app_carries_on(tmp_path: Path) -> None:
    settings = Settings(db=tmp_path / "history.db")
    choice = EndpointChoice("http://127.0.0.1:9/v1", "down", "test-key")
    app = TuiAgentApp(
        lambda: build_agent(settings, choice),
        model=choice.model,
        endpoint=choice.label,
        clock=lambda: FIXED_NOW,
        cursor_blink=False,
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "anyone there?")
        screen = chat(pilot)
        (notice,) = screen.query(ErrorNotice)
        assert "Traceback" not in str(notice.render()) and screen.idle
        await pilot.press("h", "i")
        await wait_until(pilot, lambda: screen.prompt_input.text == "hi", "the keys typed: still responsive")
    (_, reply) = await history(tmp_path / "history.db")
    assert reply.status is MessageStatus.FAILED and reply.error


async def test_escape_mid_stream_keeps_the_partial_reply(real_app: MakeApp, tmp_path: Path) -> None:
    app, _ = real_app({"replies": [{"text": "word " * 400, "chunk_size": 5, "chunk_delay": 0.01}]})
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "talk a lot", wait=False)
        screen = chat(pilot)
        await wait_until(
            pilot,
            lambda: (
                bool(screen.chat_log.assistant_messages)
                and len(screen.chat_log.assistant_messages[0].shown_text()) > 20
            ),
            "some text",
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.idle, "idle after Esc")
        shown = screen.chat_log.assistant_messages[0].shown_text()
        assert [marker.has_class("-interrupted") for marker in screen.query(MessageMarker)] == [True]
    reply = (await history(tmp_path / "history.db"))[1]
    assert reply.status is MessageStatus.INTERRUPTED
    # Everything shown is kept; text already in flight when Esc was pressed may be saved too.
    assert " ".join(reply.content.split()).startswith(" ".join(shown.split()))  # shown_text wraps lines
    assert 0 < len(reply.content) < len("word " * 400)


async def test_approval_modal_on_the_real_runner(real_app: MakeApp, tmp_path: Path) -> None:
    app, _ = real_app(
        {"replies": [{"tool_calls": [{"name": "careful_echo", "arguments": {"text": "hi"}}]}]}, plugin_dirs=[PLUGINS]
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "echo carefully", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        await pilot.press("a")
        await wait_until(pilot, lambda: chat_idle(pilot), "turn finished")
        (panel,) = chat(pilot).tool_panels.panels
        assert panel.status is ToolStatus.DONE and panel.call.result == "echo: hi"
    (call,) = (await history(tmp_path / "history.db"))[1].tool_calls
    assert call.status is ToolStatus.DONE and call.result == "echo: hi"


async def test_a_tool_node_cancelled_while_its_approval_is_asked_takes_the_modal_away(
    real_app: MakeApp, tmp_path: Path
) -> None:
    app, _ = real_app(
        {
            "replies": [
                {"tool_calls": [{"name": "careful_echo", "arguments": {"text": "hi"}}]},
                {"text": "Not run, then."},
            ]
        },
        plugin_dirs=[PLUGINS],
    )
    async with app.run_test(size=(140, 40)) as pilot:
        screen = chat(pilot)
        tree = await task_tree(pilot)
        await send(pilot, "echo carefully", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "approval modal")
        (tool,) = [item for item in tree.items.values() if item.kind == "tool"]
        assert tool.node_id is not None and screen.backend is not None and screen.backend.cancel_node(tool.node_id)
        await wait_until(pilot, lambda: app.screen is screen and screen.idle, "modal gone, turn finished")
        (panel,) = screen.tool_panels.panels
        assert panel.status is ToolStatus.INTERRUPTED
        assert screen.chat_log.assistant_messages[-1].text.strip() == "Not run, then."
    (call,) = (await history(tmp_path / "history.db"))[1].tool_calls
    assert call.status is ToolStatus.INTERRUPTED


async def test_status_bar_shows_the_built_engine_not_the_first_frames_guess(tmp_path: Path) -> None:
    """The first frame's endpoint comes from unvalidated settings; once built, the agent's own is shown."""
    settings = Settings(db=tmp_path / "history.db")
    app = TuiAgentApp(
        lambda: build_agent(settings, EndpointChoice(None, "offline")),
        model="first-guess",
        endpoint="guessed.example",
        clock=lambda: FIXED_NOW,
        cursor_blink=False,
    )
    async with app.run_test(size=(140, 40)) as pilot:
        status = chat(pilot).status_bar
        await wait_until(pilot, lambda: status.endpoint == "offline model", "the built engine's endpoint")
        assert status.model == "offline"
        line = str(status.render())
        assert line.count("offline") == 1 and "offline model" in line, f"the offline model is named once: {line}"


async def test_a_prompt_sent_while_streaming_is_queued_then_sent(real_app: MakeApp, tmp_path: Path) -> None:
    # Ten seconds of streaming (on a loaded machine two would be over before the second prompt is typed), sped
    # up once the prompt is queued: the server reads the reply's `chunk_delay` before each chunk.
    scenario = Scenario.model_validate(
        {"replies": [{"text": "word " * 200, "chunk_size": 5, "chunk_delay": 0.05}, {"text": "Second answer."}]}
    )
    app, _ = real_app(scenario)
    async with app.run_test(size=(140, 40)) as pilot:
        await send(pilot, "talk a lot", wait=False)
        screen = chat(pilot)
        await wait_until(pilot, lambda: bool(screen.chat_log.assistant_messages), "the reply streaming")
        await send(pilot, "and then this", wait=False)
        # The prompt reaches the screen as a message, which may come after `press` returns.
        await wait_until(pilot, lambda: screen.queued.prompts == ["and then this"], lambda: f"{screen.queued.prompts}")
        assert screen.busy and [m.status for m in screen.chat_log.assistant_messages] == [MessageStatus.STREAMING]
        scenario.replies[0].chunk_delay = 0.0  # the rest of the first reply at once
        await wait_until(pilot, lambda: screen.idle, "both turns done")
        assert [m.status for m in screen.chat_log.assistant_messages] == [MessageStatus.COMPLETE] * 2
    messages = await history(tmp_path / "history.db")
    assert [(m.role.value, m.content.strip()[:14]) for m in messages] == [
        ("user", "talk a lot"),
        ("assistant", "word word word"),
        ("user", "and then this"),
        ("assistant", "Second answer."),
    ]


async def test_an_idle_chat_log_stays_still_once_the_turn_is_over(tmp_path: Path) -> None:
    """Text just over the log's height, in a log narrowed by the task tree: the scrollbar came, the text re-wrapped
    narrower, fitted, the scrollbar went, and the two took turns as long as the app was idle (~70 % of a core)."""
    settings = Settings(db=tmp_path / "history.db")
    app = TuiAgentApp(lambda: build_agent(settings, EndpointChoice(None, "offline")), cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "ask the researcher and the coder what the weather is in Paris")
        await wait_until(pilot, lambda: chat_idle(pilot), "the turn over")
        await pilot.press("ctrl+t")
        await task_tree(pilot)
        await pilot.pause(0.5)
        log, seen = chat(pilot).chat_log, set()
        for _ in range(40):  # a second of idle frames
            seen.add((log.show_vertical_scrollbar, log.size.width))
            await pilot.pause(0.025)
        assert len(seen) == 1, f"the idle log keeps changing: {seen}"
