"""`--resume` / `--continue` on the real stack: a stored session looks as it was left and the model gets all of it.

Real SQLite history in tmp_path, the real agent built as `tui-agent` builds it, a scripted offline model
over HTTP whose recorded requests show exactly what context was sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip

from tests.ui.helpers import chat, conversation_keys, read_to_the_bottom, scroll_to_the_top, send, wait_until
from tests.ui.sessions_stack import Call, RealStack, Turn, add_turn, api_messages, real_stack, seed, stored
from tui_agent.agent.conversation import INTERRUPTED_RESULT, NO_REPLY
from tui_agent.agent.resume import ResumeRequest
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role, ToolStatus
from tui_agent.ui.history_view import HISTORY_PAGE
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.widgets.log_window import TRIM_AT_CHARS
from tui_agent.ui.widgets.markdown_view import MarkdownView
from tui_agent.ui.widgets.messages import AssistantMessage, ErrorNotice, MessageMarker, UserMessage

SIZE = (140, 50)
FINISHED_CALLS = (
    Call("c_done", "get_current_weather", {"location": "Paris"}, ToolStatus.DONE, result="Paris: sunny, 21 °C"),
    Call(
        "c_failed",
        "get_current_weather",
        {"location": "Atlantis"},
        ToolStatus.FAILED,
        error="get_current_weather failed: unknown city",
    ),
    Call(
        "c_denied",
        "run_shell",
        {"command": "rm -rf /tmp/x"},
        ToolStatus.DENIED,
        error="The user denied the call to run_shell.",
    ),
    Call(
        "c_interrupted",
        "run_shell",
        {"command": "sleep 100"},
        ToolStatus.INTERRUPTED,
        error="The call to run_shell was cancelled.",
    ),
)
OPEN_CALLS = (
    Call("c_pending", "calculator", {"expression": "2+2"}, ToolStatus.PENDING),
    Call("c_awaiting", "run_shell", {"command": "ls"}, ToolStatus.AWAITING_APPROVAL),
    Call("c_running", "get_current_weather", {"location": "Oslo"}, ToolStatus.RUNNING),
)
TURNS = [
    Turn("Weather in Paris and Atlantis, then clean up", "Checking four things…", calls=FINISHED_CALLS),
    Turn("Now Oslo, and 2+2", "Working on it", MessageStatus.INTERRUPTED, calls=OPEN_CALLS),
    Turn("Try again", "Half an ans", MessageStatus.FAILED, error="The model server failed (HTTP 500)."),
]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    with real_stack(tmp_path, "Carrying on.") as running:
        yield running


async def shown_history(pilot: Pilot[None], prompt: str) -> None:
    await wait_until(
        pilot,
        lambda: pilot.app.screen.is_active and prompt in [u.prompt for u in pilot.app.screen.query(UserMessage)],
        f"history with {prompt!r}",
    )
    await pilot.pause()


async def titled(pilot: Pilot[None], screen: ChatScreen, title: str) -> None:
    """Wait for the status line to name the session (the screen says it after the history page is mounted)."""
    bar = screen.status_bar
    await wait_until(pilot, lambda: bar.title == title, lambda: f"the title {title!r} shown (shows {bar.title!r})")


async def seed_all_statuses(stack: RealStack) -> str:
    """The session of TURNS, plus a second reply (the answer after the tool round) in the first turn."""
    store = await HistoryStore.open(stack.db)
    try:
        session = await store.create_session("Every status", model="scripted")
        await add_turn(store, session.id, TURNS[0])
        await store.append_message(
            session.id,
            Role.ASSISTANT,
            "Paris is sunny; Atlantis is not a city.",
            MessageStatus.COMPLETE,
            model="scripted",
        )
        for turn in TURNS[1:]:
            await add_turn(store, session.id, turn)
        return session.id
    finally:
        await store.close()


async def test_resumed_session_shows_every_status_and_the_model_gets_all_of_it(stack: RealStack) -> None:
    session_id = await seed_all_statuses(stack)  # closed: its open calls are now interrupted (an earlier exit)
    app, backend = stack.app(ResumeRequest(session_id=session_id[:10]))
    async with app.run_test(size=SIZE) as pilot:
        await shown_history(pilot, "Try again")
        screen = chat(pilot)
        await titled(pilot, screen, "Every status")  # once the page is mounted, or once the engine is there
        assert not screen.chat_log.welcome_shown and screen.tool_panels.display
        panels = {panel.call.call_id: panel for panel in screen.tool_panels.panels}
        assert list(panels) == [c.call_id for c in FINISHED_CALLS + OPEN_CALLS]
        assert {i: p.status for i, p in panels.items()} == {
            **{c.call_id: c.status for c in FINISHED_CALLS},
            **{c.call_id: ToolStatus.INTERRUPTED for c in OPEN_CALLS},
        }
        done = panels["c_done"]
        assert "location: Paris" in str(done.render()) and "Paris: sunny, 21 °C" in str(done.render())
        assert " · " in str(done.border_subtitle)  # status and duration
        assert "unknown city" in str(panels["c_failed"].render())
        assert "interrupted" in str(panels["c_running"].border_subtitle).lower()
        markers = [m for m in screen.query(MessageMarker)]
        assert [m.has_class("-interrupted") for m in markers] == [True, False]
        assert [m.has_class("-failed") for m in markers] == [False, True]
        assert any("HTTP 500" in str(n.render()) for n in screen.query(ErrorNotice))
        replies = [m.shown_text().strip() for m in screen.query(AssistantMessage)]
        assert replies == [
            "Checking four things…",
            "Paris is sunny; Atlantis is not a city.",
            "Working on it",
            "Half an ans",
        ]
        await send(pilot, "Continue please")
        assert (await backend.ready()).current_session_id == session_id
        assert screen.chat_log.assistant_messages[-1].shown_text().strip() == "Carrying on."
    (body,) = stack.chat_requests()
    sent = api_messages(body)
    assert sent == [
        ("user", "Weather in Paris and Atlantis, then clean up", []),
        ("assistant", "Checking four things…", [c.call_id for c in FINISHED_CALLS]),
        *[("tool", c.call_id, []) for c in FINISHED_CALLS],
        ("assistant", "Paris is sunny; Atlantis is not a city.", []),
        ("user", "Now Oslo, and 2+2", []),
        ("assistant", "Working on it", [c.call_id for c in OPEN_CALLS]),
        *[("tool", c.call_id, []) for c in OPEN_CALLS],
        ("assistant", NO_REPLY, []),  # the reply after the interrupted tools never came; the user may not follow a tool
        ("user", "Try again", []),
        ("assistant", "Half an ans", []),
        ("user", "Continue please", []),
    ]
    results = {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
    assert results["c_done"] == "Paris: sunny, 21 °C"
    assert results["c_failed"] == "get_current_weather failed: unknown city"  # what the live turn sent
    assert results["c_denied"] == "The user denied the call to run_shell."
    assert {results[c] for c in ("c_interrupted", "c_pending", "c_awaiting", "c_running")} == {INTERRUPTED_RESULT}
    _, messages = await stored(stack.db, session_id)
    assert [m.content for m in messages[-2:]] == ["Continue please", "Carrying on."]


async def test_calls_still_open_in_another_running_instance_show_their_live_status(stack: RealStack) -> None:
    """While the writer is still alive (another tui-agent on the same file), open calls are not interrupted."""
    writer = await HistoryStore.open(stack.db)
    try:
        session = await writer.create_session("Still running elsewhere")
        await add_turn(writer, session.id, TURNS[0])
        await add_turn(writer, session.id, TURNS[1])
        app, _ = stack.app(ResumeRequest(latest=True))
        async with app.run_test(size=SIZE) as pilot:
            await shown_history(pilot, "Now Oslo, and 2+2")
            statuses = {p.call.call_id: p.status for p in chat(pilot).tool_panels.panels}
            assert [statuses[c.call_id] for c in OPEN_CALLS] == [c.status for c in OPEN_CALLS]
            assert {panel.has_class(f"-{panel.status.value}") for panel in chat(pilot).tool_panels.panels} == {True}
    finally:
        await writer.close()


async def test_continue_picks_the_most_recent_session(stack: RealStack) -> None:
    await seed(stack.db, "Older", [Turn("old question", "old answer")])
    recent = await seed(stack.db, "Newer", [Turn("new question", "new answer")])
    app, backend = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        await shown_history(pilot, "new question")
        assert "old question" not in [u.prompt for u in chat(pilot).query(UserMessage)]
        assert (await backend.ready()).current_session_id == recent.id


async def test_an_unknown_id_is_said_inline_and_a_new_session_starts(stack: RealStack) -> None:
    await seed(stack.db, "Only", [Turn("q", "a")])
    app, backend = stack.app(ResumeRequest(session_id="no-such-id"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(chat(pilot).query(ErrorNotice)), "inline notice")
        (notice,) = chat(pilot).query(ErrorNotice)
        assert "no-such-id" in str(notice.render()) and "Starting a new session" in str(notice.render())
        assert not chat(pilot).query(UserMessage)
        assert not chat(pilot).chat_log.welcome_shown, "the sentence saying why takes the welcome's place"
        await send(pilot, "fresh start")
        assert (await backend.ready()).current_session_id is not None
    sessions, _ = await stored(stack.db)
    assert [s.title for s in sessions] == ["fresh start", "Only"]


async def test_continue_with_no_sessions_starts_fresh(stack: RealStack) -> None:
    app, _ = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(chat(pilot).query(ErrorNotice)), "inline notice")
        assert "no earlier session" in str(chat(pilot).query_one(ErrorNotice).render())


async def test_scrolling_loads_older_pages_and_keeps_a_window_with_its_tool_calls(stack: RealStack) -> None:
    def turn(i: int) -> Turn:
        calls = (Call(f"call_{i}", "get_current_weather", {"location": f"City {i}"}, ToolStatus.DONE, "sunny"),)
        return Turn(f"question {i}", f"answer {i}", calls=calls if i % 10 == 0 else ())

    session = await seed(stack.db, "Long", [turn(i) for i in range(80)])
    app, _ = stack.app(ResumeRequest(session_id=session.id))
    async with app.run_test(size=SIZE) as pilot:
        await shown_history(pilot, "question 79")
        screen = chat(pilot)
        view = screen.history
        assert view.loaded_messages == HISTORY_PAGE < 160  # the newest page only
        assert "question 0" not in [u.prompt for u in screen.query(UserMessage)]
        assert [p.call.call_id for p in screen.tool_panels.panels] == ["call_70"]
        steps = await scroll_to_the_top(pilot, screen)
        assert view.exhausted and view.loaded_messages == 160 and steps == -(-160 // HISTORY_PAGE) - 1
        # At the top: the oldest entries and only their calls are mounted; the newest were let go.
        assert conversation_keys(screen.chat_log.entries)[0] == "user: question 0"

        def shown_calls() -> list[str]:
            return [p.call.call_id for p in screen.tool_panels.panels]

        await wait_until(pilot, lambda: shown_calls()[:1] == ["call_0"], "the panels follow the log")
        assert "call_70" not in shown_calls()
        keys = await read_to_the_bottom(pilot, screen)
        assert [key for key in keys if key.startswith("user: ")] == [f"user: question {i}" for i in range(80)]
        assert [key.rsplit(": ", 1)[1] for key in keys if key.startswith("assistant")] == [
            f"answer {i}" for i in range(80)
        ]
        await wait_until(
            pilot,
            lambda: shown_calls()[-1:] == ["call_70"] and "call_0" not in shown_calls(),
            "the panels follow the log back down",
        )


async def test_the_newest_page_is_on_screen_before_the_engine_is_built(stack: RealStack) -> None:
    turns = [Turn(f"question {i}", f"answer {i}") for i in range(40)]
    session = await seed(stack.db, "Shown early", turns)
    engine_may_start = asyncio.Event()
    app, backend = stack.app(ResumeRequest(session_id=session.id[:8]), build_after=engine_may_start)
    async with app.run_test(size=SIZE) as pilot:
        await shown_history(pilot, "question 39")
        screen = chat(pilot)
        assert backend.agent is None  # read from the file, not through the engine
        await titled(pilot, screen, "Shown early")  # said once the early page is mounted
        assert screen.history.loaded_messages == HISTORY_PAGE
        engine_may_start.set()
        await wait_until(pilot, lambda: backend.agent is not None, "the engine built")
        await send(pilot, "and now?")  # the conversation goes on in the same session, with all of it
        (body,) = stack.chat_requests()
        prompts = [content for role, content, _ in api_messages(body) if role == "user"]
        assert prompts[-2:] == ["question 39", "and now?"]
        assert len(api_messages(body)) >= 80
        sessions, _ = await stored(stack.db)
        assert [s.id for s in sessions] == [session.id]


def long_reply(n: int, parts: int = 14) -> str:
    """A reply of `parts` sections (about 2 KB each): a heading and a long list, hundreds of rows in all."""
    sections = (
        f"## Part {part}\n\n" + "".join(f"- step {part}.{k}: wrote `out/{n}_{k}.o`\n" for k in range(60))
        for part in range(parts)
    )
    return f"# Answer {n}\n\n" + "\n".join(sections) + f"\nreply-{n}-end\n"


async def test_a_session_of_long_replies_mounts_a_few_at_a_time_and_shows_them_all(stack: RealStack) -> None:
    """Each mounted entry is laid out by every frame; twenty 30 KB replies are thousands of rows, where a few
    fill the screen many times over. A page of long replies is bounded by their size, not only their count."""
    turns = [Turn(f"question {i}", long_reply(i)) for i in range(12)]
    session = await seed(stack.db, "Long replies", turns)
    app, _ = stack.app(ResumeRequest(session_id=session.id))
    async with app.run_test(size=SIZE) as pilot:
        await shown_history(pilot, "question 11")
        screen = chat(pilot)
        replies = [entry for entry in screen.chat_log.entries if isinstance(entry, AssistantMessage)]
        assert len(replies) <= 2 and replies[-1].text == long_reply(11)  # the whole stored page was 12 of them
        assert screen.chat_log.hidden_count > 0
        await scroll_to_the_top(pilot, screen)
        mounted = [entry.text for entry in screen.chat_log.entries if isinstance(entry, AssistantMessage)]
        assert sum(map(len, mounted)) <= TRIM_AT_CHARS < 12 * len(long_reply(0))
        keys = await read_to_the_bottom(pilot, screen)
        assert [key for key in keys if key.startswith("user: ")] == [f"user: question {i}" for i in range(12)]
        assert [key.split(": ", 1)[1] for key in keys if key.startswith("assistant")] == [
            long_reply(i) for i in range(12)
        ]


async def test_the_rows_a_page_above_shows_first_are_rendered_before_its_frame(
    stack: RealStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame that lays out a page mounted above the view and renders the markdown it shows (~4 ms a piece)
    was the slowest frame of a long scroll up; the page's first and last rows are rendered before it is mounted."""
    turns = [Turn(f"question {i}", long_reply(i, parts=5)) for i in range(40)]  # pages from history too
    session = await seed(stack.db, "Long replies", turns)
    in_frames: list[bool] = []
    painting = [False]
    render_lines, render_piece = MarkdownView.render_lines, MarkdownView._render_piece

    def framed(view: MarkdownView, crop: Region) -> list[Strip]:
        painting[0] = True
        try:
            return render_lines(view, crop)
        finally:
            painting[0] = False

    def counted(view: MarkdownView, index: int) -> bool:
        if view._pieces[index].lines is None:
            in_frames.append(painting[0])
        return render_piece(view, index)

    monkeypatch.setattr(MarkdownView, "render_lines", framed)
    monkeypatch.setattr(MarkdownView, "_render_piece", counted)
    app, _ = stack.app(ResumeRequest(session_id=session.id))
    async with app.run_test(size=SIZE) as pilot:
        await shown_history(pilot, "question 39")
        screen = chat(pilot)
        await pilot.pause()
        in_frames.clear()  # the first page is mounted before the log has a width to render for
        await scroll_to_the_top(pilot, screen)
        assert conversation_keys(screen.chat_log.entries)[0] == "user: question 0"
    assert in_frames and not any(in_frames), in_frames
