"""Reasoning in the app, on the real stack: the thinking block above the answer, its toggles, the `[ui] reasoning`
setting, a reasoning-only reply, and the block again when the session is resumed."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import app_on_real_agent, chat, chat_idle, chat_ready, send, under_the_pointer, wait_until
from tests.ui.sessions_stack import RealStack
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.resume import ResumeRequest
from tui_agent.config import Settings, UiSettings
from tui_agent.history.models import PART_BREAK, StreamedPart, TextPart
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.messages import AssistantMessage
from tui_agent.ui.widgets.thinking import ThinkingBlock

SIZE = (120, 36)
THOUGHT = "The user asks for 2 + 2.\u202e Four is the sum; answer in one word."
SHOWN = "The user asks for 2 + 2. Four is the sum; answer in one word."  # the bidi override removed
REASONS = {"reasoning": THOUGHT, "text": "Four.", "chunk_size": 8}
ONLY_THINKS = {"reasoning": "Hmm. Nothing to say to that.", "reasoning_field": "reasoning"}


def _app(server: BackgroundServer, tmp_path: Path, reasoning: str = "collapsed") -> TuiAgentApp:
    settings = Settings(db=tmp_path / "history.db", ui=UiSettings.model_validate({"reasoning": reasoning}))
    app, _ = app_on_real_agent(settings, EndpointChoice(server.base_url, "scripted", "test-key"))
    return app


def _blocks(pilot: Pilot[None]) -> list[ThinkingBlock]:
    return list(chat(pilot).chat_log.query(ThinkingBlock))


async def _stored(db: Path) -> list[list[object]]:
    store = await HistoryStore.open(db)
    try:
        (session,) = await store.list_recent()
        return [list(message.parts) for message in await store.load_tail(session.id, 10)]
    finally:
        await store.close()


async def test_reasoning_streams_into_a_collapsed_block_above_the_answer_and_is_saved(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [REASONS]})) as server:
        app = _app(server, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "What is 2 + 2?")
            (block,) = _blocks(pilot)
            log = chat(pilot).chat_log
            answer = log.assistant_messages[-1]
            assert log.children.index(block) == log.children.index(answer) - 1  # just above its answer
            assert block.text == SHOWN and not block.expanded
            assert str(block.render()) == "▸ thought (15 words)"
            assert answer.shown_text().strip() == "Four."
    parts = await _stored(tmp_path / "history.db")
    # saved as the model sent it (shown sanitised)
    assert parts[1] == [StreamedPart("reasoning", THOUGHT), TextPart("Four.")]


async def test_a_key_and_a_click_open_and_close_the_block(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [REASONS]})) as server:
        app = _app(server, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "What is 2 + 2?")
            (block,) = _blocks(pilot)
            block.focus()  # the focus moves a moment later: wait before the key
            await wait_until(pilot, lambda: block.has_focus, "the block focused")
            await pilot.press("enter")
            await wait_until(pilot, lambda: block.expanded, "opened by Enter")
            assert str(block.render()) == f"▾ thought (15 words)\n{SHOWN}"
            await pilot.click(block)
            await wait_until(pilot, lambda: not block.expanded, "closed by a click")
            log = chat(pilot).chat_log
            log.focus()
            await wait_until(pilot, lambda: log.has_focus, "the log focused")
            await pilot.press("t")  # the log focused: the newest block
            await wait_until(pilot, lambda: block.expanded, "opened by t")
            await pilot.click(block)
            await wait_until(pilot, lambda: not block.expanded, "closed by a click again")
            # from the prompt, the keyboard's way: Ctrl+Up selects the reply, whose bar offers `t`
            screen = chat(pilot)
            screen.prompt_input.focus()
            await wait_until(pilot, lambda: screen.prompt_input.has_focus, "the prompt focused")
            await pilot.press("ctrl+up")
            cursor = screen.message_cursor
            await wait_until(pilot, lambda: cursor.has_focus and cursor.selected is not None, "the reply selected")
            assert "t thinking" in str(cursor.render())
            await pilot.press("t")
            await wait_until(pilot, lambda: block.expanded, "opened by t on the selected reply")


async def test_expanded_and_hidden_settings(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [REASONS], "then": "repeat_last"})) as server:
        async with _app(server, tmp_path / "open", "expanded").run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "What is 2 + 2?")
            (block,) = _blocks(pilot)
            assert block.expanded and SHOWN in str(block.render())
        async with _app(server, tmp_path / "hidden", "hidden").run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "What is 2 + 2?")
            assert _blocks(pilot) == []
            assert chat(pilot).chat_log.assistant_messages[-1].shown_text().strip() == "Four."
        hidden = await _stored(tmp_path / "hidden" / "history.db")
        assert hidden[1][0] == StreamedPart("reasoning", THOUGHT)  # still saved


async def test_a_reasoning_only_reply_shows_as_its_block_alone(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [ONLY_THINKS]})) as server:
        app = _app(server, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "Hm?")
            (block,) = _blocks(pilot)
            assert str(block.render()) == "▸ thought — no answer followed (6 words)"
            reply = chat(pilot).chat_log.assistant_messages[-1]
            assert reply.has_class("-thought-only") and not reply.display
    assert (await _stored(tmp_path / "history.db"))[1] == [StreamedPart("reasoning", "Hmm. Nothing to say to that.")]


async def test_a_resumed_session_shows_its_reasoning(tmp_path: Path) -> None:
    server = BackgroundServer(strict_scenario({"replies": [REASONS, ONLY_THINKS], "then": "repeat_last"}))
    with server:
        stack = RealStack(tmp_path / "history.db", server)
        app, _ = stack.app()
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "What is 2 + 2?")
            await send(pilot, "Hm?")
        app, _ = stack.app(ResumeRequest(latest=True))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: len(list(pilot.app.screen.query(ThinkingBlock))) == 2, "two blocks")
            first, second = _blocks(pilot)
            assert (first.text, str(first.render())) == (SHOWN, "▸ thought (15 words)")
            assert str(second.render()) == "▸ thought — no answer followed (6 words)"
            replies = list(chat(pilot).query(AssistantMessage))
            assert [reply.has_class("-thought-only") for reply in replies] == [False, True]
            first.scroll_visible(animate=False, immediate=True)
            await wait_until(pilot, lambda: under_the_pointer(pilot, first), "the first block scrolled into view")
            await pilot.click(first)
            await wait_until(
                pilot,
                lambda: first.expanded,
                lambda: f"{first.region}, {first.is_attached}, {chat(pilot).chat_log.scroll_y}",
            )
        assert THOUGHT not in str(stack.chat_requests())  # never sent back, live or resumed


INTERLEAVED = {
    "reasoning": "First the sum.",
    "text": "Four.",
    "chunk_size": 6,
    "interleaved": [{"reasoning": " Then a check: two and two.", "text": " Sure."}],
}
BOTH = "First the sum. Then a check: two and two."


async def test_reasoning_after_the_answer_began_goes_into_the_same_block_live_and_resumed(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [INTERLEAVED]})) as server:
        stack = RealStack(tmp_path / "history.db", server)
        app, _ = stack.app()
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "What is 2 + 2?")
            (block,) = _blocks(pilot)
            assert (block.text, str(block.render())) == (BOTH, "▸ thought (9 words)")
            assert chat(pilot).chat_log.assistant_messages[-1].shown_text().strip() == "Four. Sure."
        assert (await _stored(tmp_path / "history.db"))[1] == [StreamedPart("reasoning", BOTH), TextPart("Four. Sure.")]
        app, _ = stack.app(ResumeRequest(latest=True))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: len(list(pilot.app.screen.query(ThinkingBlock))) == 1, "the block")
            (block,) = _blocks(pilot)
            assert (block.text, str(block.render())) == (BOTH, "▸ thought (9 words)")


CUT = {"reasoning": "Count to five.", "text": "One two", "finish_reason": "length"}
GOES_ON = {"reasoning": "Go on from two.", "text": " three four five."}
KEPT = f"Count to five.{PART_BREAK}Go on from two."


async def _continue(pilot: Pilot[None]) -> None:
    screen = chat(pilot)
    await pilot.press("ctrl+g")
    await wait_until(pilot, lambda: screen.idle and "five." in screen.chat_log.assistant_messages[-1].text, "continued")


async def test_a_continued_reply_keeps_its_reasoning_and_the_continuations_after_a_separator(tmp_path: Path) -> None:
    with BackgroundServer(strict_scenario({"replies": [CUT, GOES_ON, CUT, GOES_ON]})) as server:
        stack = RealStack(tmp_path / "history.db", server)
        app, _ = stack.app()
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "Count")
            await _continue(pilot)
            (block,) = _blocks(pilot)
            assert (block.text, str(block.render())) == (KEPT, "▸ thought (7 words)")
            block.expanded = True
            assert "\n— continued —\n" in str(block.render())
        counted = [StreamedPart("reasoning", KEPT), TextPart("One two three four five.")]
        assert (await _stored(tmp_path / "history.db"))[1] == counted
        app, _ = stack.app(ResumeRequest(latest=True))
        async with app.run_test(size=SIZE) as pilot:  # resumed, then continued again: the stored block goes on
            await wait_until(pilot, lambda: len(list(pilot.app.screen.query(ThinkingBlock))) == 1, "the block")
            await chat_ready(pilot)
            await send(pilot, "Count again")
            await _continue(pilot)
            first, second = _blocks(pilot)
            assert (first.text, second.text) == (KEPT, KEPT)
        assert THOUGHT not in str(stack.chat_requests()) and "Count to five" not in str(stack.chat_requests())


async def test_a_block_is_not_let_go_while_its_reply_may_still_reason(tmp_path: Path) -> None:
    slow = {"reasoning": "Short.", "text": "A long answer, word by word, " * 4, "chunk_size": 4, "chunk_delay": 0.03}
    with BackgroundServer(strict_scenario({"replies": [slow]})) as server:
        app = _app(server, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await chat_ready(pilot)
            await send(pilot, "Go", wait=False)
            log = chat(pilot).chat_log
            await wait_until(
                pilot,
                lambda: bool(log.assistant_messages) and "long" in log.assistant_messages[0].text,
                "the answer began",
            )
            (block,) = _blocks(pilot)
            assert block.done and not block.settled  # interleaved reasoning may still come: the window keeps it
            await wait_until(pilot, lambda: chat_idle(pilot), "the reply ended")
            assert block.settled
